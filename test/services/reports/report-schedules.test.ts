import { describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../../src/config.js';
import { AppError } from '../../../src/errors.js';
import {
  AccessService,
  type Caller,
  type SlackDirectory,
} from '../../../src/services/access/access.js';
import { AccountScopes } from '../../../src/services/accounts/account-scope.js';
import { ReportScheduleService } from '../../../src/services/reports/report-schedules.js';
import type { ZoneIndex } from '../../../src/services/zones/zone-index.js';
import type { ZoneService } from '../../../src/services/zones/zones.js';
import { BACKENDS, type Backend, testDatabase, testStore } from '../../helpers/store.js';

const zone = { id: 'zone_1', name: 'example.com', status: 'active', createdAt: '2026-11-01' };
const BY = { userId: 'UADMIN', validated: true };

function directory(members: string[] = [], timeZone = 'Europe/Paris'): SlackDirectory {
  return {
    user: async () => ({ isAdmin: false, timeZone }),
    groupMembers: async () => members,
    inConversation: async () => true,
  };
}

async function setup(backend: Backend = 'sqlite', database?: DatabaseConfig, idPrefix = '') {
  const { store, clock } = await testStore(backend, {
    ...(database ? { database } : {}),
    idPrefix,
  });
  // T1's one CDN account (the login account), in which the zone is found.
  await store.credentials.set('T1', 'sk_reports', BY);
  const zones = {
    resolve: async (_ws: string, _name: string, accountId: string) => ({ ...zone, accountId }),
  } as unknown as ZoneService;
  const access = new AccessService(store.workspaces);
  // One account: a zone is looked for in it alone (ZoneService.resolve), never in the indexes.
  const index = {} as ZoneIndex;
  const accountScopes = new AccountScopes({ store, zones, index, access });
  const service = new ReportScheduleService({ ...store, access, zones, accountScopes, clock });
  const caller = (userId: string, workspaceId = 'T1', members?: string[]): Caller => ({
    workspaceId,
    userId,
    directory: directory(members),
  });
  return { store, service, caller };
}

const problemOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.problem;
};

describe('ReportScheduleService', () => {
  it('creates in the caller’s time zone at the next occurrence, and audits it', async () => {
    const { store, service, caller } = await setup();
    const { schedule, created } = await service.create(caller('U1'), {
      zone: 'example.com',
      channelId: 'C1',
      timeOfDay: '09:00',
    });
    expect(created).toBe(true);
    // InstantClock starts at 2026-11-22 12:00 UTC, 13:00 in Paris: tomorrow at 09:00 Paris.
    expect(schedule).toMatchObject({
      zoneId: 'zone_1',
      accountId: (await store.credentials.get('T1'))?.accountId,
      timeZone: 'Europe/Paris',
      nextRunAt: Date.parse('2026-11-23T08:00:00Z'),
    });
    const [entry] = await store.audit.recent('T1', { limit: 1 });
    expect(entry).toMatchObject({ action: 'report.scheduled', actorId: 'U1' });
  });

  it('stops by an id prefix of four characters or more, once, in its own workspace only', async () => {
    const { store, service, caller } = await setup();
    const input = { zone: 'example.com', channelId: 'C1', timeOfDay: '09:00' };
    const { schedule: first } = await service.create(caller('U1'), input);
    await service.create(caller('U1'), { ...input, timeOfDay: '10:00' });
    // Ids are id-1, id-2 here: "id-" is too short and would name both anyway.
    expect(await problemOf(service.stopByPrefix(caller('U1'), 'id-'))).toEqual({
      code: 'report_not_found',
      prefix: 'id-',
    });
    expect(await problemOf(service.stopByPrefix(caller('U1', 'T2'), first.id))).toMatchObject({
      code: 'report_not_found',
    });
    expect((await service.stopByPrefix(caller('U2'), first.id)).id).toBe(first.id);
    // The App Home's button reaches the same stop: a second stop is refused, not repeated.
    expect(await problemOf(service.stop(caller('U2'), first.id))).toEqual({
      code: 'report_already_stopped',
    });
    const stops = (await store.audit.recent('T1', { limit: 10 })).filter(
      (e) => e.action === 'report.stopped',
    );
    expect(stops).toHaveLength(1);
  });

  it('is for operators only once an operators group is set', async () => {
    const { store, service, caller } = await setup();
    await store.workspaces.ensure('T1');
    await store.workspaces.update('T1', { operatorGroupId: 'S1' });
    expect(await problemOf(service.list(caller('U1', 'T1', ['U2'])))).toEqual({
      code: 'not_operator',
      action: 'manage_reports',
    });
    expect(await service.list(caller('U2', 'T1', ['U2']))).toEqual({
      schedules: [],
      hidden: 0,
      keySet: true,
    });
  });
});

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`ReportScheduleService on ${backend}`, () => {
    it('makes one report of two identical creates at once, and says the other exists', async () => {
      const database = await testDatabase(backend);
      // Two replicas on PostgreSQL; SQLite is one process's, so one store serves both.
      const first = await setup(backend, database, 'a-');
      const second = backend === 'postgres' ? await setup(backend, database, 'b-') : first;
      const input = { zone: 'example.com', channelId: 'C1', timeOfDay: '09:00' };
      const results = await Promise.all([
        first.service.create(first.caller('U1'), input),
        second.service.create(second.caller('U2'), input),
      ]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      expect(results[0]?.schedule.id).toBe(results[1]?.schedule.id);
      const rows = await first.store.db.selectFrom('schedules').select('id').execute();
      expect(rows).toHaveLength(1);
      const audited = (await first.store.audit.recent('T1', { limit: 10 })).filter(
        (e) => e.action === 'report.scheduled',
      );
      expect(audited).toHaveLength(1);
      // Stopped, the same report may be scheduled again.
      await first.service.stop(first.caller('U1'), results[0]?.schedule.id ?? '');
      expect((await first.service.create(first.caller('U1'), input)).created).toBe(true);
    });
  });
}
