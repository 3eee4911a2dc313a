// CDN accounts end to end over the signed HTTP receiver: an admin adds a second account through
// its modal (the key checked against a second sandbox), renames it, re-keys it and removes it
// after a confirmation that says what stops; a non-admin is refused; the App Home lists the
// accounts with their zone counts and whether each key works, checked against the CDN.

import { describe, expect, it } from 'vitest';
import { ACCOUNTS_IDS, LOGIN_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { NON_PUBLIC_ANSWERS } from '../helpers/net.js';
import { commandReply, modalOpenedBy, openHome } from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf, viewIdOf } from './harness.js';

const STAGING_KEY = 'sk_e2e_staging_key_77aa';

const answer = (h: Harness, text: string, user: string) => commandReply(h, text, { user });

/** Clicks a button and returns the id of the modal it opened. */
const opens = (h: Harness, message: Message, actionId: string) =>
  modalOpenedBy(h, () => h.click(message, actionId, { user: ADMIN }));

const typed = (block: string, action: string, value: string | null, type = 'plain_text_input') => ({
  [block]: { [action]: { type, value } },
});
const addValues = (name: string, key: string, baseUrl: string) => ({
  ...typed(ACCOUNTS_IDS.nameBlock, ACCOUNTS_IDS.nameInput, name),
  ...typed(ACCOUNTS_IDS.keyBlock, ACCOUNTS_IDS.keyInput, key),
  ...typed(ACCOUNTS_IDS.baseUrlBlock, ACCOUNTS_IDS.baseUrlInput, baseUrl, 'url_text_input'),
});

async function withStaging() {
  const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
  const staging = await startSandbox({ apiKeys: [STAGING_KEY], clock: h.clock });
  await h.login();
  return { h, staging };
}

describe('/cdn accounts', () => {
  it('lets an admin add, rename, re-key and remove an account; the key checked against its own CDN', async () => {
    const { h, staging } = await withStaging();
    try {
      const list = await answer(h, 'accounts', ADMIN);
      expect(textOf(list.blocks)).toContain('*default*');
      const addId = await opens(h, list, ACCOUNTS_IDS.add);

      // A wrong key is refused by the staging CDN, on the key's field; nothing is saved.
      const wrong = JSON.parse(
        (await h.submit(addId, addValues('staging', 'sk_wrong', staging.baseUrl), { user: ADMIN }))
          .body,
      );
      expect(wrong.errors[ACCOUNTS_IDS.keyBlock]).toContain('refused this key (401)');
      const taken = JSON.parse(
        (await h.submit(addId, addValues('Default', STAGING_KEY, staging.baseUrl), { user: ADMIN }))
          .body,
      );
      // `default` is an account like another: its name is taken, in any case.
      expect(taken.errors[ACCOUNTS_IDS.nameBlock]).toContain(
        'This workspace already has an account named *Default*',
      );
      const added = JSON.parse(
        (await h.submit(addId, addValues('staging', STAGING_KEY, staging.baseUrl), { user: ADMIN }))
          .body,
      );
      expect(textOf(added.view)).toContain('Account *staging* added. Its key works');
      expect(staging.requests.map((r) => r.status)).toEqual([401, 200]);
      const account = await h.store.accounts.byName(h.workspaceId, 'staging');
      expect(account).toMatchObject({ baseUrl: staging.baseUrl, hasKey: true });

      // Rename: a taken name is answered on the field.
      const listed = await answer(h, 'accounts', ADMIN);
      const renameId = await opens(h, listed, `${ACCOUNTS_IDS.rename}_1`);
      const clash = JSON.parse(
        (
          await h.submit(
            renameId,
            typed(ACCOUNTS_IDS.nameBlock, ACCOUNTS_IDS.nameInput, 'DEFAULT'),
            { user: ADMIN },
          )
        ).body,
      );
      expect(clash.errors[ACCOUNTS_IDS.nameBlock]).toContain(
        'This workspace already has an account named *DEFAULT*',
      );
      const renamed = JSON.parse(
        (
          await h.submit(
            renameId,
            typed(ACCOUNTS_IDS.nameBlock, ACCOUNTS_IDS.nameInput, 'eu-staging'),
            { user: ADMIN },
          )
        ).body,
      );
      expect(textOf(renamed.view)).toContain('now named *eu-staging*');

      // Re-key: checked against the account's own CDN.
      const rekeyId = await opens(h, listed, `${ACCOUNTS_IDS.rekey}_1`);
      const refused = JSON.parse(
        (
          await h.submit(rekeyId, typed(ACCOUNTS_IDS.keyBlock, ACCOUNTS_IDS.keyInput, 'sk_nope'), {
            user: ADMIN,
          })
        ).body,
      );
      expect(refused.errors[ACCOUNTS_IDS.keyBlock]).toContain('refused this key');
      const rekeyed = JSON.parse(
        (
          await h.submit(
            rekeyId,
            typed(ACCOUNTS_IDS.keyBlock, ACCOUNTS_IDS.keyInput, STAGING_KEY),
            {
              user: ADMIN,
            },
          )
        ).body,
      );
      expect(textOf(rekeyed.view)).toContain('key of *eu-staging* is replaced');

      // A daily report of the account: the confirmation says it stops, and that the audit stays.
      const id = account?.id as string;
      const { schedule } = await h.store.schedules.create(
        {
          workspaceId: h.workspaceId,
          zoneId: 'z9',
          zoneName: 'staging.example.com',
          accountId: id,
          channelId: CHANNEL,
          createdBy: ADMIN,
          timeOfDay: '09:00',
          timeZone: 'UTC',
          nextRunAt: h.clock.now() + 3_600_000,
        },
        { reports: 10, reportsPerPerson: 10 },
      );
      await h.store.db
        .updateTable('schedules')
        .set({ account_id: id })
        .where('id', '=', schedule.id)
        .execute();
      const removeId = await opens(h, listed, `${ACCOUNTS_IDS.remove}_1`);
      const asked = textOf(h.slack.views.get(removeId)?.view);
      expect(asked).toContain('Remove the CDN account *eu-staging* and its API key?');
      expect(asked).toContain('*1 daily report* stopped');
      expect(asked).toContain('The audit log keeps its entries');
      expect(await h.store.accounts.get(h.workspaceId, id)).toBeDefined();
      const removed = JSON.parse((await h.submit(removeId, {}, { user: ADMIN })).body);
      expect(textOf(removed.view)).toContain('*eu-staging* and its key are removed');
      expect(await h.store.accounts.get(h.workspaceId, id)).toBeUndefined();
      const row = await h.store.db
        .selectFrom('schedules')
        .select('status')
        .where('id', '=', schedule.id)
        .executeTakeFirst();
      expect(row?.status).toBe('stopped');
      const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
      expect(actions).toEqual(
        expect.arrayContaining([
          'account.add',
          'account.rename',
          'account.rekey',
          'account.remove',
        ]),
      );
      expect(JSON.stringify(h.slack.calls)).not.toContain(STAGING_KEY);
    } finally {
      await staging.close();
    }
  });

  it('shows a non-admin the accounts without buttons, and refuses their clicks and forms', async () => {
    const { h, staging } = await withStaging();
    try {
      const list = await answer(h, 'accounts', MEMBER);
      expect(textOf(list.blocks)).toContain('*default*');
      expect(JSON.stringify(list.blocks)).not.toContain(ACCOUNTS_IDS.add);
      // The admin's message, forwarded: the member's click opens nothing.
      const adminList = await answer(h, 'accounts', ADMIN);
      await h.click(adminList, ACCOUNTS_IDS.add, { user: MEMBER });
      await h.slack.waitForMessages(
        (m) => m.ephemeralTo === MEMBER && (m.text?.includes('Only workspace admins') ?? false),
      );
      expect(h.slack.callsTo('views.open')).toEqual([]);
      expect((await h.store.accounts.list(h.workspaceId)).map((a) => a.name)).toEqual(['default']);
    } finally {
      await staging.close();
    }
  });

  it('lists the accounts on the App Home with zone counts and each key checked: a refused key says so', async () => {
    const { h, staging } = await withStaging();
    try {
      h.deps.zones.keyChanged(h.workspaceId, await h.loginAccountId());
      await h.deps.zoneIndex.idle();
      const account = await h.store.accounts.create(h.workspaceId, {
        name: 'staging',
        baseUrl: staging.baseUrl,
        apiKey: 'sk_revoked_at_the_cdn',
        by: { userId: ADMIN, validated: false },
      });
      const home = textOf((await openHome(h, ADMIN)).view);
      const zones = (await h.store.accounts.byName(h.workspaceId, 'default'))?.zoneCount;
      expect(zones).toBeGreaterThan(0);
      expect(home).toContain(`*default* · ${zones} zone`);
      expect(home).toContain('key works');
      expect(home).toContain('*staging* · zones not listed yet · :x: key refused by the CDN');
      // Checked, not assumed: the staging CDN was asked (and said 401).
      expect(staging.requests.map((r) => r.status)).toEqual([401]);
      expect(JSON.stringify(h.slack.homes.get(ADMIN)?.view)).toContain(`${ACCOUNTS_IDS.remove}_1`);
      expect(account.id).toBeDefined();
      // A member sees the list, without the buttons.
      await h.event({ type: 'app_home_opened', user: MEMBER, channel: 'D1', tab: 'home' });
      await h.slack.waitForCalls((c) => c.method === 'views.publish', 2);
      const memberHome = JSON.stringify(h.slack.homes.get(MEMBER)?.view);
      expect(memberHome).toContain('staging');
      expect(memberHome).not.toContain(ACCOUNTS_IDS.remove);
    } finally {
      await staging.close();
    }
  });
});

describe('roles per account', () => {
  it('holds an account with its own operators to them: a staging-only operator is refused on prod (default)', async () => {
    const { h, staging } = await withStaging();
    try {
      h.slack.addUsergroup('S0PROD', 'prod-ops', [ADMIN]);
      h.slack.addUsergroup('S0STAGE', 'staging-ops', [MEMBER]);
      await h.store.accounts.create(h.workspaceId, {
        name: 'staging',
        baseUrl: staging.baseUrl,
        apiKey: STAGING_KEY,
        by: { userId: ADMIN, validated: true },
      });
      const refusedToMember = await answer(
        h,
        'config operators @staging-ops account:staging',
        MEMBER,
      );
      expect(refusedToMember.text).toContain('Only workspace admins');
      const staged = await answer(h, 'config operators @staging-ops account:staging', ADMIN);
      expect(textOf(staged.blocks)).toContain('CDN account *staging*: <!subteam^S0STAGE>');
      await answer(h, 'config operators @prod-ops account:default', ADMIN);
      const grants = await h.store.accountRoles.list(h.workspaceId);
      expect(grants.map((g) => g.groupId).sort()).toEqual(['S0PROD', 'S0STAGE']);

      // Named in full (both sandboxes hold example.com): a staging-only operator is refused on prod.
      const refused = await answer(
        h,
        'purge default/example.com https://example.com/a.css',
        MEMBER,
      );
      expect(textOf(refused.text)).toContain(
        "Only members of the CDN account *default*'s operators group can purge cached content on it.",
      );
      expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
      // The admin, a prod operator, purges prod; `/cdn accounts` shows each account's own.
      await h.command('purge default/example.com https://example.com/a.css', { user: ADMIN });
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      const list = await answer(h, 'accounts', MEMBER);
      expect(textOf(list.blocks)).toContain('operators: <!subteam^S0STAGE>');
    } finally {
      await staging.close();
    }
  });
});

describe('a base URL whose host is not public (account and login modals)', () => {
  /** What the bot's DNS answers for target.example. */
  const answers = NON_PUBLIC_ANSWERS;
  const FORBIDDEN =
    /127\.0\.0\.1|10\.0\.0\.7|169\.254|loopback|private|link-local|does not resolve|ENOTFOUND/i;
  const REFUSAL =
    'The base URL is not allowed: target.example is not a public address; only public addresses are allowed.';

  it('the account modal refuses each alike, on the field, naming only the host typed', async () => {
    const said = new Map<string, string>();
    for (const [name, resolve] of Object.entries(answers)) {
      const h = await startHarness({ login: true, resolve });
      const addId = await opens(h, await answer(h, 'accounts', ADMIN), ACCOUNTS_IDS.add);
      const body = (
        await h.submit(addId, addValues('edge', STAGING_KEY, 'https://target.example/v1'), {
          user: ADMIN,
        })
      ).body;
      expect(body, name).not.toMatch(FORBIDDEN);
      said.set(name, JSON.parse(body).errors[ACCOUNTS_IDS.baseUrlBlock]);
      expect(await h.store.accounts.byName(h.workspaceId, 'edge'), name).toBeUndefined();
    }
    expect([...new Set(said.values())]).toEqual([REFUSAL]);
  });

  it('the login modal refuses each alike', async () => {
    const said = new Map<string, string>();
    for (const [name, resolve] of Object.entries(answers)) {
      const h = await startHarness({ resolve });
      await h.command('login', { user: ADMIN });
      const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
      const viewId = viewIdOf(opened);
      const body = (
        await h.submit(
          viewId,
          {
            ...typed(LOGIN_IDS.keyBlock, LOGIN_IDS.keyInput, STAGING_KEY),
            ...typed(
              LOGIN_IDS.baseUrlBlock,
              LOGIN_IDS.baseUrlInput,
              'https://target.example/v1',
              'url_text_input',
            ),
          },
          { user: ADMIN },
        )
      ).body;
      expect(body, name).not.toMatch(FORBIDDEN);
      said.set(name, JSON.parse(body).errors[LOGIN_IDS.baseUrlBlock]);
      expect(h.sandbox.requests, name).toEqual([]);
    }
    expect([...new Set(said.values())]).toEqual([REFUSAL]);
  });
});
