// /cdn audit's search: filters (zone, person, token, kind, dates in the viewer's time zone),
// keyset pages both ways, and the access rules, over the fake Slack's users.info and a real store
// (SQLite and PostgreSQL). And the export's CSV writer reading the store in batches.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { auditKindOf } from '../../../src/audit-kinds.js';
import { parseAuditQuery } from '../../../src/commands/audit-query.js';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { AppError } from '../../../src/errors.js';
import { AccessService, type Caller } from '../../../src/services/access/access.js';
import { ActivityService, type AuditQuery } from '../../../src/services/audit/activity.js';
import { AuditExportService } from '../../../src/services/audit/audit-export.js';
import { GroupMembersCache, webDirectory } from '../../../src/slack/directory.js';
import { parseSlackText } from '../../../src/text.js';
import { ManualClock } from '../../helpers/clock.js';
import { BACKENDS, testStore } from '../../helpers/store.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

const DAY = 86_400_000;
/** 2026-11-01T00:00:00Z */
const NOV_1 = Date.UTC(2026, 10, 1);

const query = (text: string): AuditQuery => {
  const parsed = parseAuditQuery(parseSlackText(text));
  if (!parsed.ok) throw new Error(`not parsed: ${text}`);
  return parsed.query;
};

async function setup(backend: 'sqlite' | 'postgres') {
  const clock = new ManualClock(NOV_1);
  slack = await startFakeSlack({ clock });
  slack.addUser({ id: 'UALICE', name: 'alice', isAdmin: true, tz: 'America/New_York' });
  slack.addUser({ id: 'UBOB', name: 'bob', tz: 'UTC' });
  slack.addUser({ id: 'UGRACE', name: 'grace', isRestricted: true });
  const { store } = await testStore(backend, { clock });
  // The zones audited are the login account's.
  await store.credentials.set(slack.teamId, 'sk_audit', { userId: 'UALICE', validated: true });
  const login = await store.credentials.get(slack.teamId);
  if (!login) throw new Error('no login key');
  const access = new AccessService(store.workspaces);
  const activity = new ActivityService({ ...store, access, defaultBaseUrl: 'https://cdn.test' });
  const client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
  const directory = webDirectory(client, slack.teamId, new GroupMembersCache(clock));
  const teamId = slack.teamId;
  const caller = (userId: string): Caller => ({ workspaceId: teamId, userId, directory });
  // 60 entries, one every 12 hours from Nov 1 UTC: purges by alice on a.example.com, rate limits
  // by bob on b.example.com, a key change, a purge-everything, and a CI token's purges.
  const actions = [
    'purge.urls',
    'ratelimit.on',
    'purge.everything.requested',
    'credentials.set',
    'purge.tags',
    'config.guests',
  ];
  for (let i = 0; i < 60; i++) {
    const action = actions[i % actions.length] as string;
    await store.audit.record({
      workspaceId: slack.teamId,
      actorId: i % 10 === 9 ? 'token:deploy-bot' : i % 2 ? 'UBOB' : 'UALICE',
      action,
      zoneId: i % 2 ? 'zone_b' : 'zone_a',
      zoneName: i % 2 ? 'b.example.com' : 'a.example.com',
      accountId: login.accountId,
      outcome: 'ok',
      detail: { n: i },
    });
    // Two entries share each time: the keyset must break ties by id.
    if (i % 2) clock.advance(DAY / 2);
  }
  return { store, activity, caller, clock, slack };
}

/** The entry at `i`, which the test knows is there. */
function at<T>(list: T[], i: number): T {
  const item = list.at(i);
  if (item === undefined) throw new Error(`no entry ${i}`);
  return item;
}

const ns = (entries: Array<{ detail: Record<string, unknown> | null }>) =>
  entries.map((e) => e.detail?.n);

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`audit search on ${backend}`, () => {
    it('filters by zone, person, token and kind, and pages by keyset both ways', async () => {
      const { activity, caller } = await setup(backend);
      const bob = caller('UBOB');

      const first = await activity.search(bob, {}, {}, 20);
      expect(ns(first.entries)).toEqual(Array.from({ length: 20 }, (_, i) => 59 - i));
      expect([first.hasPrevious, first.hasNext]).toEqual([false, true]);
      const last = at(first.entries, -1);
      const second = await activity.search(bob, {}, { after: { at: last.at, id: last.id } }, 20);
      expect(ns(second.entries)).toEqual(Array.from({ length: 20 }, (_, i) => 39 - i));
      expect([second.hasPrevious, second.hasNext]).toEqual([true, true]);
      const top = at(second.entries, 0);
      const back = await activity.search(bob, {}, { before: { at: top.at, id: top.id } }, 20);
      expect(ns(back.entries)).toEqual(ns(first.entries));
      expect([back.hasPrevious, back.hasNext]).toEqual([false, true]);
      const end = at(second.entries, -1);
      const third = await activity.search(bob, {}, { after: { at: end.at, id: end.id } }, 20);
      expect(third.entries).toHaveLength(20);
      expect(third.hasNext).toBe(false);

      const zone = await activity.search(bob, query('b.example.com'), {}, 100);
      expect(zone.entries.every((e) => e.zoneName === 'b.example.com')).toBe(true);
      expect(zone.entries).toHaveLength(30);

      const alice = await activity.search(bob, query('<@UALICE|alice>'), {}, 100);
      expect(alice.entries.every((e) => e.actorId === 'UALICE')).toBe(true);
      expect(alice.entries.length).toBeGreaterThan(0);

      const token = await activity.search(bob, query('token:deploy-bot'), {}, 100);
      expect(ns(token.entries)).toEqual([59, 49, 39, 29, 19, 9]);

      const purges = await activity.search(bob, query('kind:purge'), {}, 100);
      expect(new Set(purges.entries.map((e) => e.action))).toEqual(
        new Set(['purge.urls', 'purge.tags']),
      );
      const everything = await activity.search(bob, query('kind:purge-everything'), {}, 100);
      expect(new Set(everything.entries.map((e) => e.action))).toEqual(
        new Set(['purge.everything.requested']),
      );
      const keys = await activity.search(bob, query('kind:key a.example.com'), {}, 100);
      expect(
        keys.entries.every((e) => e.action === 'credentials.set' && e.zoneId === 'zone_a'),
      ).toBe(true);
      const rate = await activity.search(bob, query('ratelimit <@UBOB>'), {}, 100);
      // Rate limits at n = 1, 7, … 55 are bob's, but for 19 and 49 (the token's).
      expect(rate.entries).toHaveLength(8);
    });

    it('puts the HTTP API’s entries in a kind: its purge requests in purge, its tokens in key', async () => {
      const { activity, caller, store, slack: fake } = await setup(backend);
      const workspaceId = fake.teamId;
      for (const action of ['api.purge.requested', 'api.purge.refused', 'api.token.revoked'])
        await store.audit.record({
          workspaceId,
          actorId: action === 'api.token.revoked' ? 'UALICE' : 'token:deploy-bot',
          action,
          outcome: 'ok',
          detail: { n: action },
        });
      const bob = caller('UBOB');
      const actions = async (text: string) =>
        new Set((await activity.search(bob, query(text), {}, 100)).entries.map((e) => e.action));
      expect(await actions('kind:purge')).toEqual(
        new Set(['purge.urls', 'purge.tags', 'api.purge.requested', 'api.purge.refused']),
      );
      expect(await actions('kind:key')).toEqual(new Set(['credentials.set', 'api.token.revoked']));
      expect(auditKindOf('api.purge.replayed')).toBe('purge');
    });

    it('reads dates as whole days in the viewer’s time zone (UTC, New York), until included', async () => {
      const { activity, caller } = await setup(backend);
      // Nov 2 UTC holds the entries at Nov 2 00:00 and 12:00 UTC: n = 4, 5, 6, 7.
      const utc = await activity.search(
        caller('UBOB'),
        query('since:2026-11-02 until:2026-11-02'),
        {},
        100,
      );
      expect(utc.timeZone).toBe('UTC');
      expect(ns(utc.entries)).toEqual([7, 6, 5, 4]);
      // In New York (UTC-5 then) Nov 2 is 05:00 UTC Nov 2 to 05:00 UTC Nov 3: 12:00 Nov 2 and 00:00 Nov 3.
      const ny = await activity.search(
        caller('UALICE'),
        query('since:2026-11-02 until:2026-11-02'),
        {},
        100,
      );
      expect(ny.timeZone).toBe('America/New_York');
      expect(ns(ny.entries)).toEqual([9, 8, 7, 6]);
    });

    it('refuses guests, and a person typed as a name Slack did not resolve', async () => {
      const { activity, caller } = await setup(backend);
      await expect(activity.search(caller('UGRACE'), {}, {}, 20)).rejects.toMatchObject({
        problem: { code: 'guest', action: 'read_audit' },
      });
      const named = activity.search(caller('UBOB'), query('@alice'), {}, 20);
      await expect(named).rejects.toBeInstanceOf(AppError);
      await expect(named).rejects.toMatchObject({
        problem: { code: 'audit_filter', reason: 'name' },
      });
    });

    it('writes the export CSV in batches: a header, every entry once, newest first', async () => {
      const { activity, caller, store } = await setup(backend);
      const service = new AuditExportService({
        audit: store.audit,
        jobs: store.jobs,
        runner: undefined as never,
        access: new AccessService(store.workspaces),
        activity,
        sink: undefined as never,
        clock: new ManualClock(NOV_1),
        logger: undefined as never,
      });
      const path = join(await mkdtemp(join(tmpdir(), 'audit-csv-')), 'out.csv');
      // A batch of 7 splits the 60 entries, and ties of (at), across batches.
      const rows = await service.writeCsv(caller('UBOB'), { kind: 'purge' }, path, 7);
      const lines = (await readFile(path, 'utf8')).split('\r\n').filter((l) => l !== '');
      expect(lines[0]).toBe(
        '"id","time_utc","actor","action","kind","zone_id","zone_name","outcome","withheld","detail","account"',
      );
      expect(rows).toBe(20);
      expect(lines).toHaveLength(21);
      const ids = lines.slice(1).map((line) => Number(line.split(',')[0]?.replaceAll('"', '')));
      expect(new Set(ids).size).toBe(20);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(lines[1]).toMatch(/^"\d+","2026-11-\d\dT\d\d:00:00\.000Z",/);
    });
  });
}
