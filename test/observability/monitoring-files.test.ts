// The monitoring the project ships holds to the metrics the bot exports: the alert rules (one rule
// file, copied into the PrometheusRule and listed in docs/deploy.md) and the Grafana dashboard name
// only metrics and labels of the bot's registry, and parse (with promtool, where it is installed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { BotMetrics } from '../../src/observability/metrics.js';
import { kustomize } from '../helpers/kustomize.js';

const read = (path: string) => readFileSync(path, 'utf8');
/** Grafana's reference to the dashboard's data source variable (not a template literal). */
const DATASOURCE = '$' + '{datasource}';

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string };
}
const ruleFile = parse(read('deploy/prometheus/alert-rules.yaml')) as {
  groups: { name: string; rules: AlertRule[] }[];
};
const rules = ruleFile.groups.flatMap((group) => group.rules);

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string; datasource: { uid: string } }[];
}
const dashboard = JSON.parse(read('deploy/grafana/cdn-chatops.json')) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
};
const queries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
);

/** Every series name the bot's registry exposes, with its labels (histograms: _bucket, …). */
const exported = (() => {
  const names = new Map<string, string[]>();
  for (const metric of new BotMetrics().registry.getMetricsAsArray()) {
    const { name, labelNames = [] } = metric as unknown as { name: string; labelNames?: string[] };
    const type = (metric as unknown as { type?: string }).type;
    names.set(name, labelNames);
    if (type === 'histogram') {
      names.set(`${name}_bucket`, [...labelNames, 'le']);
      names.set(`${name}_sum`, labelNames);
      names.set(`${name}_count`, labelNames);
    }
  }
  // Prometheus's own, for each scrape.
  names.set('up', []);
  return names;
})();
/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = ['job', 'instance'];
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool']);
const KEYWORDS_BETWEEN = new Set(['and', 'or', 'unless', 'offset']);

/** The series selectors of a PromQL expression: each metric name and the labels it matches on. */
function selectors(expr: string): { metric: string; labels: string[] }[] {
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const found: { metric: string; labels: string[] }[] = [];
  const pattern = /(?<![\w.:$])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g;
  for (const [, name = '', matchers, call] of text.matchAll(pattern)) {
    if ((call && !matchers) || KEYWORDS.has(name) || KEYWORDS_BETWEEN.has(name)) continue;
    const labels = [...(matchers ?? '').matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map(
      (m) => m[1] ?? '',
    );
    found.push({ metric: name, labels });
  }
  return found;
}

/** Whether promtool is installed, to check the rules and queries as Prometheus parses them. */
const promtool = (() => {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const folder = mkdtempSync(join(tmpdir(), 'cdn-chatops-monitoring-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
function checkRules(path: string): string {
  return execFileSync('promtool', ['check', 'rules', path], { encoding: 'utf8' });
}

describe('the PromQL selector reader', () => {
  it('finds metric names and their matched labels, not functions, keywords or label lists', () => {
    expect(
      selectors(
        'histogram_quantile(0.99, sum by (le, kind) (rate(a_bucket{job=~"$job", x!="y{"}[$__rate_interval])))' +
          ' / on (job) group_left b > 0 and up{job="c"} == 0',
      ),
    ).toEqual([
      { metric: 'a_bucket', labels: ['job', 'x'] },
      { metric: 'b', labels: [] },
      { metric: 'up', labels: ['job'] },
    ]);
  });
});

describe('the alert rules', () => {
  it('are one rule file, which the PrometheusRule holds as it is', () => {
    const [rule] = kustomize('deploy/kubernetes/monitoring').filter(
      (r) => r.kind === 'PrometheusRule',
    );
    expect(rule?.spec).toEqual(ruleFile);
    expect(rules.length).toBeGreaterThan(0);
  });

  it('are listed in docs/deploy.md, each with its severity and summary', () => {
    const docs = read('docs/deploy.md');
    const section = docs.slice(
      docs.indexOf('### What to alert on'),
      docs.indexOf('\n## ', docs.indexOf('### What to alert on')),
    );
    const rows = [...section.matchAll(/^\| `(\w+)` \| (\w+) \| (.+) \|$/gm)].map((m) => ({
      alert: m[1],
      severity: m[2],
      summary: m[3],
    }));
    expect(rows).toEqual(
      rules.map((r) => ({
        alert: r.alert,
        severity: r.labels.severity,
        summary: r.annotations.summary,
      })),
    );
    expect(section).toContain('deploy/prometheus/alert-rules.yaml');
  });

  it('name each alert once, with a severity and a summary', () => {
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^CdnChatops[A-Z]\w+$/);
      expect(['critical', 'warning']).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length, rule.alert).toBeGreaterThan(10);
    }
  });

  it.skipIf(!promtool)('are valid for Prometheus (promtool check rules)', () => {
    expect(checkRules('deploy/prometheus/alert-rules.yaml')).toContain(
      `SUCCESS: ${rules.length} rules found`,
    );
  });
});

describe('the Grafana dashboard', () => {
  it('shows acks, commands, Slack and CDN calls, purges and jobs, with their errors', () => {
    const used = new Set(queries.flatMap((q) => selectors(q.expr).map((s) => s.metric)));
    for (const metric of [
      'cdn_chatops_ack_duration_seconds_bucket',
      'cdn_chatops_commands_total',
      'cdn_chatops_slack_api_calls_total',
      'cdn_chatops_cdn_requests_total',
      'cdn_chatops_cdn_request_duration_seconds_count',
      'cdn_chatops_purges_total',
      'cdn_chatops_purge_failed_items_total',
      'cdn_chatops_jobs_in_database',
      'cdn_chatops_jobs_finished_total',
    ]) {
      expect(used, metric).toContain(metric);
    }
    // Errors: commands that failed on a bug, Slack calls not ok, CDN requests failing.
    const all = queries.map((q) => q.expr).join('\n');
    expect(all).toContain('cdn_chatops_commands_total{job=~"$job",outcome="error"}');
    expect(all).toContain('status!="ok"');
    expect(all).toContain('status=~"5..|timeout|network"');
  });

  it('is a dashboard Grafana imports: unique panel ids, queries on its Prometheus variable', () => {
    expect(dashboard.uid).toBe('cdn-chatops');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const variables = dashboard.templating.list.map((v) => v.name);
    expect(variables).toEqual(['datasource', 'job']);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      if (panel.type === 'row') continue;
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: DATASOURCE });
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource.uid).toBe(DATASOURCE);
        // Every series is the bot's: never another job's metrics of the same name.
        for (const { metric, labels } of selectors(target.expr)) {
          expect(labels, `${panel.title}: ${metric}`).toContain('job');
        }
      }
    }
  });

  it.skipIf(!promtool)('has queries Prometheus parses (promtool, as recording rules)', () => {
    const records = queries.map((q, index) => ({
      record: `dashboard:query_${index}`,
      expr: q.expr.replaceAll('$__rate_interval', '5m').replaceAll('$job', 'cdn-chatops'),
    }));
    const path = join(folder, 'dashboard-queries.yaml');
    writeFileSync(path, stringify({ groups: [{ name: 'dashboard', rules: records }] }));
    expect(checkRules(path)).toContain(`SUCCESS: ${records.length} rules found`);
  });
});

describe('every metric the alert rules and the dashboard name', () => {
  it.each([
    ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
    ...queries.map((q) => ({ where: `panel ${q.panel}`, expr: q.expr })),
  ])('is exported by the bot, with the labels matched: $where', ({ expr }) => {
    const found = selectors(expr);
    expect(found.length).toBeGreaterThan(0);
    for (const { metric, labels } of found) {
      expect([...exported.keys()], expr).toContain(metric);
      for (const label of labels) {
        expect(
          [...(exported.get(metric) ?? []), ...TARGET_LABELS],
          `${metric}{${label}}`,
        ).toContain(label);
      }
    }
  });
});
