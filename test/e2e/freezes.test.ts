// Change freezes end to end: a weekly freeze in Europe/Paris across the spring daylight-saving
// change refuses a purge of everything, lets one through on an exception a second person approved
// (once), and the HTTP API gets the change-freeze problem naming the freeze and its end.
import { describe, expect, it } from 'vitest';
import { FREEZE_IDS, PURGE_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { expectProblem, postPurge } from './api-flows.js';
import {
  answerTo,
  commandReply,
  everythingRequests,
  openApprove,
  openForm,
  openHome,
} from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

/** Clocks in Paris go forward at 02:00 CET on Sunday 28 March 2027 (the last Sunday of March). */
const SUNDAY_AFTER_CHANGE = Date.parse('2027-03-28T12:00:00Z');
/** Monday 08:00 in Paris, now CEST (UTC+2): 06:00Z, where it would be 07:00Z without the change. */
const MONDAY_END = '2027-03-29T06:00:00.000Z';

async function submitEverything(h: Harness, reason: string): Promise<void> {
  const viewId = await openForm(h, 'purge example.com everything', { user: MEMBER });
  const values = {
    [PURGE_IDS.confirmBlock]: {
      [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'example.com' },
    },
    [PURGE_IDS.reasonBlock]: {
      [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: reason },
    },
  };
  expect((await h.submit(viewId, values, { user: MEMBER })).body).toBe('');
}

/** MEMBER asks to purge everything; resolves with what MEMBER alone is told next. */
function refusedEverything(h: Harness, reason: string): Promise<string> {
  return answerTo(h, MEMBER, () => submitEverything(h, reason));
}

async function inChannel(h: Harness, text: string): Promise<Message> {
  const [message] = await h.slack.waitForMessages(
    (m) => m.via === 'api' && m.channel === CHANNEL && (m.text?.includes(text) ?? false),
  );
  if (!message) throw new Error(`no message saying ${text}`);
  return message;
}

describe('change freezes', () => {
  it('a weekly Paris freeze across the spring change refuses purge-everything, an approved exception lets one through, the API gets the problem', async () => {
    const h = await startHarness();
    await h.login();

    // Only admins declare freezes.
    const refused = await commandReply(
      h,
      'freeze add example.com every fri 16:00 → mon 08:00 tz:Europe/Paris Release train',
      { user: MEMBER },
    );
    expect(refused.text).toContain(
      'Only workspace admins and owners can declare or remove change freezes',
    );

    const declared = await commandReply(
      h,
      'freeze add example.com every fri 16:00 → mon 08:00 tz:Europe/Paris #ops Spring release train',
      { user: ADMIN },
    );
    expect(declared.text).toContain(
      'declared on *example.com*: every Fri 16:00 → Mon 08:00 (Europe/Paris)',
    );
    await inChannel(h, 'A change freeze was declared on *example.com*');

    // Sunday after the change, inside Friday 16:00 CET → Monday 08:00 CEST: the round says it started.
    h.clock.advance(SUNDAY_AFTER_CHANGE - h.clock.now());
    await h.deps.freezes.announceDue();
    await h.deps.runner.settled();
    await inChannel(h, 'The change freeze on *example.com* has started');
    // Said once, however many rounds.
    await h.deps.freezes.announceDue();
    await h.deps.runner.settled();
    expect(h.slack.messages.filter((m) => m.text?.includes('has started'))).toHaveLength(1);

    const frozen = await refusedEverything(h, 'Broken bundle');
    expect(frozen).toContain('Purging everything is frozen on *example.com* until');
    expect(frozen).toContain('Spring release train');
    expect(everythingRequests(h)).toEqual([]);

    // The exception: asked by MEMBER, posted in the freeze's channel, refused to its requester.
    await commandReply(h, 'freeze except example.com everything Hotfix: the bundle must go', {
      user: MEMBER,
    });
    const exception = await inChannel(h, 'asks for an exception to the change freeze');
    expect(textOf(exception.blocks)).toContain('Hotfix: the bundle must go');
    const self = await answerTo(h, MEMBER, () =>
      h.click(exception, FREEZE_IDS.approve, { user: MEMBER }),
    );
    expect(self).toContain('someone else has to approve it');
    await h.click(exception, FREEZE_IDS.approve, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m === exception && (m.text?.includes('Approved by') ?? false),
    );

    // Through once: the request is posted, approved by a second person and purged.
    await submitEverything(h, 'Hotfix: the bundle must go');
    const request = await inChannel(h, 'Approval needed');
    const viewId = await openApprove(h, request, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m === request && (m.text?.includes('was purged') ?? false),
    );
    await h.slack.waitForMessages((m) => m === exception && (m.text?.includes('used') ?? false));

    // A second try is refused again.
    expect(await refusedEverything(h, 'Once more')).toContain('is frozen on *example.com*');

    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'freeze.declared',
        'freeze.started',
        'freeze.exception.requested',
        'freeze.exception.approved',
        'freeze.exception.used',
        'purge.everything',
      ]),
    );

    // The HTTP API: its own problem, naming the freeze and its end (Monday 08:00 CEST).
    const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'deploy',
      zones: null,
      kinds: ['urls_tags', 'everything'],
      channelId: CHANNEL,
    });
    const response = await postPurge(h, secret, { zone: 'example.com', everything: true });
    expect(response.headers.get('retry-after')).toBe(String(18 * 3600));
    const problem = await expectProblem(response, 409, 'change-freeze');
    expect(problem.freeze).toMatchObject({
      target: 'example.com',
      reason: 'Spring release train',
      time_zone: 'Europe/Paris',
      ends_at: MONDAY_END,
    });
    // URL purges stay allowed: the freeze does not say --purges.
    const urls = await postPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.com/app.js'],
    });
    expect(urls.status).toBe(202);

    // Monday 08:00 in Paris: the round says it ended, and the API purges everything again.
    h.clock.advance(Date.parse(MONDAY_END) + 60_000 - h.clock.now());
    await h.deps.freezes.announceDue();
    await h.deps.runner.settled();
    await inChannel(h, 'The change freeze on *example.com* has ended');
    const after = await postPurge(h, secret, { zone: 'example.com', everything: true });
    expect(after.status).toBe(202);

    const list = await commandReply(h, 'freeze list', { user: MEMBER });
    expect(textOf(list.blocks)).toContain('every Fri 16:00 → Mon 08:00 (Europe/Paris)');
    const home = await openHome(h, MEMBER);
    expect(textOf(home.view)).toContain('Change freezes');
    expect(textOf(home.view)).toContain(
      '*example.com*: every Fri 16:00 → Mon 08:00 (Europe/Paris)',
    );
  });

  it('overlapping freezes: deny beats allow; rate limits and flagged URL purges refused; guests may not declare', async () => {
    const h = await startHarness();
    await h.login();
    h.slack.addUser({ id: 'UGUEST', name: 'gus', isRestricted: true });
    const guest = await commandReply(
      h,
      'freeze add workspace 2026-11-22 09:00 → 2026-11-23 09:00 X',
      {
        user: 'UGUEST',
      },
    );
    expect(guest.text).toContain("Guests can't declare or remove change freezes");

    // Now is Sunday 22 November 2026, 11:00 in Paris (the admin's Slack time zone).
    const workspace = await commandReply(
      h,
      'freeze add workspace 2026-11-22 09:00 → 2026-11-23 09:00 Maintenance',
      { user: ADMIN },
    );
    expect(workspace.text).toContain('(Europe/Paris) (your Slack time zone');
    await commandReply(
      h,
      'freeze add example.com 2026-11-22 00:00 to 2026-11-24 00:00 tz:UTC --purges Cache rebuild',
      { user: ADMIN },
    );
    const bad = await commandReply(
      h,
      'freeze add example.com 2026-11-22 00:00 → 2026-11-24 00:00 tz:Mars/Olympus X',
      {
        user: ADMIN,
      },
    );
    expect(bad.text).toContain('is not a time zone I know');

    const ratelimit = await answerTo(h, MEMBER, () => h.command('ratelimit example.com on'));
    expect(ratelimit).toContain('Changing rate limits is frozen on');
    // The workspace's freeze allows URL purges, example.com's does not: refused.
    const purge = await answerTo(h, MEMBER, () => h.command('purge https://example.com/a.css'));
    expect(purge).toContain('Purging URLs and tags is frozen on *example.com*');
    expect(purge).toContain('Cache rebuild');
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/purge'))).toEqual([]);

    // Removed by an admin, the zone's freeze no longer refuses them.
    const zoneFreeze = (await h.store.freezes.list(h.workspaceId)).find((f) => f.scope === 'zone');
    await commandReply(h, `freeze remove ${zoneFreeze?.id}`, { user: ADMIN });
    await h.command('purge https://example.com/a.css');
    await h.slack.waitForMessages(
      (m) => m.via === 'api' && (m.text?.startsWith('Purged') ?? false),
    );
  });

  it('a purge-everything asked before a freeze started is not approved during it', async () => {
    const h = await startHarness();
    await h.login();
    // Asked at 11:00 in Paris; the freeze starts at 11:05.
    await submitEverything(h, 'Broken bundle');
    const request = await inChannel(h, 'Approval needed');
    await commandReply(h, 'freeze add example.com 2026-11-22 11:05 → 2026-11-22 18:00 Launch', {
      user: ADMIN,
    });
    h.clock.advance(6 * 60_000);
    const viewId = await openApprove(h, request, ADMIN);
    const refused = JSON.parse((await h.submit(viewId, {}, { user: ADMIN })).body);
    expect(textOf(refused)).toContain('Purging everything is frozen on *example.com*');
    expect(everythingRequests(h)).toEqual([]);
  });

  it("the form: /cdn freeze add alone, filled with the admin's time zone, refusals inline", async () => {
    const h = await startHarness();
    await h.login();
    const viewId = await openForm(h, 'freeze add', { user: ADMIN });
    const opened = h.slack.callsTo('views.open').at(-1);
    expect(JSON.stringify(opened?.args)).toContain('Europe/Paris');
    const values = (window: string, zone: string) => ({
      [FREEZE_IDS.targetBlock]: {
        [FREEZE_IDS.targetInput]: { type: 'plain_text_input', value: 'example.com' },
      },
      [FREEZE_IDS.windowBlock]: {
        [FREEZE_IDS.windowInput]: { type: 'plain_text_input', value: window },
      },
      [FREEZE_IDS.zoneBlock]: { [FREEZE_IDS.zoneInput]: { type: 'plain_text_input', value: zone } },
      [FREEZE_IDS.channelBlock]: {
        [FREEZE_IDS.channelInput]: { type: 'conversations_select', selected_conversation: CHANNEL },
      },
      [FREEZE_IDS.purgesBlock]: {
        [FREEZE_IDS.purgesInput]: { type: 'checkboxes', selected_options: [{ value: 'purges' }] },
      },
      [FREEZE_IDS.reasonBlock]: {
        [FREEZE_IDS.reasonInput]: { type: 'plain_text_input', value: 'Black Friday' },
      },
    });
    const bad = JSON.parse(
      (await h.submit(viewId, values('friday', 'Europe/Paris'), { user: ADMIN })).body,
    );
    expect(bad.errors[FREEZE_IDS.windowBlock]).toContain('2026-12-20 18:00 → 2027-01-04 08:00');
    expect(
      (
        await h.submit(viewId, values('every fri 00:00 → mon 00:00', 'America/New_York'), {
          user: ADMIN,
        })
      ).body,
    ).toBe('');
    await h.slack.waitForMessages(
      (m) => m.ephemeralTo === ADMIN && (m.text?.includes('declared') ?? false),
    );
    const [stored] = await h.store.freezes.list(h.workspaceId);
    expect(stored).toMatchObject({
      timeZone: 'America/New_York',
      purges: true,
      channelId: CHANNEL,
      rule: { kind: 'weekly', start: { weekday: 5, time: '00:00' } },
    });
    // Only admins open it.
    const refused = await answerTo(h, MEMBER, () => h.command('freeze add'));
    expect(refused).toContain(
      'Only workspace admins and owners can declare or remove change freezes',
    );
  });
});
