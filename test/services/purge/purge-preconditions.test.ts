// The purge services check their own preconditions, whoever calls them: called directly (no
// listener in front), a non-operator, a guest, a channel purges are not run from, or one purge too
// many for the flood limit is refused, and nothing is held, stored or sent.
import { afterEach, describe, expect, it } from 'vitest';
import { problemText } from '../../../src/blocks/problems.js';
import type { AppError } from '../../../src/errors.js';
import type { Caller } from '../../../src/services/access/access.js';
import type { ReplyTo } from '../../../src/services/reply.js';
import { ZONE_INDEX_JOB } from '../../../src/services/zones/zone-index-builder.js';
import { callerOf, OPERATORS, opened, purgeSetup } from '../purge-setup.js';

const OPERATOR = callerOf('U1', { groups: [OPERATORS] });
const STRANGER = callerOf('U2');
const GUEST = callerOf('U3', { user: { isGuest: true }, groups: [OPERATORS] });
const PURGE_CHANNEL = 'C_PURGE';
const REPLY: ReplyTo = { userId: 'U1', channelId: 'C1', issuedAt: 0, visibility: 'in_channel' };
const URLS = 'https://example.com/a.css';

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** Operators are a group; purges only from PURGE_CHANNEL; one change a minute. */
async function setup() {
  const t = await purgeSetup('sqlite', { changesPerMinute: 1 });
  await t.store.workspaces.update('T1', { operatorGroupId: OPERATORS });
  await t.store.channelBindings.setPurgeChannels('T1', [PURGE_CHANNEL], 'U_ADMIN');
  // The work's jobs: not the one a zone lookup's index build is held with.
  const jobs = async () =>
    (await t.store.db.selectFrom('jobs').select('id').where('kind', '<>', ZONE_INDEX_JOB).execute())
      .length;
  return { ...t, jobs };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Every way into a purge, as the listeners call it, for `caller` in `channelId`. */
const WAYS_IN: Array<[string, (t: Setup, caller: Caller, channelId: string) => Promise<unknown>]> =
  [
    ['plan', (t, c, ch) => t.purges.plan(c, ch, t.items(URLS))],
    // A purge starts only from a plan checked for its caller in its channel.
    ['start', async (t, c, ch) => t.purges.start(await planned(t, c, ch), REPLY)],
    ['retry', (t, c, ch) => t.purges.retry(c, ch, 'some-purge', REPLY)],
    ['the form for a message (forMessage)', (t, c, ch) => t.forms.forMessage(c, ch, [URLS])],
    ['zoneFor', (t, c, ch) => t.purges.zoneFor(c, ch, 'example.com')],
    ['the form (open)', (t, c, ch) => t.forms.open(c, ch, 'example.com')],
    ['the form’s picker (choices)', (t, c, ch) => t.forms.choices(c, ch, 'exa')],
    [
      'the form’s zone (picked)',
      (t, c, ch) =>
        t.forms.picked(c, ch, { zoneId: t.sandbox.state.byName('example.com')?.id ?? '' }),
    ],
    ['hold', async (t, c, ch) => t.holds.hold(await heldPlan(t, c, ch))],
    ['prepareRequest (purge everything)', (t, c, ch) => t.approvals.prepareRequest(c, ch)],
  ];

/** What `caller` in `channelId` would purge (an operator in the purge channel unless said). */
async function planned(t: Setup, caller = OPERATOR, channelId = PURGE_CHANNEL) {
  return t.purges.plan(caller, channelId, t.items(URLS));
}

async function heldPlan(t: Setup, caller = OPERATOR, channelId = PURGE_CHANNEL) {
  const words = `example.com ${URLS} https://static.example.com/b.css`;
  return t.purges.plan(caller, channelId, t.items(words));
}

describe('the purge services check who, where and how often themselves', () => {
  it.each(WAYS_IN)(
    '%s refuses a non-operator, a guest and a channel not for purges',
    async (_, call) => {
      const t = await setup();
      const before = await t.jobs();
      await expect(call(t, STRANGER, PURGE_CHANNEL)).rejects.toMatchObject({
        problem: { code: 'not_operator', action: 'purge' },
      });
      await expect(call(t, GUEST, PURGE_CHANNEL)).rejects.toMatchObject({
        problem: { code: 'guest', action: 'purge' },
      });
      await expect(call(t, OPERATOR, 'C_ELSEWHERE')).rejects.toMatchObject({
        problem: { code: 'purge_channel_restricted', channelIds: [PURGE_CHANNEL] },
      });
      await t.runner.settled();
      expect(await t.jobs()).toBe(before);
      expect(t.purgeRequests()).toEqual([]);
    },
  );

  it.each(WAYS_IN)(
    '%s names only the purge channels the caller is in, and counts the others',
    async (_, call) => {
      const t = await setup();
      await t.store.channelBindings.setPurgeChannels(
        'T1',
        [PURGE_CHANNEL, 'C_SECRET1', 'C_SECRET2'],
        'U_ADMIN',
      );
      const outsider = callerOf('U1', { groups: [OPERATORS], inChannels: [PURGE_CHANNEL, 'C1'] });
      const refusal = await call(t, outsider, 'C1').catch((error: unknown) => error);
      expect(refusal).toMatchObject({
        problem: { code: 'purge_channel_restricted', channelIds: [PURGE_CHANNEL], hidden: 2 },
      });
      const text = problemText((refusal as AppError).problem).text;
      expect(text).not.toContain('C_SECRET');
      expect(text).toContain(`<#${PURGE_CHANNEL}> and 2 conversations you are not in`);
    },
  );

  it('plan checks who may purge once, and start takes its plan without checking again', async () => {
    const t = await setup();
    const operator = callerOf('U1', { groups: [OPERATORS] });
    let looks = 0;
    const counted: Caller = {
      ...operator,
      directory: {
        ...operator.directory,
        groupMembers: async (groupId) => {
          looks += 1;
          return operator.directory.groupMembers(groupId);
        },
      },
    };
    const plan = await t.purges.plan(counted, PURGE_CHANNEL, t.items(URLS));
    expect(looks).toBe(1);
    await t.purges.start(plan, REPLY);
    expect(looks).toBe(1);
    await t.runner.settled();
    expect(t.purgeRequests()).toEqual([{ zone: 'example.com', files: [URLS] }]);
  });

  it('start, a held purge’s confirm and purge-everything each count against the flood limit', async () => {
    const t = await setup();
    const tooMany = { problem: { code: 'too_many_changes', limit: 1 } };
    await t.purges.start(await planned(t), REPLY);
    await expect(t.purges.start(await planned(t), REPLY)).rejects.toMatchObject(tooMany);
    const held = await t.holds.hold(await heldPlan(t));
    await expect(t.holds.confirm(OPERATOR, PURGE_CHANNEL, held.id, REPLY)).rejects.toMatchObject(
      tooMany,
    );
    await expect(t.approvals.prepareRequest(OPERATOR, PURGE_CHANNEL)).rejects.toMatchObject(
      tooMany,
    );
    await t.runner.settled();
    // The one purge let through, and nothing of the held one.
    expect(t.purgeRequests()).toEqual([{ zone: 'example.com', files: [URLS] }]);

    // A minute on, the held purge may go, in the purge channel only.
    t.clock.advance(120_000);
    await expect(t.holds.confirm(OPERATOR, 'C_ELSEWHERE', held.id, REPLY)).rejects.toMatchObject({
      problem: { code: 'purge_channel_restricted' },
    });
    await t.holds.confirm(OPERATOR, PURGE_CHANNEL, held.id, REPLY);
    await t.runner.settled();
    expect(t.purgeRequests()).toHaveLength(2);
  });
});
