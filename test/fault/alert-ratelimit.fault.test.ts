// "Turn rate limiting on" from an alert against real processes (bot-process.ts). The change is a
// job keyed by the alert, held with a lease by the click that runs it (JobRunner.runKeyed): two
// bots on one PostgreSQL database clicked at once change the CDN once; a bot killed -9 in the CDN
// call leaves the claim to the next click once its lease has expired, on SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { WATCH_IDS } from '../../src/blocks/ids.js';
import { alertMessage } from '../../src/blocks/watches.js';
import type { Message } from '../../src/dev/fake-slack/types.js';
import type { WatchAlert } from '../../src/store/watch-alerts.js';
import { DEFAULT_LIMITS } from '../../src/store/workspaces.js';
import { BACKENDS } from '../helpers/store.js';
import { ADMIN, CHANNEL, MEMBER, REPLICA_ENV, startWorld, type World } from './bot-process.js';
import { auditOf, TEST_TIMEOUT_MS, textOf, ZONE } from './flows.js';

const isSettings = (r: { path: string }) => r.path.endsWith('/settings');

/** A firing alert on example.com, stored; its message as the channel shows it (to click). */
async function firingAlert(world: World): Promise<Message> {
  const zoneId = world.sandbox.state.byName(ZONE)?.id ?? '';
  const alert: WatchAlert = {
    id: 'alert_fault0000000000000001',
    workspaceId: world.workspaceId,
    watchId: '',
    // Set below to the account the world logged in with.
    accountId: '',
    zoneId,
    zoneName: ZONE,
    channelId: CHANNEL,
    rule: 'spike',
    status: 'firing',
    startedAt: Date.now() - 60_000,
    resolvedAt: null,
    detail: { value: 900, bound: 100 },
    messageTs: null,
  };
  await world.inspect(async (store) => {
    alert.accountId = (await store.credentials.get(world.workspaceId))?.accountId ?? '';
    const { watch } = await store.watches.upsert(
      {
        workspaceId: world.workspaceId,
        accountId: alert.accountId,
        zoneId,
        zoneName: ZONE,
        channelId: CHANNEL,
        createdBy: ADMIN,
        rules: [],
      },
      // Not evaluated during the test.
      { status: 'active', firstRunAt: Date.now() + 3_600_000 },
      DEFAULT_LIMITS,
    );
    alert.watchId = watch.id;
    await store.watchAlerts.createAlert(alert);
  });
  const { blocks } = alertMessage(alert);
  return {
    channel: CHANNEL,
    ts: '1700000000.000100',
    via: 'api',
    deleted: false,
    history: [],
    blocks,
  };
}

/** The ephemeral "already" answers, and the rate-limit changes the audit log says were made. */
async function seen(world: World) {
  const already = world.slack.messages.filter(
    (m) => m.via === 'response_url' && /rate limiting/i.test(textOf(m)),
  );
  const made = (await auditOf(world)).filter(
    (e) => e.action === 'ratelimit.on' && e.outcome === 'ok',
  );
  return { already: already.map((m) => textOf(m)), made: made.map((e) => e.actorId) };
}

const KEY = 'alert-ratelimit:alert_fault0000000000000001';

const claimOf = (world: World) => world.inspect((store) => store.jobs.byKey(KEY));

/** Resolves once the change's job is finished (the CDN took it and the bot recorded so). */
const finished = (world: World) =>
  world.inspect(async (store) => {
    while ((await store.jobs.byKey(KEY))?.state !== 'succeeded')
      await new Promise((resolve) => setTimeout(resolve, 50));
  });

describe.each(BACKENDS)('alert rate limiting on $backend', ({ backend, skip }) => {
  it.skipIf(skip || backend !== 'postgres')(
    'two bots on one database, clicked at once: the CDN is changed once, the other told who',
    async () => {
      const world = await startWorld({ backend, env: REPLICA_ENV });
      const message = await firingAlert(world);
      const [a, b] = await Promise.all([world.spawnBot(), world.spawnBot()]);
      if (!a || !b) throw new Error('no bots');
      await Promise.all([
        a.click(message, WATCH_IDS.rateLimit, ADMIN),
        b.click(message, WATCH_IDS.rateLimit, MEMBER),
      ]);
      await world.slack.waitForMessages((m) => m.via === 'response_url');
      await finished(world);
      expect(world.sandbox.requests.filter(isSettings)).toHaveLength(1);
      const { already, made } = await seen(world);
      expect(made).toHaveLength(1);
      // The other click was told who has it: making it now, or made.
      expect(already).toEqual([expect.stringMatching(/rate limiting/i)]);
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(skip)(
    'kill -9 in the CDN call: the next click waits for the lease, then makes the change once',
    async () => {
      const world = await startWorld({ backend });
      const message = await firingAlert(world);
      // The CDN takes the change and never answers.
      world.sandbox.inject({ kind: 'hang', after: true, path: /\/settings$/ });
      const first = await world.spawnBot();
      await first.click(message, WATCH_IDS.rateLimit, ADMIN);
      await world.sandbox.waitFor(isSettings);
      const held = await claimOf(world);
      expect(held).toMatchObject({ state: 'running', checkpoint: { by: ADMIN } });
      await first.kill('SIGKILL');

      const next = await world.spawnBot();
      // The lease of the dead holder runs out (no heartbeat renews it): then the click takes it.
      const leaseUntil = Number((await claimOf(world))?.leaseUntil);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, leaseUntil - Date.now() + 50)),
      );
      await next.click(message, WATCH_IDS.rateLimit, MEMBER);
      await world.sandbox.waitFor(isSettings, 2);
      await finished(world);
      expect(await claimOf(world)).toMatchObject({
        state: 'succeeded',
        checkpoint: { by: MEMBER },
        attempts: 2,
      });
      // A click after it is done changes nothing and says who did it.
      await next.click(message, WATCH_IDS.rateLimit, ADMIN);
      await world.slack.waitForMessages((m) => m.via === 'response_url');
      expect(world.sandbox.requests.filter(isSettings)).toHaveLength(2);
      const { already, made } = await seen(world);
      expect(made).toEqual([MEMBER]);
      expect(already).toEqual([expect.stringContaining('already turned on')]);
    },
    TEST_TIMEOUT_MS,
  );
});
