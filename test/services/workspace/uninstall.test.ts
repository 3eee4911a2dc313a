// The uninstall, with the retention sweep, on both backends and an injected clock: the keys go at
// once; the workspace's settings, reports, watches, default zones and history stay through the
// grace period (its watches wait, as without a key), and go once it is over; a reinstall within the
// grace keeps them all, and logging in again brings the watches back.
import type { Installation } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { RetentionSweep } from '../../../src/jobs/retention.js';
import { UninstallService } from '../../../src/services/workspace/uninstall.js';
import type { ZoneService } from '../../../src/services/zones/zones.js';
import type { Store } from '../../../src/store/index.js';
import type { WatchedZone } from '../../../src/store/watches.js';
import { DEFAULT_LIMITS } from '../../../src/store/workspaces.js';
import { ManualClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { BACKENDS, testStore } from '../../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const GRACE = 30 * DAY;
const CDN_KEY = 'cdn-secret-key-1234567890';
const ZONE = { id: 'z1', name: 'example.com' };
const installation = {
  team: { id: 'T1', name: 'Fake' },
  enterprise: undefined,
  bot: { token: 'xoxb-secret', scopes: ['commands'], id: 'B1', userId: 'UBOT' },
  isEnterpriseInstall: false,
} as unknown as Installation;
const teamOnly = { teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false };

/** An installed workspace with a key, settings, a default zone, a report, a watch and history. */
async function workspace(store: Store, clock: ManualClock) {
  await store.installations.storeInstallation(installation);
  await store.credentials.set('T1', CDN_KEY, { userId: 'UADMIN', validated: true });
  const key = await store.credentials.get('T1');
  if (!key) throw new Error('no login key');
  // The zone is the login account's, as is everything made on it here.
  const { accountId } = key;
  await store.workspaces.update('T1', { limits: { watches: 7 } });
  await store.channelBindings.set('T1', 'C1', ZONE, key.generation, 'UADMIN', accountId);
  await store.channelBindings.setPurgeChannels('T1', ['C1'], 'UADMIN');
  await store.schedules.create(
    {
      workspaceId: 'T1',
      accountId,
      zoneId: ZONE.id,
      zoneName: ZONE.name,
      channelId: 'C1',
      createdBy: 'U1',
      timeOfDay: '09:00',
      timeZone: 'UTC',
      nextRunAt: T0 + DAY,
    },
    DEFAULT_LIMITS,
  );
  await store.watches.upsert(
    {
      workspaceId: 'T1',
      accountId,
      zoneId: ZONE.id,
      zoneName: ZONE.name,
      channelId: 'C1',
      createdBy: 'U1',
      rules: [],
    },
    { status: 'active', firstRunAt: clock.now() },
    DEFAULT_LIMITS,
  );
  await store.audit.record({
    workspaceId: 'T1',
    actorId: 'U1',
    action: 'purge.files',
    outcome: 'ok',
  });
}

async function what(store: Store) {
  return {
    workspace: (await store.workspaces.get('T1'))?.limits.watches,
    bindings: (
      await store.db
        .selectFrom('channel_bindings')
        .select('channel_id')
        .where('workspace_id', '=', 'T1')
        .execute()
    ).length,
    reports: (await store.schedules.listForWorkspace('T1')).map((s) => s.status),
    watches: (await store.watches.listForWorkspace('T1')).length,
    audit: (await store.audit.recent('T1', { limit: 50 })).map((e) => e.action),
  };
}

function setup(store: Store, clock: ManualClock) {
  const logger = captureLogs().logger;
  const zones = { forget: () => undefined } as unknown as ZoneService;
  return {
    uninstall: new UninstallService(store, zones, logger, GRACE),
    sweep: new RetentionSweep({
      store,
      clock,
      logger,
      jobsMs: 7 * DAY,
      auditMs: 365 * DAY,
      uninstalledMs: GRACE,
    }),
  };
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`an uninstall on ${backend}`, () => {
    it('deletes the keys at once, keeps the rest through the grace period, then deletes it all', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await workspace(store, clock);
      const { uninstall, sweep } = setup(store, clock);

      const summary = await uninstall.revoke(teamOnly, 'app_uninstalled');
      expect(summary).toMatchObject({
        keyDeleted: true,
        reportsWaiting: 1,
        watchesWaiting: 1,
        dataDeletedAfter: new Date(T0 + GRACE).toISOString(),
      });
      expect(await store.credentials.get('T1')).toBeUndefined();
      await expect(store.installations.fetchInstallation(teamOnly)).rejects.toThrow();
      // The watch waits as without a key: its zone is not due, and nothing is written to it.
      clock.advance(DAY);
      expect(await dueZoneIds(store)).toEqual([]);
      // tokens_revoked after app_uninstalled (Slack sends both): the deletion is not pushed back.
      expect((await uninstall.revoke(teamOnly, 'tokens_revoked')).dataDeletedAfter).toBe(
        summary.dataDeletedAfter,
      );

      clock.advance(GRACE - DAY - 1);
      await sweep.sweep();
      expect(await what(store)).toMatchObject({
        workspace: 7,
        bindings: 1,
        reports: ['active'],
        watches: 1,
        audit: ['tokens.revoked', 'app.uninstalled', 'purge.files'],
      });
      expect(await store.channelBindings.purgeChannels('T1')).toEqual(['C1']);

      clock.advance(2);
      expect((await sweep.sweep()).uninstalled).toBeGreaterThan(0);
      expect(await what(store)).toMatchObject({
        workspace: undefined,
        bindings: 0,
        reports: [],
        watches: 0,
        audit: [],
      });
      expect(await store.channelBindings.purgeChannels('T1')).toEqual([]);
      expect(await store.uninstalled.markedAt('T1')).toBeUndefined();
    });

    it('keeps everything of a workspace installed again within the grace period', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await workspace(store, clock);
      const { uninstall, sweep } = setup(store, clock);
      await uninstall.revoke(teamOnly, 'app_uninstalled');
      clock.advance(GRACE - DAY);
      await store.installations.storeInstallation(installation);
      clock.advance(2 * GRACE);
      await sweep.sweep();
      expect(await what(store)).toMatchObject({ workspace: 7, reports: ['active'], watches: 1 });
      // Logging in again (the key was deleted at once) brings the watch back.
      await store.credentials.set('T1', CDN_KEY, { userId: 'UADMIN', validated: true });
      expect(await dueZoneIds(store)).toEqual([ZONE.id]);
    });
  });
}

/** The zones the watch tick would take now (the take stores their jobs, as the tick does). */
async function dueZoneIds(store: Store): Promise<string[]> {
  const taken = await store.watches.takeDue(10, (zone: WatchedZone) => ({
    nextRunAt: zone.nextRunAt,
    job: {
      workspaceId: zone.workspaceId,
      kind: 'watch_eval',
      key: `watch:${zone.workspaceId}:${zone.accountId}:${zone.zoneId}:${zone.nextRunAt}`,
      payload: { accountId: zone.accountId, zoneId: zone.zoneId, dueAt: zone.nextRunAt },
    },
  }));
  return taken.map((t) => t.zone.zoneId);
}
