// Issue 32, item 2: what one member can store is bounded. Rules per watch, watches and daily
// reports per workspace and per person stop at documented defaults, an admin can raise them, and
// two creates at once at a limit never both get in (on SQLite and on PostgreSQL replicas).
import { describe, expect, it } from 'vitest';
import { problemText } from '../../src/blocks/problems.js';
import type { DatabaseConfig, WatchSettings } from '../../src/config.js';
import { AppError, type Problem } from '../../src/errors.js';
import { AccessService, type Caller } from '../../src/services/access/access.js';
import { AccountScopes } from '../../src/services/accounts/account-scope.js';
import { ReportScheduleService } from '../../src/services/reports/report-schedules.js';
import { WatchService } from '../../src/services/watches/watches.js';
import { WorkspaceConfigService } from '../../src/services/workspace/workspace-config.js';
import type { ZoneIndex } from '../../src/services/zones/zone-index.js';
import type { ZoneService } from '../../src/services/zones/zones.js';
import { DEFAULT_LIMITS } from '../../src/store/workspaces.js';
import { BACKENDS, type Backend, testDatabase, testStore } from '../helpers/store.js';

async function setup(backend: Backend = 'sqlite', database?: DatabaseConfig, idPrefix = '') {
  const { store, clock } = await testStore(backend, {
    ...(database ? { database } : {}),
    idPrefix,
  });
  // The workspace's one account, and every name a zone of its own in it.
  await store.credentials.set('T1', 'sk_test', { userId: 'UA', validated: true });
  const zones = {
    resolve: async (_workspaceId: string, name: string, accountId: string) => ({
      id: name,
      name,
      status: 'active',
      createdAt: '2026-01-01T00:00:00Z',
      accountId,
    }),
  } as unknown as ZoneService;
  const access = new AccessService(store.workspaces);
  // One account: no index is read to tell accounts apart.
  const accountScopes = new AccountScopes({ store, zones, index: {} as ZoneIndex, access });
  const watches = new WatchService({
    ...store,
    access,
    zones,
    accountScopes,
    ratelimit: {} as never,
    followUps: {} as never,
    runner: {} as never,
    clock,
    settings: { intervalMs: 60_000 } as WatchSettings,
  });
  const reports = new ReportScheduleService({ ...store, access, zones, accountScopes, clock });
  const config = new WorkspaceConfigService({ ...store, access, defaultBaseUrl: 'https://cdn' });
  const caller = (userId: string, isAdmin = false): Caller => ({
    workspaceId: 'T1',
    userId,
    directory: {
      user: async () => ({ isAdmin, timeZone: 'UTC' }),
      groupMembers: async () => [],
      inConversation: async () => true,
    },
  });
  return { store, watches, reports, config, caller };
}

const problemOf = async (promise: Promise<unknown>): Promise<Problem> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.problem;
};

const rules = (n: number) => Array.from({ length: n }, (_, i) => `requests>${i + 1}k/5m`);

describe('what one member can store', () => {
  it('documents its defaults', () => {
    expect(DEFAULT_LIMITS).toEqual({
      rulesPerWatch: 10,
      watches: 200,
      watchesPerPerson: 50,
      reports: 100,
      reportsPerPerson: 20,
    });
  });

  it('refuses an 11th rule on one watch, in one command or over several, and stores none', async () => {
    const { store, watches, caller } = await setup();
    const input = { zone: 'example.com', channelId: 'C1' };
    const problem = await problemOf(
      watches.watch(caller('U1'), { ...input, thresholds: rules(11) }),
    );
    expect(problem).toEqual({ code: 'limit_reached', limit: 'rulesPerWatch', max: 10, count: 11 });
    expect(await store.watches.listForWorkspace('T1')).toEqual([]);
    await watches.watch(caller('U1'), { ...input, thresholds: rules(10) });
    expect(
      await problemOf(watches.watch(caller('U1'), { ...input, thresholds: ['bw>2g/1h'] })),
    ).toMatchObject({ limit: 'rulesPerWatch', count: 11 });
    const [watch] = await store.watches.listForWorkspace('T1');
    expect(watch?.rules).toHaveLength(10);
    // Watching again as it is (a rule it has) is no new rule.
    await watches.watch(caller('U1'), { ...input, thresholds: [rules(1)[0] as string] });
    expect(problemText(problem).text).toBe(
      'A watch may have at most 10 thresholds, and this one would have 11; nothing was changed. A workspace admin can raise the limit with `/cdn config limits rules-per-watch &lt;number&gt;`.',
    );
  });

  it('refuses the (N+1)-th watch per person and per workspace, until an admin raises the limit', async () => {
    const { store, watches, config, caller } = await setup();
    const admin = caller('UA', true);
    await config.setLimit(admin, 'watchesPerPerson', 2);
    await config.setLimit(admin, 'watches', 3);
    const watch = (user: string, zone: string) =>
      watches.watch(caller(user), { zone, channelId: 'C1' });
    await watch('U1', 'a.com');
    await watch('U1', 'b.com');
    const perPerson = await problemOf(watch('U1', 'c.com'));
    expect(perPerson).toEqual({
      code: 'limit_reached',
      limit: 'watchesPerPerson',
      max: 2,
      count: 2,
    });
    expect(problemText(perPerson).text).toContain(
      'You made 2 watches, the most one person may (2)',
    );
    expect(problemText(perPerson).text).toContain('/cdn config limits watches-per-person');
    // Another person may, up to the workspace's limit.
    await watch('U2', 'c.com');
    expect(await problemOf(watch('U2', 'd.com'))).toEqual({
      code: 'limit_reached',
      limit: 'watches',
      max: 3,
      count: 3,
    });
    // A refused watch leaves no zone schedule behind.
    const account = (await store.credentials.get('T1'))?.accountId ?? '';
    expect(await store.watches.listForWorkspace('T1')).toMatchObject([
      { accountId: account },
      { accountId: account },
      { accountId: account },
    ]);
    expect(await store.watches.zone('T1', 'd.com', account)).toBeUndefined();
    // Only an admin raises it; then it succeeds.
    expect(await problemOf(config.setLimit(caller('U2'), 'watches', 4))).toMatchObject({
      code: 'not_admin',
    });
    await config.setLimit(admin, 'watches', 4);
    expect((await watch('U2', 'd.com')).created).toBe(true);
    expect(await store.watches.listForWorkspace('T1')).toHaveLength(4);
    // The audit says who changed a limit.
    const changes = (await store.audit.recent('T1', { limit: 50 })).filter(
      (e) => e.action === 'config.limits',
    );
    expect(changes.map((e) => [e.actorId, e.detail])).toContainEqual([
      'UA',
      { limit: 'watches', value: 4 },
    ]);
  });

  it('refuses the (N+1)-th report per person and per workspace; an identical one is no new one', async () => {
    const { store, reports, config, caller } = await setup();
    const admin = caller('UA', true);
    const report = (user: string, channelId: string) =>
      reports.create(caller(user), { zone: 'example.com', channelId, timeOfDay: '09:00' });
    for (let i = 0; i < DEFAULT_LIMITS.reportsPerPerson; i++) await report('U1', `C${i}`);
    expect(await problemOf(report('U1', 'C-next'))).toEqual({
      code: 'limit_reached',
      limit: 'reportsPerPerson',
      max: 20,
      count: 20,
    });
    // The same report again is not stored again, limit or not.
    expect((await report('U1', 'C0')).created).toBe(false);
    await config.setLimit(admin, 'reports', 21);
    await report('U2', 'C-U2');
    const workspace = await problemOf(report('U3', 'C-U3'));
    expect(workspace).toEqual({ code: 'limit_reached', limit: 'reports', max: 21, count: 21 });
    expect(problemText(workspace).text).toBe(
      'This workspace has 21 daily reports, its limit (21); nothing was made. Stop one with `/cdn report stop &lt;id&gt;`, or ask a workspace admin to raise it with `/cdn config limits reports &lt;number&gt;`.',
    );
    // A stopped report makes room.
    const [first] = await store.schedules.listForWorkspace('T1');
    await reports.stop(caller('U1'), first?.id as string);
    expect((await report('U3', 'C-U3')).created).toBe(true);
    await config.setLimit(admin, 'reportsPerPerson', 21);
    await config.setLimit(admin, 'reports', 22);
    expect((await report('U1', 'C-next')).created).toBe(true);
    expect(await store.schedules.listForWorkspace('T1')).toHaveLength(22);
  });

  it('keeps every limit a bound: an admin sets a whole number up to its ceiling', async () => {
    const { config, caller } = await setup();
    const admin = caller('UA', true);
    expect(await problemOf(config.setLimit(admin, 'rulesPerWatch', 101))).toEqual({
      code: 'limit_out_of_range',
      limit: 'rulesPerWatch',
      ceiling: 100,
    });
    expect(await problemOf(config.setLimit(admin, 'reports', -1))).toMatchObject({
      code: 'limit_out_of_range',
    });
    expect((await config.setLimit(admin, 'rulesPerWatch', 100)).limits.rulesPerWatch).toBe(100);
  });
});

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`limits under concurrency on ${backend}`, () => {
    // Two replicas on PostgreSQL; SQLite is one process's, so one store serves both.
    async function replicas() {
      const database = await testDatabase(backend);
      const first = await setup(backend, database, 'a-');
      const second = backend === 'postgres' ? await setup(backend, database, 'b-') : first;
      return [first, second] as const;
    }

    it('creates at once at the limit make exactly the limit of watches and of reports', async () => {
      const [first, second] = await replicas();
      const admin = first.caller('UA', true);
      await first.config.setLimit(admin, 'watches', 5);
      await first.config.setLimit(admin, 'reportsPerPerson', 4);
      const outcomes = (results: PromiseSettledResult<unknown>[]) => {
        const refused = results.filter(
          (r) =>
            r.status === 'rejected' &&
            r.reason instanceof AppError &&
            r.reason.code === 'limit_reached',
        );
        const made = results.filter((r) => r.status === 'fulfilled');
        return { made: made.length, refused: refused.length };
      };
      const watched = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => {
          const replica = i % 2 === 0 ? first : second;
          return replica.watches.watch(replica.caller(`U${i}`), {
            zone: `z${i}.com`,
            channelId: 'C1',
          });
        }),
      );
      expect(outcomes(watched)).toEqual({ made: 5, refused: 7 });
      expect(await first.store.watches.listForWorkspace('T1')).toHaveLength(5);
      const reported = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => {
          const replica = i % 2 === 0 ? first : second;
          return replica.reports.create(replica.caller('U1'), {
            zone: 'example.com',
            channelId: `C${i}`,
            timeOfDay: '09:00',
          });
        }),
      );
      expect(outcomes(reported)).toEqual({ made: 4, refused: 8 });
      expect(await first.store.schedules.listForWorkspace('T1')).toHaveLength(4);
    });
  });
}
