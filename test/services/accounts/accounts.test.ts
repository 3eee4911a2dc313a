// AccountService on SQLite and PostgreSQL, keys checked over HTTP against two CDN sandboxes: admins
// add, rename, re-key and remove accounts (what refers to one is counted, then stopped), others
// are refused, key health is checked and cached, and roles given per account hold per account.
import { afterEach, describe, expect, it } from 'vitest';
import { EgressPolicy } from '../../../src/cdn/egress.js';
import { CdnTransport } from '../../../src/cdn/transport.js';
import { type Sandbox, startSandbox } from '../../../src/dev/sandbox/server.js';
import { AppError, type Problem } from '../../../src/errors.js';
import {
  AccessService,
  type Caller,
  type SlackDirectory,
} from '../../../src/services/access/access.js';
import { AccountService } from '../../../src/services/accounts/accounts.js';
import { CdnAccess } from '../../../src/services/accounts/cdn-access.js';
import { CredentialService } from '../../../src/services/accounts/credentials.js';
import { CdnReadRateLimit } from '../../../src/services/analytics/cdn-read-rate-limit.js';
import type { ZoneService } from '../../../src/services/zones/zones.js';
import { ManualClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { BACKENDS, type Backend, testStore } from '../../helpers/store.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const WS = 'T1';
const ADMIN = 'UADMIN';
const MEMBER = 'UMEMBER';
const STAGING_OP = 'USTAGE';
const PROD_OP = 'UPROD';

function directory(): SlackDirectory {
  const groups: Record<string, string[]> = { SSTAGING: [STAGING_OP], SPROD: [PROD_OP] };
  return {
    user: async (id) => ({ isAdmin: id === ADMIN, timeZone: 'UTC' }),
    groupMembers: async (id) => groups[id] ?? [],
    inConversation: async () => true,
  };
}

async function sandbox(key: string): Promise<Sandbox> {
  const started = await startSandbox({ apiKeys: [key] });
  closers.push(() => started.close());
  return started;
}

async function setup(backend: Backend) {
  const prod = await sandbox('sk_prod');
  const staging = await sandbox('sk_staging');
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const { store } = await testStore(backend, { clock });
  const transport = new CdnTransport();
  closers.push(() => transport.close(100));
  const logger = captureLogs('warn').logger;
  // The sandboxes are on loopback: allowlisted, as an operator would allow an internal CDN API.
  const egress = new EgressPolicy({ allowlist: ['127.0.0.1'] });
  const cdn = new CdnAccess({
    store,
    transport,
    defaultBaseUrl: prod.baseUrl,
    egress,
    clock,
    logger,
  });
  const access = new AccessService(store.workspaces, {
    accounts: store.accounts,
    roles: store.accountRoles,
  });
  /** Each key saved, as `<workspace>:<account id>`: its account's index is built again. */
  const keyChanges: string[] = [];
  const zones = {
    keyChanged: (ws: string, accountId: string) => keyChanges.push(`${ws}:${accountId}`),
  } as unknown as ZoneService;
  const credentials = new CredentialService({ store, cdn, egress, access, zones });
  const reads = new CdnReadRateLimit(store.rateSlots, access, { person: 0, workspace: 0 });
  // The job that updates each request a removal cancels is stored (its kind and key as
  // ApprovalService makes them); ApprovalService's own tests run it.
  const stored: string[] = [];
  const approvals = {
    messageJob: (approval: { id: string; workspaceId: string }) => ({
      workspaceId: approval.workspaceId,
      kind: 'approval_message',
      key: `approval-message:${approval.id}`,
      payload: { approvalId: approval.id },
    }),
    messagesStored: () => stored.push('looked'),
  };
  const service = new AccountService({
    ...{ store, access, credentials, zones, reads, approvals, clock, logger },
    defaultBaseUrl: prod.baseUrl,
  });
  const caller = (userId: string): Caller => ({ workspaceId: WS, userId, directory: directory() });
  await store.credentials.set(WS, 'sk_prod', { userId: ADMIN, validated: true });
  return { store, service, access, caller, prod, staging, clock, keyChanges, stored };
}

async function problemOf(promise: Promise<unknown>): Promise<Problem> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.problem;
}

describe.each(BACKENDS)('AccountService on $backend', ({ backend, skip }) => {
  it.skipIf(skip)(
    'adds an account whose key its own API accepted, refuses a wrong key or a taken name, audits without the key',
    async () => {
      const { store, service, caller, staging } = await setup(backend);
      const admin = caller(ADMIN);
      const wrong = await service.check(admin, {
        name: 'staging',
        apiKey: 'sk_wrong',
        baseUrl: staging.baseUrl,
      });
      expect(wrong).toMatchObject({ ok: false, field: 'key', refusal: { status: 401 } });
      // `default` is the login account's name, taken as any other account's is.
      const taken = await service.check(admin, { name: 'DEFAULT', apiKey: 'sk_staging' });
      expect(taken).toEqual({
        ok: false,
        field: 'name',
        problem: { code: 'account_name_taken', name: 'DEFAULT' },
      });
      const bad = await service.check(admin, { name: 'no spaces', apiKey: 'sk_staging' });
      expect(bad).toMatchObject({ field: 'name', problem: { code: 'account_name_invalid' } });

      const check = await service.check(admin, {
        name: 'staging',
        apiKey: 'sk_staging',
        baseUrl: staging.baseUrl,
      });
      expect(check).toMatchObject({ ok: true, baseUrl: staging.baseUrl });
      const account = await service.add(admin, {
        name: 'staging',
        apiKey: 'sk_staging',
        baseUrl: staging.baseUrl,
      });
      expect(account).toMatchObject({ name: 'staging', hasKey: true, baseUrl: staging.baseUrl });
      expect((await store.accounts.credential(WS, account.id))?.apiKey).toBe('sk_staging');
      expect(await service.check(admin, { name: 'Staging', apiKey: 'sk_staging' })).toMatchObject({
        field: 'name',
        problem: { code: 'account_name_taken', name: 'Staging' },
      });
      const [entry] = await store.audit.recent(WS, { limit: 1 });
      expect(entry).toMatchObject({ action: 'account.add', actorId: ADMIN, outcome: 'ok' });
      expect(JSON.stringify(await store.audit.recent(WS))).not.toContain('sk_staging');
    },
  );

  it.skipIf(skip)('refuses every change to a non-admin, and changes nothing', async () => {
    const { store, service, caller, staging } = await setup(backend);
    const member = caller(MEMBER);
    const refused = { code: 'not_admin', action: 'set_key' };
    expect(await problemOf(service.check(member, { name: 'qa', apiKey: 'sk_staging' }))).toEqual(
      refused,
    );
    expect(
      await problemOf(
        service.add(member, { name: 'qa', apiKey: 'sk_staging', baseUrl: staging.baseUrl }),
      ),
    ).toEqual(refused);
    const fallback = (await store.accounts.byName(WS, 'default'))?.id as string;
    expect(await problemOf(service.rename(member, fallback, 'prod'))).toEqual(refused);
    expect(await problemOf(service.rekey(member, fallback, 'sk_prod'))).toEqual(refused);
    expect(await problemOf(service.remove(member, fallback))).toEqual(refused);
    expect((await store.accounts.list(WS)).map((a) => a.name)).toEqual(['default']);
  });

  it.skipIf(skip)(
    'renames and re-keys (the key checked against the account’s own API); default is renamed as any other',
    async () => {
      const { store, service, caller, staging, keyChanges } = await setup(backend);
      const admin = caller(ADMIN);
      const account = await service.add(admin, {
        name: 'staging',
        apiKey: 'sk_staging',
        baseUrl: staging.baseUrl,
      });
      expect((await service.rename(admin, account.id, 'eu-staging')).name).toBe('eu-staging');
      // `default` is a name like any other: taken while the login account has it, free once not.
      expect(await problemOf(service.rename(admin, account.id, 'default'))).toEqual({
        code: 'account_name_taken',
        name: 'default',
      });
      const fallback = (await store.accounts.byName(WS, 'default'))?.id as string;
      expect(await service.rename(admin, fallback, 'prod')).toMatchObject({
        id: fallback,
        name: 'prod',
      });
      expect(await service.removalPreview(admin, fallback)).toMatchObject({
        account: { id: fallback, name: 'prod' },
      });
      expect((await service.rename(admin, account.id, 'default')).name).toBe('default');
      expect((await service.rename(admin, account.id, 'eu-staging')).name).toBe('eu-staging');
      // The prod key is refused by the staging API: the account's own base URL is used.
      const before = staging.requests.length;
      expect(
        await service.check(admin, { accountId: account.id, apiKey: 'sk_prod' }),
      ).toMatchObject({ ok: false, field: 'key' });
      expect(staging.requests.length).toBe(before + 1);
      const generation = (await store.accounts.get(WS, account.id))?.generation;
      await service.rekey(admin, account.id, 'sk_staging');
      expect((await store.accounts.get(WS, account.id))?.generation).not.toBe(generation);
      // Each account's index is rebuilt with its own key, `default`'s as any other's.
      expect(keyChanges).toEqual([`${WS}:${account.id}`]);
      await service.rekey(admin, fallback, 'sk_prod');
      expect(keyChanges).toEqual([`${WS}:${account.id}`, `${WS}:${fallback}`]);
      const actions = (await store.audit.recent(WS)).map((e) => e.action);
      expect(actions).toEqual(
        expect.arrayContaining(['account.rename', 'account.rekey', 'account.add']),
      );
    },
  );

  it.skipIf(skip)(
    'counts what refers to the account, then stops only that (not default’s rows) and keeps the audit',
    async () => {
      const { store, service, caller, staging, stored } = await setup(backend);
      const admin = caller(ADMIN);
      const account = await service.add(admin, {
        name: 'staging',
        apiKey: 'sk_staging',
        baseUrl: staging.baseUrl,
      });
      const fallback = (await store.accounts.byName(WS, 'default'))?.id as string;
      // Rows of the staging account, and the same kinds of row of default.
      for (const [channel, accountId] of [
        ['CSTAGE', account.id],
        ['CPROD', fallback],
      ] as const) {
        // One pending purge-everything per zone: a zone of each account.
        const zone = { zoneId: `z-${channel}`, zoneName: 'example.com' };
        const { schedule } = await store.schedules.create(
          {
            workspaceId: WS,
            accountId,
            ...zone,
            channelId: channel,
            createdBy: ADMIN,
            timeOfDay: '09:00',
            timeZone: 'UTC',
            nextRunAt: Date.parse('2026-11-23T09:00:00Z'),
          },
          { reports: 10, reportsPerPerson: 10 },
        );
        expect(schedule.accountId).toBe(accountId);
        const made = await store.approvals.create({
          workspaceId: WS,
          accountId,
          ...zone,
          requesterId: ADMIN,
          reason: 'r',
          channelId: channel,
          ttlMs: 60_000,
        });
        if (!('created' in made)) throw new Error('no approval made');
        await store.db
          .insertInto('channel_bindings')
          .values({
            workspace_id: WS,
            channel_id: channel,
            zone_id: 'z1',
            zone_name: 'example.com',
            generation: 'g',
            set_by: ADMIN,
            set_at: 0,
            account_id: accountId,
          })
          .execute();
      }
      // API tokens: two live ones of staging count; a revoked one of staging, one for every
      // account (account_id null) and one of default do not.
      const token = (name: string, accountId: string | null) =>
        store.apiTokens.create({
          workspaceId: WS,
          name,
          hash: `hash-${name}`,
          hint: name,
          ...(accountId === null
            ? { accountId: null, allAccounts: true as const }
            : { accountId, allAccounts: false as const }),
          zones: null,
          kinds: ['urls_tags'],
          channelId: null,
          createdBy: ADMIN,
        });
      await token('staging-1', account.id);
      await token('staging-2', account.id);
      const old = await token('staging-old', account.id);
      await store.apiTokens.revoke(WS, old.id, ADMIN);
      await token('everywhere', null);
      await token('default', fallback);
      const preview = await service.removalPreview(admin, account.id);
      expect(preview.usage).toEqual({
        watches: 0,
        reports: 1,
        bindings: 1,
        approvals: 1,
        tokens: 2,
      });

      const removed = await service.remove(admin, account.id);
      expect(removed.usage).toEqual({
        watches: 0,
        reports: 1,
        bindings: 1,
        approvals: 1,
        tokens: 2,
      });
      // The tokens are not revoked: they reach nothing (the token list says so).
      const live = await store.db
        .selectFrom('api_tokens')
        .select('name')
        .where('revoked_at', 'is', null)
        .orderBy('name')
        .execute();
      expect(live.map((t) => t.name)).toEqual(['default', 'everywhere', 'staging-1', 'staging-2']);
      expect(await store.accounts.get(WS, account.id)).toBeUndefined();
      const schedules = await store.db
        .selectFrom('schedules')
        .select(['channel_id', 'status'])
        .execute();
      expect(schedules.map((s) => [s.channel_id, s.status]).sort()).toEqual([
        ['CPROD', 'active'],
        ['CSTAGE', 'stopped'],
      ]);
      // Staging's channel keeps its binding, marked: its zone commands are refused, not sent elsewhere.
      const bindings = await store.db
        .selectFrom('channel_bindings')
        .select(['channel_id', 'removed_account'])
        .orderBy('channel_id')
        .execute();
      expect(bindings.map((b) => [b.channel_id, b.removed_account])).toEqual([
        ['CPROD', null],
        ['CSTAGE', 'staging'],
      ]);
      const approvals = await store.db
        .selectFrom('approvals')
        .select(['id', 'channel_id', 'status', 'decided_by'])
        .execute();
      expect(approvals.map((a) => [a.channel_id, a.status, a.decided_by]).sort()).toEqual([
        ['CPROD', 'pending', null],
        ['CSTAGE', 'cancelled', ADMIN],
      ]);
      // The cancelled request's message job, stored with the removal.
      const cancelled = approvals.find((a) => a.channel_id === 'CSTAGE');
      expect(await store.jobs.byKey(`approval-message:${cancelled?.id}`)).toMatchObject({
        kind: 'approval_message',
        state: 'queued',
      });
      expect(stored).toEqual(['looked']);
      const actions = (await store.audit.recent(WS)).map((e) => e.action);
      expect(actions).toEqual(expect.arrayContaining(['account.add', 'account.remove']));
    },
  );

  it.skipIf(skip)(
    'tells whether each key works (checked, then cached 5 minutes): works, refused, unreachable',
    async () => {
      const { store, service, caller, staging, prod, clock } = await setup(backend);
      const admin = caller(ADMIN);
      await service.add(admin, { name: 'staging', apiKey: 'sk_staging', baseUrl: staging.baseUrl });
      const health = async () =>
        Object.fromEntries(
          (await service.overview(admin)).accounts.map((a) => [a.name, a.health] as const),
        );
      expect(await health()).toEqual({ default: 'works', staging: 'works' });
      // Within 5 minutes the answers are reused: no request.
      const seen = [prod.requests.length, staging.requests.length];
      clock.advance(4 * 60_000);
      expect(await health()).toEqual({ default: 'works', staging: 'works' });
      expect([prod.requests.length, staging.requests.length]).toEqual(seen);
      // A key the CDN no longer takes (stored without a check: revoked at the CDN, say) is
      // refused; a CDN that does not answer is unreachable, once the cached answer is old.
      const account = await store.accounts.byName(WS, 'staging');
      await store.accounts.setKey(WS, account?.id as string, 'sk_revoked', {
        userId: ADMIN,
        validated: false,
      });
      expect(await health()).toEqual({ default: 'works', staging: 'refused' });
      // Past 5 minutes, default is checked again and its CDN does not answer (staging's answer is
      // still fresh). The client's retries and the check's bound wait on the clock: moved on.
      clock.advance(2 * 60_000);
      await prod.close();
      let answered = false;
      const checking = health().finally(() => {
        answered = true;
      });
      while (!answered) {
        await Promise.race([clock.sleepers(1), checking]);
        if (!answered) clock.advance(5_000);
      }
      expect(await checking).toEqual({ default: 'unreachable', staging: 'refused' });
    },
  );

  it.skipIf(skip)(
    'roles per account: a staging-only operator purges staging, not prod; approvers likewise; others follow the workspace',
    async () => {
      const { store, service, access, caller, staging } = await setup(backend);
      const admin = caller(ADMIN);
      const account = await service.add(admin, {
        name: 'staging',
        apiKey: 'sk_staging',
        baseUrl: staging.baseUrl,
      });
      const fallback = (await store.accounts.byName(WS, 'default'))?.id as string;
      // No grant anywhere: the workspace's roles (everyone) hold on every account.
      await access.requireOperator(caller(STAGING_OP), 'purge', fallback);
      expect(
        await problemOf(service.setRole(caller(MEMBER), 'staging', 'operators', 'everyone')),
      ).toEqual({
        code: 'not_admin',
        action: 'configure_access',
      });
      await service.setRole(admin, 'staging', 'operators', { group: 'SSTAGING' });
      await service.setRole(admin, 'default', 'operators', { group: 'SPROD' });
      await access.requireOperator(caller(STAGING_OP), 'purge', account.id);
      expect(
        await problemOf(access.requireOperator(caller(STAGING_OP), 'purge', fallback)),
      ).toEqual({ code: 'not_operator', action: 'purge', account: 'default' });
      // No account named is not `default`: the workspace's operators (everyone here) hold.
      await access.requireOperator(caller(STAGING_OP), 'purge');
      expect(await problemOf(access.requireOperator(caller(PROD_OP), 'purge', account.id))).toEqual(
        {
          code: 'not_operator',
          action: 'purge',
          account: 'staging',
        },
      );
      const onStaging = await access.permissions(caller(STAGING_OP), account.id);
      const onProd = await access.permissions(caller(STAGING_OP), fallback);
      expect([onStaging.operate, onProd.operate]).toEqual([true, false]);
      // Approvers of staging only: a prod operator may not approve staging's purge-everything.
      await service.setRole(admin, 'staging', 'approvers', { group: 'SSTAGING' });
      expect(await problemOf(access.requireApprover(caller(PROD_OP), ADMIN, account.id))).toEqual({
        code: 'not_approver',
        account: 'staging',
      });
      await access.requireApprover(caller(STAGING_OP), ADMIN, account.id);
      await access.requireApprover(caller(PROD_OP), ADMIN, fallback);
      // Back to the workspace's role.
      await service.setRole(admin, 'default', 'operators', 'workspace');
      await access.requireOperator(caller(STAGING_OP), 'purge', fallback);
      expect(await problemOf(service.setRole(admin, 'nope', 'operators', 'everyone'))).toEqual({
        code: 'account_not_found',
        name: 'nope',
      });
      // Removing the account removes its grants (and the account's rows cascade).
      await service.remove(admin, account.id);
      expect(await store.accountRoles.list(WS)).toEqual([]);
    },
  );
});
