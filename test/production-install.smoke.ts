// The production install, as a deployment makes it: the built output and the lockfile copied into
// an empty folder, `npm ci --omit=dev` from the registry (no tsx, vitest, typescript or type
// packages), and `node dist/main.js` started from there in HTTP mode against the fake Slack, the
// CDN sandbox and the real PostgreSQL. It answers its probes, a command and a URL purge, serves
// /metrics on METRICS_PORT behind METRICS_TOKEN, and stops cleanly on SIGTERM. Where a container
// engine answers, the image is built from the Dockerfile and the same checks run against it;
// where none does, that part says so and is skipped (the only skip here).
//
// Run by `npm test` after the main suite (`npm run test:install`; vitest.install.config.ts). The
// install is `npm ci --omit=dev --prefer-offline`: every package from the lockfile, checked against
// its integrity, from npm's cache where it is there (the registry's metadata is not asked again).
// Its native modules (better-sqlite3, canvas) come through their own install scripts
// (prebuild-install) as a deployment with network access gets them: prebuilt. Here the prebuilt
// binaries are the checkout's own, compiled by its `npm ci` from the same package versions on this
// machine, handed over as prebuild-install's local prebuilds: compiling sqlite3 again would take
// most of this test's time (about a minute and a half on 2 cores) and prove nothing that the
// checkout's install did not. INSTALL_SMOKE_FROM_SOURCE=1 (set by .ci/run) compiles them again from
// source, as docs/deploy.md's `npm ci --omit=dev` does where no prebuilt binary can be fetched.
import { spawnSync } from 'node:child_process';
import { copyFile, cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bot, MEMBER, startWorld, type World } from './fault/bot-process.js';
import { builtDist, runToEnd } from './helpers/build.js';
import { freePort } from './helpers/net.js';
import { parseExposition, sumOf } from './helpers/prometheus.js';

const TOKEN = 'smoke-metrics-token-5e8a1f0b7c';
/**
 * Development dependencies no production one pulls in: none may be installed, so none can be
 * loaded (some @types/* do come with @slack/*, as their own dependencies).
 */
const DEV_ONLY = [
  'tsx',
  'vitest',
  'vite',
  'esbuild',
  'typescript',
  '@biomejs/biome',
  'fast-check',
  '@types/better-sqlite3',
  '@types/luxon',
  '@types/pg',
];
/** What the bot needs at run time, native modules included. */
const RUNTIME = ['@slack/bolt', 'prom-client', 'pg', 'better-sqlite3', 'canvas', 'kysely'];
const INSTALL_TIMEOUT_MS = 15 * 60_000;
/** Compile the native modules again from source instead of taking the checkout's (see above). */
const FROM_SOURCE = process.env.INSTALL_SMOKE_FROM_SOURCE === '1';
/** The native modules, and the binaries their prebuilt packages (prebuild-install's) hold. */
const NATIVE = [
  { name: 'better-sqlite3', binaries: ['build/Release/better_sqlite3.node'] },
  { name: 'canvas', binaries: ['build/Release/canvas.node'] },
];

let root: string;
let prebuilds: string | undefined;

/**
 * The checkout's compiled native modules packed as prebuild-install packs them, named as it looks
 * for them (`<name>-v<version>-<node-v<abi> | napi-v<n>>-<platform>-<arch>.tar.gz`); the
 * environment that points each package's install script at them.
 */
async function localPrebuilds(dir: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const { name, binaries } of NATIVE) {
    const from = join('node_modules', name);
    const pkg = JSON.parse(await readFile(join(from, 'package.json'), 'utf8')) as {
      version: string;
      binary?: { napi_versions?: number[] };
    };
    // As prebuild-install picks it: Node-API packages by their best Node-API version.
    const napi = Math.max(...(pkg.binary?.napi_versions ?? []));
    const abi = Number.isFinite(napi) ? `napi-v${napi}` : `node-v${process.versions.modules}`;
    const file = join(
      dir,
      `${name}-v${pkg.version}-${abi}-${process.platform}-${process.arch}.tar.gz`,
    );
    const packed = await runToEnd('tar', ['-czf', file, '-C', from, ...binaries]);
    expect(packed, name).toEqual({ code: 0, output: '' });
    env[`npm_config_${name.replace(/[^a-zA-Z0-9]/g, '_')}_local_prebuilds`] = dir;
  }
  return env;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'production-install-'));
  // The build production-start.test.ts made of this very src, if it is there (no second minute of
  // tsc), copied: this folder gets an install of its own.
  await cp((await builtDist()).dist, join(root, 'dist'), { recursive: true });
  await copyFile('package.json', join(root, 'package.json'));
  await copyFile('package-lock.json', join(root, 'package-lock.json'));
  prebuilds = FROM_SOURCE ? undefined : await mkdtemp(join(tmpdir(), 'production-prebuilds-'));
  // As in the image: no development dependency, no audit; the registry's packages.
  const install = await runToEnd(
    'npm',
    ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? root,
        CI: 'true',
        // node-gyp compiles on every core (canvas has many files; sqlite3 is one).
        JOBS: 'max',
        ...(prebuilds ? await localPrebuilds(prebuilds) : {}),
      },
    },
  );
  expect(install.code, install.output).toBe(0);
  process.stderr.write(
    `\n[production install] native modules ${FROM_SOURCE ? 'compiled from source' : "prebuilt (the checkout's)"}\n`,
  );
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  if (prebuilds) await rm(prebuilds, { recursive: true, force: true });
});

/** Probes, a command, a purge, a chart, /metrics with and without the token, a clean SIGTERM. */
async function exercise(world: World, bot: Bot, metricsPort: number): Promise<void> {
  expect((await fetch(`${bot.url}/livez`)).status).toBe(200);
  const ready = await fetch(`${bot.url}/readyz`);
  expect(await ready.json()).toMatchObject({ ready: true, database: 'ok' });

  expect((await bot.command('help', MEMBER)).status).toBe(200);
  await world.slack.waitForMessages((m) => m.via === 'response_url');
  expect((await bot.command('purge example.com https://example.com/a.css', MEMBER)).status).toBe(
    200,
  );
  await world.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
  expect(world.sandbox.requests.filter((r) => r.path.endsWith('/purge'))).toHaveLength(1);
  // A chart: canvas, cairo, pango and the bundled font at work in a chart worker, shared as a PNG.
  expect((await bot.command('analytics example.com 24h', MEMBER)).status).toBe(200);
  await world.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal');
  const [chart] = [...world.slack.files.values()];
  expect(chart?.bytes.subarray(0, 8)).toEqual(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'));

  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  expect((await fetch(metricsUrl)).status).toBe(401);
  const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(scraped.status).toBe(200);
  const families = parseExposition(await scraped.text());
  expect(sumOf(families, 'cdn_chatops_commands_total', { subcommand: 'purge' })).toBe(1);
  expect(sumOf(families, 'cdn_chatops_purge_urls_total')).toBe(1);
  expect(sumOf(families, 'cdn_chatops_db_pool_connections')).toBeGreaterThan(0);
  expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
  // The health probes stay on PORT; /metrics is on its own port only.
  expect((await fetch(`${bot.url}/metrics`)).status).toBe(404);

  const exit = await bot.kill('SIGTERM');
  expect(exit).toEqual({ code: 0, signal: null });
}

describe('the production install (npm ci --omit=dev)', () => {
  it('holds the runtime dependencies and none of the development ones', async () => {
    const installed = async (name: string) =>
      (await stat(join(root, 'node_modules', name, 'package.json')).catch(() => undefined)) !==
      undefined;
    for (const name of RUNTIME) expect(await installed(name), name).toBe(true);
    for (const name of DEV_ONLY) expect(await installed(name), name).toBe(false);
    // Each native module came the way asked for: compiled here (node-gyp leaves its objects), or
    // the prebuilt binary taken whole (a failed one would have been compiled, slowly, in silence).
    for (const { name } of NATIVE) {
      const objects = join(root, 'node_modules', name, 'build', 'Release', 'obj.target');
      expect((await stat(objects).catch(() => undefined)) !== undefined, name).toBe(FROM_SOURCE);
    }
  });

  it('starts from dist/ in HTTP mode and serves a command, a purge and /metrics', async () => {
    const main = join(root, 'dist', 'main.js');
    const world = await startWorld({
      backend: 'postgres',
      env: { NODE_ENV: 'production' },
      launch: () => ({ command: process.execPath, args: [main] }),
    });
    const metricsPort = await freePort();
    const bot = await world.spawnBot({ METRICS_PORT: String(metricsPort), METRICS_TOKEN: TOKEN });
    await exercise(world, bot, metricsPort);
  }, 120_000);
});

/** A container engine that answers (`docker info`), if there is one. */
function containerEngine(): string | undefined {
  for (const engine of ['docker', 'podman']) {
    const probe = spawnSync(engine, ['info'], { stdio: 'ignore', timeout: 15_000 });
    if (probe.status === 0) return engine;
  }
  return undefined;
}

const engine = containerEngine();
if (!engine) {
  process.stderr.write(
    '\n[production install] no container engine answers (docker info, podman info): the image ' +
      'build and its smoke test are skipped.\n',
  );
}

describe.skipIf(!engine)('the container image', () => {
  const image = `cdn-chatops:smoke-${process.pid}`;
  const name = `cdn-chatops-smoke-${process.pid}`;

  afterAll(() => {
    if (!engine) return;
    spawnSync(engine, ['rm', '-f', name], { stdio: 'ignore' });
    spawnSync(engine, ['image', 'rm', '-f', image], { stdio: 'ignore' });
  });

  it(
    'builds, and serves the same as the install above',
    async () => {
      const cli = engine ?? 'docker';
      // The host's network for the build's apt-get and npm ci, as for the container below.
      const build = await runToEnd(cli, ['build', '--network', 'host', '--tag', image, '.']);
      expect(build.code, build.output).toBe(0);
      const size = spawnSync(cli, ['image', 'inspect', '--format', '{{.Size}}', image], {
        encoding: 'utf8',
      }).stdout.trim();
      process.stderr.write(
        `\n[production install] image ${image}: ${(Number(size) / 1e6).toFixed(0)} MB\n`,
      );
      // The host's loopback (fake Slack, sandbox, PostgreSQL) is the container's: --network host.
      const world = await startWorld({
        backend: 'postgres',
        env: { NODE_ENV: 'production' },
        launch: (env) => ({
          command: cli,
          args: [
            'run',
            '--rm',
            '--name',
            name,
            '--network',
            'host',
            // Each variable by name: its value is taken from this command's environment.
            ...Object.keys(env)
              .filter((key) => key !== 'PATH')
              .flatMap((key) => ['--env', key]),
            image,
          ],
        }),
      });
      const metricsPort = await freePort();
      const bot = await world.spawnBot({
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN: TOKEN,
      });
      await exercise(world, bot, metricsPort);
    },
    INSTALL_TIMEOUT_MS,
  );
});
