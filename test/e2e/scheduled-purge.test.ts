import { describe, expect, it } from 'vitest';
import { PURGE_IDS, SCHEDULED_PURGE_IDS } from '../../src/blocks/ids.js';
import { SCHEDULED_PURGE_JOB } from '../../src/services/purge/scheduled-purges.js';
import {
  commandReply,
  everythingRequests,
  openApprove,
  openForm,
  purgeFormValues,
} from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, OTHER, startHarness, textOf } from './harness.js';

const purgeRequests = (h: Harness) =>
  h.sandbox.requests.filter(
    (r) =>
      r.path.endsWith('/purge') && !(r.body as { purge_everything?: boolean }).purge_everything,
  );
const queued = (h: Harness) => h.store.jobs.queuedOf(h.workspaceId, SCHEDULED_PURGE_JOB, 50);
const actions = async (h: Harness) =>
  (await h.store.audit.recent(h.workspaceId, { limit: 50 })).map((e) => e.action).reverse();

/** Moves the clock on and lets every job now due run. */
async function passTime(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.deps.runner.settled();
}

const skippedNotice = (h: Harness) =>
  h.slack.waitForMessages((m) => m.via === 'api' && (m.text?.includes('did not run') ?? false));

describe('scheduled purges', () => {
  it('`in 30m` runs once at its time, not before; the confirmation names the time zone', async () => {
    const h = await startHarness();
    await h.login();
    const reply = await commandReply(h, 'purge example.com https://example.com/a.css in 30m');
    // MEMBER's Slack time zone (users.info tz), and UTC beside it.
    expect(textOf(reply.blocks)).toContain(
      '1 URL on *example.com* at 2026-11-22 05:30 America/New_York (2026-11-22 10:30 UTC)',
    );
    await passTime(h, 29 * 60_000);
    expect(purgeRequests(h)).toEqual([]);
    expect(await queued(h)).toHaveLength(1);

    await passTime(h, 60_000);
    await h.slack.waitForMessages(
      (m) => m.via === 'api' && (m.text?.startsWith('Purged') ?? false),
    );
    expect(purgeRequests(h).map((r) => r.body)).toEqual([{ files: ['https://example.com/a.css'] }]);
    await passTime(h, 60 * 60_000);
    expect(purgeRequests(h)).toHaveLength(1);
    expect(await queued(h)).toEqual([]);
    expect(await actions(h)).toEqual(['purge.scheduled', 'purge.scheduled.ran', 'purge.urls']);
  });

  it('`at HH:MM` is read in the person’s time zone; past, too far and unreadable times are refused', async () => {
    const h = await startHarness();
    await h.login();
    // 10:00 UTC is 05:00 in New York: 02:00 there is tomorrow's, 07:00 UTC.
    const at = await commandReply(h, 'purge example.com /a.css at 02:00');
    expect(textOf(at.blocks)).toContain(
      'at 2026-11-23 02:00 America/New_York (2026-11-23 07:00 UTC)',
    );
    const past = await commandReply(h, 'purge example.com /a.css at 2026-11-21 02:00');
    expect(past.text).toContain('That time has passed. Nothing was scheduled.');
    const far = await commandReply(h, 'purge example.com /a.css in 8d');
    expect(far.text).toContain('at most 7 days ahead');
    const bad = await commandReply(h, 'purge example.com /a.css at teatime');
    expect(bad.text).toContain('is not a time I can read');
    expect(await queued(h)).toHaveLength(1);
  });

  it('from the form: its When field schedules it, and an unreadable time is said in the form', async () => {
    const h = await startHarness();
    await h.login();
    const viewId = await openForm(h, 'purge example.com');
    const values = (when: string) => ({
      ...purgeFormValues(h, 'https://example.com/a.css'),
      [SCHEDULED_PURGE_IDS.whenBlock]: {
        [SCHEDULED_PURGE_IDS.whenInput]: { type: 'plain_text_input', value: when },
      },
    });
    const bad = JSON.parse((await h.submit(viewId, values('at noonish'))).body);
    expect(bad.errors[SCHEDULED_PURGE_IDS.whenBlock]).toContain('is not a time I can read');
    expect((await h.submit(viewId, values('in 45m'))).body).toBe('');
    const [confirmation] = await h.slack.waitForMessages(
      (m) => m.text?.includes('Purge scheduled for') ?? false,
    );
    expect(textOf(confirmation?.blocks)).toContain('at 2026-11-22 05:45 America/New_York');
    await passTime(h, 44 * 60_000);
    expect(purgeRequests(h)).toEqual([]);
    await passTime(h, 60_000);
    await h.slack.waitForMessages(
      (m) => m.via === 'api' && (m.text?.startsWith('Purged') ?? false),
    );
    expect(purgeRequests(h)).toHaveLength(1);
  });

  it('lists them; only the requester or an admin cancels, by command or button', async () => {
    const h = await startHarness();
    await h.login();
    await commandReply(h, 'purge example.com /a.css in 1h');
    await commandReply(h, 'purge example.com tag:css in 2h');
    const list = await commandReply(h, 'purge scheduled', { user: OTHER });
    const text = textOf(list.blocks);
    expect(text).toContain('1 URL on *example.com*');
    expect(text).toContain('1 tag on *example.com*');
    const [first, second] = await queued(h);
    if (!first || !second) throw new Error('not scheduled');

    const refused = await commandReply(h, `purge cancel ${first.id.slice(0, 8)}`, { user: OTHER });
    expect(refused.text).toContain('Only the person who scheduled this purge, or an admin');
    const byAdmin = await commandReply(h, `purge cancel ${first.id.slice(0, 8)}`, { user: ADMIN });
    expect(textOf(byAdmin.blocks)).toContain(`Cancelled by <@${ADMIN}>`);
    await h.click(list, `${SCHEDULED_PURGE_IDS.cancel}_1`, { user: MEMBER });
    await h.slack.waitForMessages((m) => m === list && (m.text?.includes('cancelled') ?? false));
    expect(await queued(h)).toEqual([]);
    await passTime(h, 3 * 60 * 60_000);
    expect(purgeRequests(h)).toEqual([]);
    expect((await actions(h)).filter((a) => a === 'purge.scheduled.cancelled')).toHaveLength(2);
  });

  it('is checked again when it runs: a requester no longer an operator is not run, and told', async () => {
    const h = await startHarness();
    await h.login();
    await commandReply(h, 'purge example.com /a.css in 30m');
    // Operators become a group MEMBER is not in, before the purge's time.
    h.slack.addUsergroup('S0OPS', 'cdn-operators', [OTHER]);
    await h.store.workspaces.update(h.workspaceId, { operatorGroupId: 'S0OPS' });
    await passTime(h, 30 * 60_000);
    const [notice] = await skippedNotice(h);
    expect(notice?.text).toContain('Your scheduled purge did not run');
    expect(textOf(notice?.blocks)).toContain('CDN operators group can purge');
    expect(purgeRequests(h)).toEqual([]);
    const [skipped] = await h.store.audit.recent(h.workspaceId);
    expect(skipped).toMatchObject({
      action: 'purge.scheduled.skipped',
      actorId: MEMBER,
      outcome: 'refused',
      detail: { reason: 'not_operator' },
    });
  });

  it('asks the freezes when it comes due: a freeze declared since refuses it, and the requester is told', async () => {
    const h = await startHarness();
    await h.login();
    await commandReply(h, 'purge example.com tag:css in 30m');
    // Declared after the purge was asked (nothing refused it then), in force when it is due.
    const declared = await commandReply(
      h,
      'freeze add example.com 2026-11-22 10:15 → 2026-11-22 12:00 tz:UTC --purges Incident review',
      { user: ADMIN },
    );
    expect(declared.text).toContain('declared on *example.com*');
    await passTime(h, 30 * 60_000);
    const [notice] = await skippedNotice(h);
    expect(textOf(notice?.blocks)).toContain('Incident review');
    expect(purgeRequests(h)).toEqual([]);
    const [skipped] = await h.store.audit.recent(h.workspaceId);
    expect(skipped).toMatchObject({
      action: 'purge.scheduled.skipped',
      actorId: MEMBER,
      detail: { reason: 'frozen' },
    });
  });

  it('purge-everything for later: approved, it runs at its time and not at the approval', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverythingLater(h, 'in 2h');
    expect(textOf(message.blocks)).toContain('Scheduled for');
    const viewId = await openApprove(h, message, ADMIN);
    expect((await h.submit(viewId, {}, { user: ADMIN })).body).toBe('');
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('approved, scheduled') ?? false),
    );
    await passTime(h, 60 * 60_000);
    expect(everythingRequests(h)).toEqual([]);
    await passTime(h, 60 * 60_000);
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
  });

  it('purge-everything for later left unapproved does not run, and its requester is told', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverythingLater(h, 'in 2h');
    await passTime(h, 2 * 60 * 60_000);
    const [notice] = await skippedNotice(h);
    expect(textOf(notice?.blocks)).toContain(
      'Nobody approved the purge of everything on example.com before its time, so it did not run.',
    );
    await h.slack.waitForMessages((m) => m === message && (m.text?.includes('expired') ?? false));
    expect(everythingRequests(h)).toEqual([]);
    expect(await actions(h)).toEqual([
      'purge.everything.requested',
      'purge.scheduled',
      'purge.everything.expired',
      'purge.scheduled.skipped',
    ]);
  });
});

/** MEMBER asks to purge everything on example.com `when`; resolves with the request message. */
async function requestEverythingLater(h: Harness, when: string) {
  const viewId = await openForm(h, `purge example.com everything ${when}`, { user: MEMBER });
  const values = {
    [PURGE_IDS.confirmBlock]: {
      [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'example.com' },
    },
    [PURGE_IDS.reasonBlock]: {
      [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'Release at night' },
    },
  };
  expect((await h.submit(viewId, values, { user: MEMBER })).body).toBe('');
  const [message] = await h.slack.waitForMessages(
    (m) =>
      m.via === 'api' && m.channel === CHANNEL && (m.text?.includes('Approval needed') ?? false),
  );
  if (!message) throw new Error('no request message');
  return message;
}
