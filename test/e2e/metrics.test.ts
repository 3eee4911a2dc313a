// GET /metrics over the real HTTP receiver: refused without the bearer token, and after a scripted
// session (a command, a URL purge, a purge-everything approved, a daily report posted) the counters
// have moved, the text parses strictly as Prometheus exposition, and no label holds an id or a URL.
import { describe, expect, it } from 'vitest';
import { parseExposition, sumOf } from '../helpers/prometheus.js';
import { openApprove, requestEverything } from './flows.js';
import { ADMIN, CDN_KEY, CHANNEL, MEMBER, startHarness, textOf } from './harness.js';

const TOKEN = 'e2e-metrics-token-4b7f0c2a9e';

/** GET /metrics with `token` as the bearer (null: no Authorization header). */
async function scrape(url: string, token: string | null = TOKEN) {
  const response = await fetch(`${url}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.text(),
  };
}

describe('GET /metrics on PORT with METRICS_TOKEN', () => {
  it('refuses a scrape without the token or with another one', async () => {
    const h = await startHarness({ env: { METRICS_TOKEN: TOKEN } });
    expect((await scrape(h.url, null)).status).toBe(401);
    expect((await scrape(h.url, `${TOKEN}x`)).status).toBe(401);
    expect((await scrape(h.url, TOKEN.slice(1))).status).toBe(401);
    const ok = await scrape(h.url);
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
    expect(ok.body).not.toContain(TOKEN);
  });

  it('is not served at all when no METRICS_* variable is set', async () => {
    const h = await startHarness();
    expect((await scrape(h.url)).status).toBe(404);
  });

  it('counts a scripted session: command, purge, approval, report', async () => {
    const h = await startHarness({ login: true, env: { METRICS_TOKEN: TOKEN } });
    const before = parseExposition((await scrape(h.url)).body);
    expect(sumOf(before, 'cdn_chatops_commands_total')).toBe(0);

    // A command, and one nobody knows.
    await h.command('help');
    await h.command('frobnicate https://example.com/secret-path');
    await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    // A URL purge (one batch of two URLs).
    await h.command('purge example.com https://example.com/a.css https://example.com/b.js');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    // Purge everything, requested by one person and approved by another.
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    // A daily report, due at 14:00 UTC (09:00 in New York), posted by its job.
    await h.command('report example.com daily');
    await h.slack.waitForMessages((m) => textOf(m.blocks).includes('at 09:00'));
    h.clock.advance(4 * 3_600_000);
    await h.deps.reports.tick();
    await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal');
    await h.deps.runner.settled();

    const scraped = await scrape(h.url);
    expect(scraped.status).toBe(200);
    const after = parseExposition(scraped.body);
    const value = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels);

    expect(value('cdn_chatops_commands_total', { subcommand: 'help', outcome: 'ok' })).toBe(1);
    expect(value('cdn_chatops_commands_total', { subcommand: 'unknown', outcome: 'ok' })).toBe(1);
    expect(value('cdn_chatops_commands_total', { subcommand: 'purge', outcome: 'ok' })).toBe(2);
    expect(value('cdn_chatops_commands_total', { subcommand: 'report', outcome: 'ok' })).toBe(1);
    expect(value('cdn_chatops_ack_duration_seconds_count', { kind: 'command' })).toBe(5);
    expect(value('cdn_chatops_ack_duration_seconds_count', { kind: 'view_submission' })).toBe(
      4, // three tries of the purge-everything form, one approval
    );
    expect(value('cdn_chatops_purges_total', { kind: 'urls', outcome: 'ok' })).toBe(1);
    expect(value('cdn_chatops_purges_total', { kind: 'everything', outcome: 'ok' })).toBe(1);
    expect(value('cdn_chatops_purge_urls_total')).toBe(2);
    expect(value('cdn_chatops_purge_batches_total')).toBe(2);
    expect(value('cdn_chatops_purge_failed_items_total')).toBe(0);
    expect(value('cdn_chatops_approvals_total', { event: 'requested' })).toBe(1);
    expect(value('cdn_chatops_approvals_total', { event: 'approved' })).toBe(1);
    expect(value('cdn_chatops_reports_total', { outcome: 'posted' })).toBe(1);
    expect(value('cdn_chatops_jobs_enqueued_total', { kind: 'purge' })).toBe(1);
    expect(value('cdn_chatops_jobs_enqueued_total', { kind: 'purge_everything' })).toBe(1);
    expect(value('cdn_chatops_jobs_enqueued_total', { kind: 'daily_report' })).toBe(1);
    expect(value('cdn_chatops_jobs_finished_total', { state: 'succeeded' })).toBe(3);
    expect(value('cdn_chatops_jobs_running')).toBe(0);
    expect(value('cdn_chatops_jobs_in_database', { state: 'queued' })).toBe(0);
    expect(
      value('cdn_chatops_cdn_request_duration_seconds_count', {
        operation: 'POST /zones/{id}/purge',
        status: '200',
      }),
    ).toBe(2);
    // Every request made of the CDN, counted by the feature it was for: the two purges (and the
    // hit rate shown with the approval), the daily report's traffic, the zone index's listing;
    // none of unknown purpose.
    const byFeature = (feature: string) => value('cdn_chatops_cdn_requests_total', { feature });
    const traffic = h.sandbox.requests.filter((r) => r.path.endsWith('/analytics/traffic'));
    expect(byFeature('purge')).toBeGreaterThanOrEqual(2);
    expect(byFeature('reports')).toBeGreaterThan(0);
    expect(byFeature('purge') + byFeature('reports')).toBe(2 + traffic.length);
    expect(byFeature('zones')).toBeGreaterThan(0);
    expect(byFeature('other')).toBe(0);
    expect(value('cdn_chatops_slack_api_calls_total', { method: 'views.open', status: 'ok' })).toBe(
      2,
    );
    expect(
      value('cdn_chatops_slack_api_calls_total', { method: 'chat.postMessage' }),
    ).toBeGreaterThan(0);
    // prom-client's process metrics: the event loop's lag among them.
    expect(after.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');

    // No label value is an id, a zone, a URL or anything typed.
    const forbidden = [
      h.workspaceId,
      ADMIN,
      MEMBER,
      CHANNEL,
      CDN_KEY,
      'example.com',
      'https://',
      'frobnicate',
      'secret-path',
      TOKEN,
      ...h.sandbox.state.purges.map((p) => p.id),
      ...h.sandbox.state.list().map((z) => z.id),
    ];
    for (const family of after.values()) {
      for (const sample of family.samples) {
        for (const label of Object.values(sample.labels)) {
          for (const bad of forbidden) expect(label, `${sample.name}`).not.toContain(bad);
        }
      }
    }
  });
});
