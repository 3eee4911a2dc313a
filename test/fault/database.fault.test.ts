// The bot against a misbehaving database, as a real child process: PostgreSQL terminating its
// connections (what a failover or a connection-proxy restart does), a partition that black-holes
// them and later heals, an address that accepts TCP and never answers at start, and a second
// process on an embedded SQLite file. What is checked is what a user or an orchestrator sees: the
// answers to commands (and how soon), /readyz and /livez, the exit code and its one line.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { BACKENDS, POSTGRES_URL } from '../helpers/store.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { type Bot, CHANNEL, MEMBER, startWorld, type World } from './bot-process.js';
import { TEST_TIMEOUT_MS, textOf, within } from './flows.js';

const postgres = BACKENDS.find((b) => b.backend === 'postgres');
const skipPostgres = postgres?.skip ?? true;
const UNAVAILABLE = 'My storage is unavailable right now';

/** The answers the bot gave through response_urls in the channel, oldest first. */
const answers = (world: World) =>
  world.slack.messages.filter((m) => m.via === 'response_url' && m.channel === CHANNEL);

/** Runs `/cdn zones`; resolves with its answer and how long it took to arrive. */
async function zones(world: World, bot: Bot): Promise<{ text: string; ms: number }> {
  const before = answers(world).length;
  const started = performance.now();
  const acked = await bot.command('zones', MEMBER);
  expect(acked.status).toBe(200);
  const messages: Message[] = await world.slack.waitForMessages(
    (m) => m.via === 'response_url' && m.channel === CHANNEL,
    before + 1,
  );
  return { text: textOf(messages[before]), ms: performance.now() - started };
}

/** GET a health endpoint: its status and how long it took. */
async function probe(bot: Bot, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${bot.url}${path}`, { signal: AbortSignal.timeout(5_000) });
  await response.body?.cancel();
  return { status: response.status, ms: performance.now() - started };
}

/** Polls /readyz until it says `status` (each probe answers within its own 2 s). */
async function readyzBecomes(bot: Bot, status: number): Promise<void> {
  for (;;) {
    if ((await probe(bot, '/readyz')).status === status) return;
  }
}

/** The world's database, behind a proxy the test can partition. */
async function behindProxy(world: World): Promise<{ proxy: TcpProxy; url: string }> {
  const direct = new URL(world.databaseUrl);
  const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
  const url = new URL(world.databaseUrl);
  url.host = `127.0.0.1:${proxy.port}`;
  return { proxy, url: url.toString() };
}

describe('the database goes away and comes back (postgres)', () => {
  it.skipIf(skipPostgres)(
    'pg_terminate_backend on every connection in the middle of traffic: no exit, the next command works',
    async () => {
      const world = await startWorld({ backend: 'postgres' });
      const bot = await world.spawnBot();
      expect((await zones(world, bot)).text).toContain('example.com');
      const database = new URL(world.databaseUrl).pathname.slice(1);
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        // Traffic under way (commands and the job runner's polling) while every connection goes.
        const traffic = Promise.all([zones(world, bot), zones(world, bot), zones(world, bot)]);
        const { rows } = await admin.query<{ pid: number }>(
          'select pg_terminate_backend(pid) as pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [database],
        );
        expect(rows.length).toBeGreaterThan(0);
        // Each command was answered: its zones, or "unavailable" if its connection went under it.
        for (const answer of await traffic)
          expect(answer.text).toMatch(new RegExp(`example\\.com|${UNAVAILABLE}`));
      } finally {
        await admin.end();
      }
      await within(15_000, '/readyz back to 200', readyzBecomes(bot, 200));
      // The pool opened new connections: the next command is answered as usual.
      const next = await zones(world, bot);
      expect(next.text).toContain('example.com');
      expect(bot.running).toBe(true);
      expect((await probe(bot, '/readyz')).status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(skipPostgres)(
    'a partition: "unavailable" within 3 s, /readyz not ready and /livez fast throughout, then it works again without a restart',
    async () => {
      const world = await startWorld({ backend: 'postgres' });
      const { proxy, url } = await behindProxy(world);
      try {
        const bot = await world.spawnBot({ DATABASE_URL: url });
        expect((await zones(world, bot)).text).toContain('example.com');
        expect((await probe(bot, '/readyz')).status).toBe(200);

        proxy.blackhole();
        const during = await zones(world, bot);
        expect(during.text).toContain(UNAVAILABLE);
        expect(during.ms).toBeLessThan(3_000);
        const notReady = await probe(bot, '/readyz');
        expect(notReady.status).toBe(503);
        expect(notReady.ms).toBeLessThan(2_000);
        // Another command while it lasts: still answered, still in time.
        const again = await zones(world, bot);
        expect(again.text).toContain(UNAVAILABLE);
        expect(again.ms).toBeLessThan(3_000);
        const livez = await Promise.all([1, 2, 3].map(() => probe(bot, '/livez')));
        for (const live of livez) {
          expect(live.status).toBe(200);
          // The bound for every health answer, whatever the database does.
          expect(live.ms).toBeLessThan(2_000);
        }

        proxy.heal();
        await within(15_000, '/readyz back to 200', readyzBecomes(bot, 200));
        const after = await zones(world, bot);
        expect(after.text).toContain('example.com');
        expect(bot.running).toBe(true);
      } finally {
        await proxy.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(skipPostgres)(
    'an address that accepts TCP and never answers: a non-zero exit naming it, within the bound',
    async () => {
      const world = await startWorld({ backend: 'postgres' });
      const { proxy } = await behindProxy(world);
      proxy.blackhole();
      try {
        const started = performance.now();
        const bot = await world.launchBot({
          DATABASE_URL: `postgres://postgres:sekret-pw@127.0.0.1:${proxy.port}/nowhere`,
          DATABASE_START_TIMEOUT_MS: '3000',
          DATABASE_CONNECT_TIMEOUT_MS: '500',
        });
        const exit = await within(20_000, 'the bot to give up', bot.exited);
        const elapsed = performance.now() - started;
        expect(exit.code).toBe(1);
        const output = bot.output();
        expect(output).toContain(
          `cdn-chatops: Cannot reach the PostgreSQL database nowhere at 127.0.0.1:${proxy.port}: timed out after 0.5 s (tried `,
        );
        expect(output.match(/database not reachable yet; trying again/g)?.length).toBeGreaterThan(
          1,
        );
        expect(output).not.toContain('sekret-pw');
        // The bound (3 s) and one connect attempt (0.5 s), plus the process's own start.
        expect(elapsed).toBeLessThan(3_000 + 500 + 10_000);
      } finally {
        await proxy.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('the embedded SQLite database serves one process', () => {
  it(
    'a second process on the same file is refused at start; after the first dies, a new one starts',
    async () => {
      const world = await startWorld({ backend: 'sqlite' });
      const first = await world.spawnBot();
      const second = await world.launchBot();
      const exit = await within(20_000, 'the second bot to stop', second.exited);
      expect(exit.code).toBe(1);
      expect(second.output()).toContain('another process is using');
      expect(second.output()).toContain('use PostgreSQL');
      // The first one is untouched.
      expect((await probe(first, '/readyz')).status).toBe(200);
      // The lock goes with its process, however it ends: nothing stale is left behind.
      await first.kill('SIGKILL');
      const third = await world.spawnBot();
      expect((await zones(world, third)).text).toContain('example.com');
    },
    TEST_TIMEOUT_MS,
  );
});
