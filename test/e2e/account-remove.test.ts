// Removing a CDN account that still has work tied to it (issue 29), over the signed HTTP receiver
// against the fake Slack and two sandboxes, on SQLite and PostgreSQL. Its pending purge-everything
// request's message loses its buttons and says who removed the account (a job: Slack refusing the
// edit once only delays it), and a late click says so too. A channel bound to it refuses every
// zone command in one line, never falling back to `default` (nothing is purged), until it is bound
// again or unbound. No row of its watches, alerts, roles or zone index is left behind.
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { BACKENDS } from '../helpers/store.js';
import { ask, purges, removeAccount, twoAccounts } from './account-flows.js';
import { alerts, answerTo, interval, openForm } from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, textOf } from './harness.js';

const MINUTE = 60_000;
/** What a channel bound to the removed account `staging` answers to every zone command. */
const REFUSAL =
  'This channel was bound to the CDN account `staging`, which was removed, so nothing was done. Bind it again with `/cdn use <account>/[zone]` or `/cdn use <zone>`, or unbind it with `/cdn use none`.';
/** What a late click on a request of the removed account `staging` answers. */
const CLOSED = `This request was cancelled: its CDN account \`staging\` was removed by <@${ADMIN}>.`;

async function stagingId(h: Harness): Promise<string> {
  const account = await h.store.accounts.byName(h.workspaceId, 'staging');
  if (!account) throw new Error('no account staging');
  return account.id;
}

/** MEMBER asks to purge everything on staging's shop.example.org; resolves with the request. */
async function requestStagingEverything(h: Harness): Promise<Message> {
  const viewId = await openForm(h, 'purge staging/shop.example.org everything');
  const submitted = await h.submit(viewId, {
    [PURGE_IDS.confirmBlock]: {
      [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'shop.example.org' },
    },
    [PURGE_IDS.reasonBlock]: {
      [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'Bad deploy' },
    },
  });
  expect(submitted.body).toBe('');
  const [request] = await h.slack.waitForMessages(
    (m) => m.via === 'api' && (m.text?.includes('Approval needed') ?? false),
  );
  if (!request) throw new Error('no request');
  return request;
}

/**
 * The rows of `accountId` in each table that names an account, per table; a rule's state by its
 * watch (one of `watchIds`), as its row names no account.
 */
async function rowsOf(h: Harness, accountId: string, watchIds: string[]) {
  const tables = [
    'watches',
    'watch_zones',
    'watch_alerts',
    'account_roles',
    'zone_index',
    'zone_index_state',
  ] as const;
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await h.store.db
      .selectFrom(table as 'watches')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    counts[table] = Number(row?.n ?? 0);
  }
  const states = await h.store.db
    .selectFrom('watch_rule_states')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('watch_id', 'in', watchIds)
    .executeTakeFirst();
  counts.watch_rule_states = Number(states?.n ?? 0);
  // The job that holds its zone index's refresh (the runner's lease, due again after each round).
  const held = await h.store.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('key', 'like', `zone-index:%:${accountId}`)
    .executeTakeFirst();
  counts.zone_index_job = Number(held?.n ?? 0);
  return counts;
}

for (const { backend, skip } of BACKENDS)
  describe.skipIf(skip)(`removing the CDN account staging, on ${backend}`, () => {
    it('cancels its pending purge-everything request on its message, and a late click says why', async () => {
      const { h, staging } = await twoAccounts([], { backend });
      try {
        const request = await requestStagingEverything(h);
        // The message as it was: its buttons, clicked after the removal.
        const stale: Message = { ...request, blocks: structuredClone(request.blocks ?? []) };
        expect(JSON.stringify(request.blocks)).toContain(APPROVAL_IDS.approve);

        // Slack refuses the first edit (rate limited): the message's job tries again later.
        h.slack.inject({
          method: 'chat.update',
          kind: 'status',
          status: 429,
          headers: { 'retry-after': '30' },
          body: '{"ok":false,"error":"ratelimited"}',
        });
        const done = await removeAccount(h, await stagingId(h));
        expect(done).toContain('*1 pending purge-everything request* cancelled');
        await h.deps.runner.settled();
        expect(JSON.stringify(request.blocks)).toContain(APPROVAL_IDS.approve);
        h.clock.advance(MINUTE);
        await h.deps.runner.settled();

        const shown = textOf(request.blocks);
        expect(JSON.stringify(request.blocks)).not.toContain(APPROVAL_IDS.approve);
        expect(JSON.stringify(request.blocks)).not.toContain(APPROVAL_IDS.deny);
        expect(shown).toContain(
          `Cancelled: the CDN account \`staging\` was removed by <@${ADMIN}>. Nothing was purged.`,
        );
        expect(shown).not.toContain('by the requester');
        const audit = await h.store.audit.recent(h.workspaceId);
        expect(audit.find((e) => e.action === 'purge.everything.cancelled')).toMatchObject({
          actorId: ADMIN,
          detail: expect.objectContaining({ reason: 'account_removed' }),
        });

        // A late click on Approve, or on the requester's Cancel, says what became of it.
        const opens = h.slack.callsTo('views.open').length;
        expect(
          await answerTo(h, ADMIN, () => h.click(stale, APPROVAL_IDS.approve, { user: ADMIN })),
        ).toBe(CLOSED);
        expect(
          await answerTo(h, MEMBER, () => h.click(stale, APPROVAL_IDS.cancel, { user: MEMBER })),
        ).toBe(CLOSED);
        expect(h.slack.callsTo('views.open')).toHaveLength(opens);
        await h.deps.runner.settled();
        expect(purges(staging.requests)).toEqual([]);
        expect(purges(h.sandbox.requests)).toEqual([]);
      } finally {
        await staging.close();
      }
    });

    it('refuses every zone command in a channel bound to it, in one line, until it is bound again', async () => {
      const { h, staging } = await twoAccounts([], { backend });
      try {
        expect((await ask(h, 'use staging/shop.example.org')).text).toContain('shop.example.org');
        const done = await removeAccount(h, await stagingId(h));
        const opens = h.slack.callsTo('views.open').length;

        // Never production's shop.example.org in staging's place: nothing is purged, and why.
        const said = h.slack.messages.length;
        await h.command('purge https://shop.example.org/x');
        const [answer] = (await h.slack.waitForMessages(() => true, said + 1)).slice(said);
        await h.deps.runner.settled();
        expect(purges(h.sandbox.requests)).toEqual([]);
        expect(purges(staging.requests)).toEqual([]);
        expect(textOf(answer?.text)).toBe(REFUSAL);
        expect(answer?.ephemeralTo).toBe(MEMBER);
        expect(h.slack.messages).toHaveLength(said + 1);
        expect(done).toContain('*1 channel* bound to it (`/cdn use`) refuse zone commands');

        // Nor does any other zone command act anywhere.
        for (const command of [
          'purge /x',
          'purge',
          'purge shop.example.org everything',
          'ratelimit shop.example.org on',
          'ratelimit on',
          'analytics',
          'analytics shop.example.org',
          'watch shop.example.org',
          'report shop.example.org daily',
          'zones',
          'create new-one.example',
        ]) {
          const reply = await ask(h, command);
          expect(textOf(reply.text), command).toBe(REFUSAL);
          expect(reply.ephemeralTo, command).toBe(MEMBER);
        }
        // The message shortcut, on a message of that channel.
        const refused = (m: Message) => textOf(m.text) === REFUSAL && m.ephemeralTo === MEMBER;
        const before = h.slack.messages.filter(refused).length;
        await h.shortcut(PURGE_IDS.shortcut, {
          channel: CHANNEL,
          ts: '1795000000.000100',
          text: 'stale: https://shop.example.org/app.css',
        });
        await h.slack.waitForMessages(refused, before + 1);
        // `/cdn use` alone says the same.
        expect(textOf((await ask(h, 'use')).blocks)).toContain(
          'This channel was bound to the CDN account `staging`, which was removed',
        );

        await h.deps.runner.settled();
        expect(purges(h.sandbox.requests)).toEqual([]);
        expect(purges(staging.requests)).toEqual([]);
        expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
        expect(h.slack.callsTo('views.open')).toHaveLength(opens);

        // Bound again, or unbound, the channel's commands find their zones as anywhere else.
        expect(textOf((await ask(h, 'use shop.example.org')).blocks)).toContain(
          "made *shop.example.org* this channel's default zone",
        );
        expect(textOf((await ask(h, 'use none')).blocks)).toContain(
          "cleared this channel's default zone",
        );
        await h.command('purge https://shop.example.org/x');
        await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
        expect(purges(h.sandbox.requests)).toEqual([{ files: ['https://shop.example.org/x'] }]);
      } finally {
        await staging.close();
      }
    });

    it('leaves no row of its watches, alerts, roles, zone index or its refresh job behind', async () => {
      const { h, staging } = await twoAccounts([], { backend, slack: { fileReadyMs: 0 } });
      try {
        const id = await stagingId(h);
        h.slack.addUsergroup('S0STAGE', 'staging-ops', [MEMBER]);
        await ask(h, 'config operators @staging-ops account:staging', ADMIN);
        expect((await ask(h, 'watch staging/shop.example.org')).text).toContain('Watching');
        await interval(h, 2);
        // A spike in staging's zone: an alert, with its rule's state.
        const zone = staging.state.byName('shop.example.org');
        if (!zone) throw new Error('no zone');
        const from = Math.ceil(h.clock.now() / MINUTE) * MINUTE - MINUTE;
        staging.state.shape(zone.id, { kind: 'spike', from, to: from + 5 * MINUTE });
        await interval(h, 3);
        expect(alerts(h).length).toBeGreaterThan(0);
        const watchIds = (await h.store.watches.listForWorkspace(h.workspaceId)).map((w) => w.id);
        const before = await rowsOf(h, id, watchIds);
        for (const table of [
          'watches',
          'watch_zones',
          'watch_rule_states',
          'watch_alerts',
          'account_roles',
          'zone_index',
          'zone_index_state',
          'zone_index_job',
        ])
          expect(before[table], table).toBeGreaterThan(0);

        expect(await removeAccount(h, id)).toContain('*1 watch* removed');
        await interval(h, 2);
        expect(await rowsOf(h, id, watchIds)).toEqual(
          Object.fromEntries(Object.keys(before).map((table) => [table, 0])),
        );
      } finally {
        await staging.close();
      }
    });
  });
