// Stopping the app with work in flight: a purge job with its batches held in the CDN, and the zone
// index tick held in its CDN listing. The real app (buildApp, its background work) over a real
// SQLite store, the fake Slack and the sandbox CDN over HTTP; the store is watched for any call
// made once it has begun to close. A second app on the same file then finishes the purge.
import { afterEach, describe, expect, it } from 'vitest';
import { CdnTransport } from '../../src/cdn/transport.js';
import type { AppDeps } from '../../src/deps.js';
import { startFakeSlack } from '../../src/dev/fake-slack/server.js';
import { type RecordedRequest, startSandbox } from '../../src/dev/sandbox/server.js';
import type { Caller } from '../../src/services/access/access.js';
import { PURGE_JOB } from '../../src/services/purge/purge-job.js';
import { openStore, type Store } from '../../src/store/index.js';
import { buildTestApp, testConfig } from '../helpers/app.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { testStore } from '../helpers/store.js';
import { deferred } from './observed-jobs.js';

const CDN_KEY = 'sk_stop_in_flight_2b7e';
const WORKSPACE = 'T1';
const CHANNEL = 'COPS';
const USER = 'UADMIN';
const CALLER: Caller = {
  workspaceId: WORKSPACE,
  userId: USER,
  directory: {
    user: async () => ({ isAdmin: true, timeZone: 'UTC' }),
    groupMembers: async () => [],
    inConversation: async () => true,
  },
};
/** 150 URLs: five batches of 30, four sent at once. */
const URLS = Array.from({ length: 150 }, (_, i) => `https://example.com/asset-${i}.css`);

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type Holds = Record<string, { until: Promise<unknown>; onHeld: () => void }>;

/**
 * The store as the app sees it, and every call made on it once its close has begun. A call named
 * in `holds` ("zoneIndex.replace") waits for its promise before it is made.
 */
function watched(store: Store, holds: Holds = {}): { store: Store; late: string[] } {
  const late: string[] = [];
  let closing = false;
  const guard = <T extends object>(name: string, target: T): T =>
    new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        const call = `${name}.${String(property)}`;
        // One account's zone index, made at once: its calls are watched as the index's own.
        if (name === 'zoneIndex' && property === 'forAccount')
          return (...args: unknown[]) => guard(name, value.apply(object, args));
        return async (...args: unknown[]) => {
          const hold = holds[call];
          if (hold) {
            hold.onHeld();
            await hold.until;
          }
          if (closing) late.push(call);
          return value.apply(object, args);
        };
      },
    });
  const entries = Object.entries(store).map(([name, value]) =>
    name === 'close' ||
    name === 'keyring' ||
    name === 'db' ||
    typeof value !== 'object' ||
    value === null
      ? [name, value]
      : [name, guard(name, value)],
  );
  return {
    late,
    store: {
      ...(Object.fromEntries(entries) as unknown as Store),
      close: async () => {
        closing = true;
        await store.close();
      },
    },
  };
}

const isPurge = (request: RecordedRequest) =>
  request.method === 'POST' && request.path.endsWith('/purge');
const isZoneList = (request: RecordedRequest) =>
  request.method === 'GET' && request.path === '/zones';

describe('stopping the app with work in flight', () => {
  it('waits for the purge batches and the tick under way, writes nothing once the store closes, and runs nothing twice', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const logs = captureLogs('info');
    const slack = await startFakeSlack({ clock });
    slack.addUser({ id: USER, name: 'alice', isAdmin: true });
    slack.addChannel({ id: CHANNEL, name: 'ops', botMember: true });
    const sandbox = await startSandbox({ apiKeys: [CDN_KEY], clock });
    const transport = new CdnTransport();
    closers.push(
      () => sandbox.close(),
      () => slack.close(),
      () => transport.close(),
    );
    const { store: first, database, keyring } = await testStore('sqlite', { clock });
    const config = testConfig(slack, sandbox, {
      BOT_MODE: 'http',
      SLACK_SIGNING_SECRET: 'stop-in-flight-signing-secret',
    });
    const boot = async (store: Store): Promise<AppDeps> => {
      const { app, deps } = buildTestApp(config, { store, transport, clock, logger: logs.logger });
      await app.init();
      return deps;
    };

    // The first app: a key, its zone index built, then a purge of five batches is stored.
    const releaseCdn = deferred();
    const releaseIndex = deferred();
    let held = 0;
    const allHeld = deferred();
    const onHeld = () => {
      if (++held === 5) allHeld.resolve();
    };
    const holds: Holds = {};
    const one = watched(first, holds);
    const deps = await boot(one.store);
    await first.credentials.set(WORKSPACE, CDN_KEY, { userId: USER, validated: true });
    const plan = await deps.purges.plan(CALLER, CHANNEL, {
      kind: 'items',
      zone: 'example.com',
      urls: URLS,
      tags: [],
      unknown: [],
    });
    // The index is stale by the time the background starts: its tick lists the zones again.
    clock.advance(config.zoneIndex.refreshMs + 1);
    const listedBefore = sandbox.requests.filter(isZoneList).length;
    holds['zoneIndex.replace'] = { until: releaseIndex.promise, onHeld };
    sandbox.inject({
      kind: 'hold',
      method: 'POST',
      path: /\/purge$/,
      times: 4,
      until: releaseCdn.promise,
      onHeld,
    });
    await deps.purges.start(plan, {
      userId: USER,
      channelId: CHANNEL,
      issuedAt: clock.now(),
      visibility: 'in_channel',
    });
    deps.background.start();
    // Four batches in the CDN, and the zone index tick about to write what it listed.
    await allHeld.promise;

    let stopped = false;
    const stopping = deps.background.stop(10_000).then(() => {
      stopped = true;
    });
    releaseCdn.resolve();
    // The batches end and the job pauses; the stop still waits for the tick's round.
    await deps.runner.stop(10_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    releaseIndex.resolve();
    await stopping;
    await one.store.close();
    // Were anything still running, a few turns of the loop and a later interval would show it.
    clock.advance(config.zoneIndex.refreshMs + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(one.late).toEqual([]);
    // Nothing failed on the way: no error logged (a write to a closed store would be).
    expect(logs.lines.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
    expect(logs.text()).toContain('zone index refreshed');

    // The job paused at a step boundary: four batches done, one left, queued for any process.
    const again = await openStore({ database, keyring, clock });
    closers.push(() => again.close());
    const [job] = await again.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', PURGE_JOB)
      .execute();
    // A pause for a stop is not a failed attempt.
    expect(job).toMatchObject({ state: 'queued', lease_owner: null, attempts: 0 });
    const steps = await again.jobs.steps(job?.id ?? '');
    expect(steps.filter((step) => step.result !== undefined)).toHaveLength(4);
    expect(sandbox.requests.filter(isPurge)).toHaveLength(4);
    // The tick listed once, and started no round after the stop.
    expect(sandbox.requests.filter(isZoneList)).toHaveLength(listedBefore + 1);

    // A second app finishes the purge: the last batch only, each URL sent once in all.
    const two = watched(again);
    const next = await boot(two.store);
    next.background.start();
    closers.push(() => next.background.stop(1_000));
    await next.runner.settled();
    const purged = sandbox.requests
      .filter(isPurge)
      .flatMap((request) => (request.body as { files?: string[] }).files ?? []);
    expect(purged).toHaveLength(URLS.length);
    expect(new Set(purged)).toEqual(new Set(URLS));
    const [done] = await again.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', PURGE_JOB)
      .execute();
    expect(done).toMatchObject({ state: 'succeeded', attempts: 1 });
    // One record and one audit entry for the zone: the job's end ran once.
    expect(await again.db.selectFrom('purges').selectAll().execute()).toHaveLength(1);
    expect(await again.audit.recent(WORKSPACE)).toHaveLength(1);
  });
});
