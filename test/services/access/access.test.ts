// AccessService for each kind of person, as users.info describes them over real HTTP (the fake
// Slack, through the bot's own directory) and with the workspace's settings in real SQLite.
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { type Action, AppError, type Problem } from '../../../src/errors.js';
import { AccessService, type Caller } from '../../../src/services/access/access.js';
import { GroupMembersCache, webDirectory } from '../../../src/slack/directory.js';
import type { Store } from '../../../src/store/index.js';
import { InstantClock } from '../../helpers/clock.js';
import { testStore } from '../../helpers/store.js';

const PEOPLE = {
  admin: { id: 'UADMIN', name: 'alice', isAdmin: true },
  member: { id: 'UMEMBER', name: 'bob' },
  guest: { id: 'UGUEST', name: 'grace', isRestricted: true },
  single: { id: 'USINGLE', name: 'sam', isUltraRestricted: true },
  external: { id: 'UEXT', name: 'wei', teamId: 'T0PARTNER' },
  stranger: { id: 'USTRANGE', name: 'kim', isStranger: true },
  // An admin once; users.info still finds the account, with `deleted: true`.
  deactivated: { id: 'UGONE', name: 'lee', isAdmin: true, deleted: true },
} as const;
type Who = keyof typeof PEOPLE;

let slack: FakeSlack;
let store: Store;
let access: AccessService;
let caller: (who: Who) => Caller;

beforeEach(async () => {
  const clock = new InstantClock();
  slack = await startFakeSlack({ clock });
  for (const person of Object.values(PEOPLE)) slack.addUser(person);
  ({ store } = await testStore('sqlite', { clock }));
  access = new AccessService(store.workspaces);
  const client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
  const directory = webDirectory(client, slack.teamId, new GroupMembersCache(clock));
  caller = (who) => ({ workspaceId: slack.teamId, userId: PEOPLE[who].id, directory });
});

afterEach(async () => {
  await slack.close();
});

/** The problem a check refused with, or 'ok'. */
async function outcome(check: Promise<void>): Promise<Problem | 'ok'> {
  try {
    await check;
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return error.problem;
    throw error;
  }
}

const guestRefusal = (action: Action, grantable: boolean): Problem => ({
  code: 'guest',
  action,
  grantable,
});
const external: Problem = { code: 'stranger', action: 'purge', external: true };

describe('AccessService, guests reading only (the default)', () => {
  it.each<[Who, Problem | 'ok']>([
    ['admin', 'ok'],
    ['member', 'ok'],
    ['guest', guestRefusal('purge', true)],
    ['single', guestRefusal('purge', true)],
    ['external', external],
    ['stranger', { code: 'stranger', action: 'purge', external: false }],
    ['deactivated', { code: 'deactivated', action: 'purge' }],
  ])('requireOperator: %s → %j', async (who, expected) => {
    expect(await outcome(access.requireOperator(caller(who), 'purge'))).toEqual(expected);
  });

  // The member is the requester: someone else must approve.
  it.each<[Who, Problem | 'ok']>([
    ['admin', 'ok'],
    ['member', { code: 'self_approval' }],
    ['guest', guestRefusal('approve', false)],
    ['single', guestRefusal('approve', false)],
    ['external', { code: 'stranger', action: 'approve', external: true }],
    ['deactivated', { code: 'deactivated', action: 'approve' }],
  ])('requireApprover: %s → %j', async (who, expected) => {
    expect(await outcome(access.requireApprover(caller(who), PEOPLE.member.id))).toEqual(expected);
  });

  it.each<[Who, Problem | 'ok']>([
    ['admin', 'ok'],
    ['member', { code: 'not_admin', action: 'configure_access' }],
    ['guest', guestRefusal('configure_access', false)],
    ['single', guestRefusal('configure_access', false)],
    ['external', { code: 'stranger', action: 'configure_access', external: true }],
    ['deactivated', { code: 'deactivated', action: 'configure_access' }],
  ])('requireAdmin: %s → %j', async (who, expected) => {
    expect(await outcome(access.requireAdmin(caller(who), 'configure_access'))).toEqual(expected);
  });
});

describe('AccessService, guests allowed to operate', () => {
  beforeEach(async () => {
    await store.workspaces.update(slack.teamId, { guestAccess: 'operate' });
  });

  it.each<[Who, Problem | 'ok']>([
    ['guest', 'ok'],
    ['single', 'ok'],
    ['external', external],
  ])('requireOperator: %s → %j', async (who, expected) => {
    expect(await outcome(access.requireOperator(caller(who), 'purge'))).toEqual(expected);
  });

  it('still refuses guests approval and configuration', async () => {
    for (const who of ['guest', 'single'] as const) {
      expect(await outcome(access.requireApprover(caller(who), PEOPLE.member.id))).toEqual(
        guestRefusal('approve', false),
      );
      expect(await outcome(access.requireAdmin(caller(who), 'set_key'))).toEqual(
        guestRefusal('set_key', false),
      );
    }
  });

  it('keeps an operators group: a guest outside it is refused as anyone would be', async () => {
    slack.addUsergroup('SOPS', 'ops', [PEOPLE.member.id]);
    await store.workspaces.update(slack.teamId, { operatorGroupId: 'SOPS' });
    expect(await outcome(access.requireOperator(caller('guest'), 'ratelimit'))).toEqual({
      code: 'not_operator',
      action: 'ratelimit',
    });
  });
});

describe('operators per CDN account', () => {
  it('requireOperatorOfAny: yes for an operator of one of the accounts, else refused as the first account', async () => {
    const roles = new AccessService(store.workspaces, {
      accounts: store.accounts,
      roles: store.accountRoles,
    });
    const by = { userId: PEOPLE.admin.id, validated: true };
    await store.credentials.set(slack.teamId, 'sk_default', by);
    const staging = await store.accounts.create(slack.teamId, {
      name: 'staging',
      baseUrl: 'https://staging.example.net',
      apiKey: 'sk_staging',
      by,
    });
    const qa = await store.accounts.create(slack.teamId, {
      name: 'qa',
      baseUrl: 'https://qa.example.net',
      apiKey: 'sk_qa',
      by,
    });
    const login = await store.accounts.byName(slack.teamId, 'default');
    if (!login) throw new Error('the login made no account');
    const defaultId = login.id;
    slack.addUsergroup('SSTG', 'stg-ops', [PEOPLE.admin.id]);
    slack.addUsergroup('SPROD', 'prod-ops', [PEOPLE.admin.id]);
    await store.accountRoles.set(slack.teamId, staging.id, 'operators', 'SSTG', by.userId);
    await store.accountRoles.set(slack.teamId, defaultId, 'operators', 'SPROD', by.userId);
    const any = (who: Who, ids: string[]) =>
      outcome(roles.requireOperatorOfAny(caller(who), 'ratelimit', ids));

    // qa follows the workspace's operators (everyone): the member operates it, and so any of these.
    expect(await any('member', [staging.id, qa.id])).toBe('ok');
    expect(await any('admin', [staging.id, defaultId])).toBe('ok');
    // Refused in each: said as the first's, `default` being an account like any other.
    expect(await any('member', [staging.id, defaultId])).toEqual({
      code: 'not_operator',
      action: 'ratelimit',
      account: 'staging',
    });
    expect(await any('member', [defaultId, staging.id])).toEqual({
      code: 'not_operator',
      action: 'ratelimit',
      account: 'default',
    });
    expect(await any('member', [staging.id])).toMatchObject({ account: 'staging' });
    // None named: the workspace's operators (everyone here), not `default`'s.
    expect(await any('member', [])).toBe('ok');
    expect(await any('guest', [qa.id, staging.id])).toEqual(guestRefusal('ratelimit', true));
  });
});

describe('what each person sees of conversations', () => {
  it('reads full members only for the records, and what they may do for the App Home', async () => {
    expect(await outcome(access.requireFullMember(caller('member'), 'read_audit'))).toBe('ok');
    expect(await outcome(access.requireFullMember(caller('single'), 'read_audit'))).toEqual(
      guestRefusal('read_audit', false),
    );
    expect(await outcome(access.requireFullMember(caller('external'), 'read_audit'))).toEqual({
      code: 'stranger',
      action: 'read_audit',
      external: true,
    });
    expect(await access.permissions(caller('admin'))).toEqual({
      readZones: true,
      readRecords: true,
      setKey: true,
      operate: true,
    });
    expect(await access.permissions(caller('guest'))).toEqual({
      readZones: true,
      readRecords: false,
      setKey: false,
      operate: false,
    });
    expect(await access.permissions(caller('stranger'))).toEqual({
      readZones: false,
      readRecords: false,
      setKey: false,
      operate: false,
    });
    // A deactivated account is no longer one of the workspace's people, whatever its role was.
    expect(await outcome(access.requireFullMember(caller('deactivated'), 'read_audit'))).toEqual({
      code: 'deactivated',
      action: 'read_audit',
    });
    expect(await access.permissions(caller('deactivated'))).toEqual({
      readZones: false,
      readRecords: false,
      setKey: false,
      operate: false,
    });
  });

  it('asks conversations.members page by page, once a minute, and hides what the bot cannot see', async () => {
    // 2,500 people: three pages of 999.
    const crowd = Array.from({ length: 2_500 }, (_, i) => `U${i}`);
    slack.addChannel({ id: 'CBIG', name: 'all', botMember: true, members: [...crowd, 'UMEMBER'] });
    slack.addChannel({ id: 'CPRIV', name: 'x', botMember: false, isPrivate: true });
    slack.addChannel({ id: 'CSMALL', name: 'ops', botMember: true, members: ['UADMIN'] });
    const seen = await access.visibleConversations(caller('member'), [
      'CBIG',
      'CPRIV',
      'CSMALL',
      'CBIG',
      '',
    ]);
    expect([...seen]).toEqual(['CBIG']);
    // In parallel, so in any order.
    expect(
      slack
        .callsTo('conversations.members')
        .map((c) => c.args.channel)
        .sort(),
    ).toEqual(['CBIG', 'CBIG', 'CBIG', 'CPRIV', 'CSMALL']);
    // Kept for a minute: asked again, nothing is called.
    expect([...(await access.visibleConversations(caller('admin'), ['CSMALL', 'CBIG']))]).toEqual([
      'CSMALL',
    ]);
    expect(slack.callsTo('conversations.members')).toHaveLength(5);
    expect(await outcome(access.requireInConversation(caller('member'), 'CSMALL'))).toEqual({
      code: 'not_in_conversation',
    });
  });
});
