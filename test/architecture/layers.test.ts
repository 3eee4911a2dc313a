// The layer rules of docs/architecture.md live in biome.json as noRestrictedImports overrides.
// Each case here copies that biome.json into a temporary directory, plants files that break
// (or keep) a rule, runs the Biome binary over them and checks what it reports. The real src/
// is checked by `npm run lint`; this shows the rules catch what they claim to, at every depth.
// Last, the import graph of src/ is read (import-graph.ts) and must hold no cycle, between folders
// or between files: an arrow pointing back up fails whatever the rules above allow. (Over 400
// lines: most of it is the table of planted imports, one case a line.)

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { folderOf, importCycles, readImportGraph } from './import-graph.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(REPO, 'node_modules', '.bin', 'biome');
const RULE = 'lint/style/noRestrictedImports';

/** The repo's biome.json, made to work outside the git checkout. */
function sandboxConfig(): string {
  const config = JSON.parse(readFileSync(join(REPO, 'biome.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  config.$schema = join(REPO, 'node_modules', '@biomejs', 'biome', 'configuration_schema.json');
  config.vcs = { enabled: false };
  return JSON.stringify(config, null, 2);
}

interface Finding {
  rule: string;
  file: string;
  message: string;
}

interface LintRun {
  status: number | null;
  output: string;
  findings: Finding[];
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The environment minus BIOME_CONFIG_PATH, so Biome reads the sandbox's biome.json. */
function withoutConfigPath(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { BIOME_CONFIG_PATH: _ignored, ...rest } = env;
  return rest;
}

/** Writes `files` (path → source) beside a copy of biome.json and runs `biome lint` there. */
function lint(files: Record<string, string>): LintRun {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cdn-chatops-layers-')));
  dirs.push(dir);
  writeFileSync(join(dir, 'biome.json'), sandboxConfig());
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const result = spawnSync(
    BIOME,
    ['lint', '--reporter=github', '--max-diagnostics=none', '--colors=off', '.'],
    { cwd: dir, encoding: 'utf8', env: withoutConfigPath(process.env) },
  );
  const output = `${result.stdout}${result.stderr}`;
  const findings: Finding[] = [];
  // ::error title=lint/style/noRestrictedImports,file=/tmp/…/src/x.ts,line=1,…::message
  for (const match of output.matchAll(/^::\w+ title=([^,]+),file=([^,]+),[^:]*::(.*)$/gm)) {
    const [, rule = '', file = '', message = ''] = match;
    findings.push({
      rule,
      file: relative(dir, file),
      message: message.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%'),
    });
  }
  return { status: result.status, output, findings };
}

interface Violation {
  file: string;
  source: string;
  /** A part of the message the rule must report. */
  message: string;
}

const value = (from: string): string => `import { x } from '${from}';\nexport const planted = x;\n`;
const type = (from: string): string =>
  `import type { X } from '${from}';\nexport type Planted = X;\n`;
const dynamic = (from: string): string => `export const load = () => import('${from}');\n`;
const reexport = (from: string): string => `export { x } from '${from}';\n`;

const NO_DEV = 'production code never imports src/dev';
const IO_PACKAGES = ['undici', 'pg', 'better-sqlite3', 'kysely', '@slack/web-api', '@slack/bolt'];

const RULES: { name: string; violations: Violation[] }[] = [
  {
    name: '1. no production module imports src/dev',
    violations: [
      { file: 'src/main.ts', source: dynamic('./dev/console/start.js'), message: NO_DEV },
      { file: 'src/deps.ts', source: value('./dev/fake-slack/server.js'), message: NO_DEV },
      { file: 'src/commands/planted.ts', source: value('../dev/sandbox/main.js'), message: NO_DEV },
      // Every folder with its own override keeps the src/dev restriction (options do not merge).
      ...[
        'slack',
        'listeners',
        'services',
        'jobs',
        'cdn',
        'store',
        'blocks',
        'charts',
        'throttles',
      ].map((layer) => ({
        file: `src/${layer}/planted-dev.ts`,
        source: value('../dev/fake-slack/validate.js'),
        message: NO_DEV,
      })),
      {
        file: 'src/listeners/commands/planted-dev.ts',
        source: type('../../dev/console/session.js'),
        message: NO_DEV,
      },
    ],
  },
  {
    name: '2. listeners do not import the store, the CDN client or jobs',
    violations: [
      {
        file: 'src/listeners/planted.ts',
        source: value('../store/index.js'),
        message: 'listeners call services, never the store: see docs/architecture.md',
      },
      {
        file: 'src/listeners/commands/planted-store.ts',
        source: value('../../store/index.js'),
        message: 'listeners call services, never the store',
      },
      {
        file: 'src/listeners/actions/planted-store.ts',
        source: type('../../store/approvals.js'),
        message: 'listeners call services, never the store',
      },
      {
        file: 'src/listeners/planted-cdn.ts',
        source: value('../cdn/client.js'),
        message: 'listeners call services, never the CDN client',
      },
      {
        file: 'src/listeners/views/planted-cdn.ts',
        source: value('../../cdn/schemas.js'),
        message: 'listeners call services, never the CDN client',
      },
      {
        file: 'src/listeners/events/planted-jobs.ts',
        source: value('../../jobs/report-scheduler.js'),
        message: 'listeners call services, never jobs',
      },
    ],
  },
  {
    name: '3. services have no Bolt, no Block Kit, no listeners, router or Slack adapters',
    violations: [
      {
        file: 'src/services/planted-blocks.ts',
        source: value('../blocks/text.js'),
        message: 'services return data, never Block Kit',
      },
      {
        file: 'src/services/planted-reexport.ts',
        source: reexport('../blocks/text.js'),
        message: 'services return data, never Block Kit',
      },
      {
        file: 'src/services/planted-listeners.ts',
        source: value('../listeners/index.js'),
        message: 'services sit below listeners and the /cdn router',
      },
      {
        file: 'src/services/planted-commands.ts',
        source: value('../commands/parse.js'),
        message: 'services sit below listeners and the /cdn router',
      },
      {
        file: 'src/services/planted-slack.ts',
        source: type('../slack/respond.js'),
        message: 'services reach Slack only through a port',
      },
      ...['@slack/bolt', '@slack/web-api', '@slack/types'].map((pkg) => ({
        file: `src/services/planted-${pkg.replace('@slack/', '')}.ts`,
        source: type(pkg),
        message: 'services have no Bolt, no Web API and no Block Kit types',
      })),
      {
        file: 'src/services/planted-metrics.ts',
        source: value('prom-client'),
        message: 'services record no metrics themselves',
      },
    ],
  },
  {
    name: '4. jobs have no Block Kit, listeners, router or Bolt',
    violations: [
      ...['blocks/errors', 'listeners/index', 'commands/parse'].map((target) => ({
        file: `src/jobs/planted-${target.split('/')[0]}.ts`,
        source: value(`../${target}.js`),
        message: 'jobs run background work through services and ports',
      })),
      {
        file: 'src/jobs/planted-bolt.ts',
        source: type('@slack/bolt'),
        message: 'jobs have no Bolt',
      },
    ],
  },
  {
    name: '5. the CDN client and the store import nothing above them',
    violations: ['cdn', 'store'].flatMap((layer) =>
      ['slack', 'blocks', 'listeners', 'services', 'commands', 'jobs'].map((target) => ({
        file: `src/${layer}/planted-${target}.ts`,
        source: value(`../${target}/index.js`),
        message: 'the CDN client and the store are the bottom layer',
      })),
    ),
  },
  {
    name: '6. blocks and charts are pure',
    violations: [
      {
        file: 'src/blocks/planted-commands.ts',
        source: value('../commands/parse.js'),
        message: 'the subcommand list is passed in as data',
      },
      ...['slack', 'listeners', 'jobs'].map((target) => ({
        file: `src/blocks/planted-${target}.ts`,
        source: value(`../${target}/index.js`),
        message: 'Block Kit builders are pure: they never import',
      })),
      ...[...IO_PACKAGES, 'kysely/helpers/postgres'].map((pkg, i) => ({
        file: `src/blocks/planted-io-${i}.ts`,
        source: value(pkg),
        message: 'Block Kit builders are pure: no I/O packages',
      })),
      ...['slack', 'listeners', 'jobs', 'commands', 'blocks', 'store', 'services'].map(
        (target) => ({
          file: `src/charts/planted-${target}.ts`,
          source: value(`../${target}/index.js`),
          message: 'charts are pure rendering',
        }),
      ),
      ...IO_PACKAGES.map((pkg, i) => ({
        file: `src/charts/planted-io-${i}.ts`,
        source: value(pkg),
        message: 'charts are pure rendering: no I/O packages',
      })),
    ],
  },
  {
    name: '7. the /cdn parser imports nothing above it',
    violations: ['listeners', 'services', 'slack', 'blocks', 'store', 'cdn', 'jobs'].map(
      (target) => ({
        file: `src/commands/planted-${target}.ts`,
        source: value(`../${target}/commands/registry.js`),
        message: 'the /cdn parser is pure text in, words out',
      }),
    ),
  },
  {
    name: '8. throttles import nothing above them, and do no I/O of their own',
    violations: [
      ...[
        'api',
        'listeners',
        'services',
        'slack',
        'jobs',
        'observability',
        'blocks',
        'commands',
        'charts',
        'store',
        'cdn',
      ].map((target) => ({
        file: `src/throttles/planted-${target}.ts`,
        source: type(`../${target}/index.js`),
        message: 'throttles are mechanisms low in the house',
      })),
      ...['app', 'deps', 'main', 'lifecycle', 'config'].map((target) => ({
        file: `src/throttles/planted-top-${target}.ts`,
        source: value(`../${target}.js`),
        message: 'throttles are mechanisms low in the house',
      })),
      {
        file: 'src/throttles/deep/planted-store.ts',
        source: value('../../store/rate-slots.js'),
        message: 'throttles are mechanisms low in the house',
      },
      ...['@slack/web-api', 'kysely', 'pg', 'better-sqlite3', 'undici', 'prom-client'].map(
        (pkg, i) => ({
          file: `src/throttles/planted-io-${i}.ts`,
          source: value(pkg),
          message: 'throttles do no I/O of their own',
        }),
      ),
    ],
  },
];

/** The suppression src/main.ts carries on its one dynamic import of the development console. */
const MAIN_CONSOLE = [
  'export async function startConsoleMode(): Promise<unknown> {',
  '  // biome-ignore lint/style/noRestrictedImports: the development console loads only in console mode, on demand',
  "  const { startConsole } = await import('./dev/console/start.js');",
  '  return startConsole;',
  '}',
  '',
].join('\n');

/** Imports the layers are meant to use, from the same places, with names near the banned ones. */
const ALLOWED: Record<string, string> = {
  'src/main.ts': MAIN_CONSOLE,
  'src/deps.ts': [
    "import { a } from './store/index.js';",
    "import { b } from './slack/respond.js';",
    "import { c } from './cdn/client.js';",
    "import { d } from './jobs/report-scheduler.js';",
    'export const planted = [a, b, c, d];',
    '',
  ].join('\n'),
  'src/dev/console/planted.ts': [
    "import { a } from '../../store/index.js';",
    "import { b } from '../../listeners/index.js';",
    "import { c } from '../sandbox/main.js';",
    "import { d } from '../fake-slack/validate.js';",
    'export const planted = [a, b, c, d];',
    '',
  ].join('\n'),
  'src/listeners/planted.ts': [
    "import type { App } from '@slack/bolt';",
    "import { a } from '../blocks/purge.js';",
    "import { b } from '../commands/parse.js';",
    "import { c } from '../services/purge.js';",
    "import { d } from '../services/store-foo.js';",
    "import { e } from '../cdn-access.js';",
    "import { f } from './commands/purge.js';",
    'export const planted: unknown[] = [a, b, c, d, e, f];',
    'export type Planted = App;',
    '',
  ].join('\n'),
  'src/listeners/commands/planted.ts': [
    "import { a } from '../../blocks/purge.js';",
    "import { b } from '../../services/cdn-access.js';",
    "import { c } from '../../slack/respond.js';",
    "import { d } from '../payload-guard.js';",
    'export const planted = [a, b, c, d];',
    '',
  ].join('\n'),
  'src/commands/planted.ts': [
    "import { a } from 'fastest-levenshtein';",
    "import { b } from '../text.js';",
    "import { c } from './parse.js';",
    'export const planted = [a, b, c];',
    '',
  ].join('\n'),
  'src/services/planted.ts': [
    "import { a } from '../cdn/client.js';",
    "import { b } from '../errors.js';",
    "import { c } from '../store/index.js';",
    "import { d } from './blocks-of-urls.js';",
    "import { e } from './slack-port.js';",
    "import { f } from './purge.js';",
    'export const planted = [a, b, c, d, e, f];',
    '',
  ].join('\n'),
  'src/jobs/planted.ts': [
    "import { a } from '../clock.js';",
    "import { b } from '../services/daily-report.js';",
    "import { c } from '../store/index.js';",
    'export const planted = [a, b, c];',
    '',
  ].join('\n'),
  'src/cdn/planted.ts': [
    "import { a } from 'undici';",
    "import { b } from '../logger.js';",
    "import { c } from './errors.js';",
    'export const planted = [a, b, c];',
    '',
  ].join('\n'),
  'src/store/planted.ts': [
    "import type { Installation } from '@slack/bolt';",
    "import { a } from 'kysely';",
    "import { b } from 'pg';",
    "import { c } from './db.js';",
    'export const planted = [a, b, c];',
    'export type Planted = Installation;',
    '',
  ].join('\n'),
  'src/blocks/planted.ts': [
    "import type { KnownBlock } from '@slack/types';",
    "import { a } from '../errors.js';",
    "import { b } from './text.js';",
    'export const planted = [a, b];',
    'export type Planted = KnownBlock;',
    '',
  ].join('\n'),
  'src/throttles/planted.ts': [
    "import type { Clock } from '../clock.js';",
    "import { a } from '../errors.js';",
    "import { b } from './call-pace.js';",
    "import { c } from 'node:timers/promises';",
    "import { d } from '../config-foo.js';",
    'export const planted = [a, b, c, d];',
    'export type Planted = Clock;',
    '',
  ].join('\n'),
  'src/charts/planted.ts': [
    "import { a } from 'chart.js';",
    "import { b } from 'chartjs-node-canvas';",
    "import { c } from './format.js';",
    'export const planted = [a, b, c];',
    '',
  ].join('\n'),
};

describe('layer rules (biome.json noRestrictedImports)', () => {
  it.each(RULES)('$name: each planted import fails the lint', ({ violations }) => {
    const run = lint(Object.fromEntries(violations.map((v) => [v.file, v.source])));
    const byFile = (a: { file: string }, b: { file: string }) => a.file.localeCompare(b.file);
    expect(run.findings.sort(byFile), `biome output:\n${run.output}`).toEqual(
      violations
        .map((v) => ({ rule: RULE, file: v.file, message: expect.stringContaining(v.message) }))
        .sort(byFile),
    );
    expect(run.status, run.output).toBe(1);
  });

  it('allows the imports the layers are meant to use, and the suppressed console import', () => {
    const run = lint(ALLOWED);
    expect(run.findings, run.output).toEqual([]);
    expect(run.status, run.output).toBe(0);
  });

  it('flags the console import in main.ts without its suppression', () => {
    const run = lint({ 'src/main.ts': MAIN_CONSOLE.replace(/^ *\/\/ biome-ignore.*\n/m, '') });
    expect(run.findings, run.output).toEqual([
      { rule: RULE, file: 'src/main.ts', message: expect.stringContaining(NO_DEV) },
    ]);
    expect(run.status, run.output).toBe(1);
  });
});

/** Writes `files` (path → source) into a temporary directory and reads their import graph. */
function graphOf(files: Record<string, string>) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cdn-chatops-cycles-')));
  dirs.push(dir);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return readImportGraph(dir);
}

const byFile = (file: string): string => file;

describe('no import cycles', () => {
  it('finds a cycle between folders, however each import is written', () => {
    const graph = graphOf({
      // Today's shape: the list imports the handlers, the router imports the listeners' context.
      'commands/registry.ts': type('../listeners/commands/zones.js'),
      'commands/router.ts': value('../listeners/context.js'),
      'listeners/commands/index.ts': dynamic('../../commands/router.js'),
      'listeners/commands/zones.ts': value('../context.js'),
      'listeners/context.ts': reexport('../blocks/index.js'),
      'blocks/index.ts': 'export const x = 1;\n',
      // A file at the top of the tree is a node of its own.
      'failures.ts': value('./cdn/limits.js'),
      'cdn/limits.ts': value('../failures.js'),
      'clock.ts': 'export const x = 1;\n',
      'services/purge.ts': value('../clock.js'),
    });
    expect(importCycles(graph, folderOf)).toEqual([
      {
        members: ['cdn/', 'failures.ts'],
        imports: [
          'cdn/ → failures.ts (cdn/limits.ts imports failures.ts)',
          'failures.ts → cdn/ (failures.ts imports cdn/limits.ts)',
        ],
      },
      {
        members: ['commands/', 'listeners/'],
        imports: [
          'commands/ → listeners/ (commands/registry.ts imports listeners/commands/zones.ts)',
          'listeners/ → commands/ (listeners/commands/index.ts imports commands/router.ts)',
        ],
      },
    ]);
    // Between files only the two that import each other: commands ↔ listeners goes through four.
    expect(importCycles(graph, byFile).map((cycle) => cycle.members)).toEqual([
      ['cdn/limits.ts', 'failures.ts'],
    ]);
  });

  it('finds a cycle between files of one folder, and none in a tree that only points down', () => {
    const cyclic = graphOf({
      'dev/sandbox/routes.ts': value('./analytics.js'),
      'dev/sandbox/analytics.ts': type('./routes.js'),
    });
    expect(importCycles(cyclic, byFile)).toEqual([
      {
        members: ['dev/sandbox/analytics.ts', 'dev/sandbox/routes.ts'],
        imports: [
          'dev/sandbox/analytics.ts → dev/sandbox/routes.ts (dev/sandbox/analytics.ts imports dev/sandbox/routes.ts)',
          'dev/sandbox/routes.ts → dev/sandbox/analytics.ts (dev/sandbox/routes.ts imports dev/sandbox/analytics.ts)',
        ],
      },
    ]);
    expect(importCycles(cyclic, folderOf)).toEqual([]);
    const layered = graphOf({
      'listeners/commands/registry.ts': value('./zones.js'),
      'listeners/commands/zones.ts': value('../../commands/parse.js'),
      'commands/parse.ts': value('../text.js'),
      'text.ts': "import { x } from 'fastest-levenshtein';\nexport const y = x;\n",
    });
    expect(importCycles(layered, folderOf)).toEqual([]);
    expect(importCycles(layered, byFile)).toEqual([]);
  });

  const src = readImportGraph(join(REPO, 'src'));

  it('src/ has no cycle between folders (each top-level folder, each file at the top)', () => {
    expect(src.size).toBeGreaterThan(100);
    expect(importCycles(src, folderOf)).toEqual([]);
  });

  it('src/ has no cycle between files', () => {
    expect(importCycles(src, byFile)).toEqual([]);
  });
});
