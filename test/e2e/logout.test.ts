// /cdn logout end to end: it asks first, saying what stops; logging out pauses the workspace's
// watches and reports (nothing runs, every row stays) until a key is set again; deleting them is
// a choice of its own.
import { describe, expect, it } from 'vitest';
import { LOGOUT_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { commandReply, interval, openHome, watching } from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const HOUR = 3_600_000;

/** The answer to the next command. */
const answer = (h: Harness, text: string, user = MEMBER) => commandReply(h, text, { user });

/** Clicks a button of `message` and waits for the message to be replaced by what `expected` says. */
async function choose(h: Harness, message: Message, actionId: string, expected: string) {
  await h.click(message, actionId, { user: ADMIN });
  await h.slack.waitForMessages((m) => m === message && textOf(m.text).includes(expected));
}

/** A workspace with a watch of example.com, a daily report of it, and a channel default. */
async function busyWorkspace(h: Harness): Promise<void> {
  await watching(h, 'example.com');
  await answer(h, 'report example.com daily');
  await answer(h, 'use example.com');
}

const zoneRequests = (h: Harness) =>
  h.sandbox.requests.filter((r) => r.path.endsWith('/analytics/traffic')).length;

describe('/cdn logout', () => {
  it('asks first, saying what stops, and changes nothing until confirmed (Cancel changes nothing)', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    await busyWorkspace(h);
    const question = await answer(h, 'logout', ADMIN);
    expect(question.ephemeralTo).toBe(ADMIN);
    const asked = textOf(question.blocks);
    expect(asked).toContain('Log out of the CDN?');
    expect(asked).toContain(`1 watch* to pause: *example.com* → <#${CHANNEL}>`);
    expect(asked).toContain(`1 daily report* to pause: *example.com* → <#${CHANNEL}> at 09:00`);
    expect(asked).toContain(`1 channel default zone* (\`/cdn use\`) is cleared: <#${CHANNEL}>`);
    expect(asked).toContain('Log out and delete watches and reports');
    // Nothing changed yet.
    expect(await h.store.credentials.status(h.workspaceId)).toBeDefined();
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toHaveLength(1);
    expect(
      await h.store.channelBindings.keyGeneration(h.workspaceId, await h.loginAccountId()),
    ).toBeDefined();

    await choose(h, question, LOGOUT_IDS.cancel, 'nothing changed');
    expect(await h.store.credentials.status(h.workspaceId)).toBeDefined();
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toHaveLength(1);
    expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toHaveLength(1);
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions).not.toContain('credentials.remove');
  });

  it('is for admins only, asked or confirmed', async () => {
    const h = await startHarness({ login: true });
    const refused = await answer(h, 'logout', MEMBER);
    expect(refused.text).toContain('Only workspace admins');
    const question = await answer(h, 'logout', ADMIN);
    // The question reached a member (forwarded, say): their click is refused too.
    await h.click(question, LOGOUT_IDS.confirm, { user: MEMBER });
    await h.slack.waitForMessages(
      (m) => m.ephemeralTo === MEMBER && (m.text?.includes('Only workspace admins') ?? false),
      2,
    );
    expect(await h.store.credentials.status(h.workspaceId)).toBeDefined();
  });

  it('pauses watches and reports (rows kept, nothing run, lists say why) and resumes them at login', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    await busyWorkspace(h);
    const [report] = await h.store.schedules.listForWorkspace(h.workspaceId);
    const question = await answer(h, 'logout', ADMIN);
    await choose(
      h,
      question,
      LOGOUT_IDS.confirm,
      'The API key of the CDN account `default` is removed',
    );
    expect(textOf(question.text)).toContain(
      '1 watch and 1 daily report are paused: they resume by themselves once an admin runs `/cdn login`. 1 channel default zone was cleared.',
    );
    expect(await h.store.credentials.status(h.workspaceId)).toBeUndefined();
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toHaveLength(1);
    expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toEqual([
      expect.objectContaining({ id: report?.id, status: 'active' }),
    ]);
    expect(await h.store.channelBindings.clear(h.workspaceId, CHANNEL)).toBe(false);

    // Past the report's time (09:00 in New York, 14:00 UTC) and many intervals: nothing runs.
    const before = zoneRequests(h);
    h.clock.advance(4 * HOUR + 5 * 60_000);
    await interval(h, 3);
    expect(await h.deps.reports.tick()).toEqual({ queued: 0, skipped: 0 });
    await h.deps.runner.settled();
    expect(zoneRequests(h)).toBe(before);
    const jobs = await h.store.db.selectFrom('jobs').select('kind').execute();
    expect(jobs.filter((j) => j.kind === 'daily_report')).toEqual([]);

    // The lists and the App Home say they are paused, and why.
    expect(textOf((await answer(h, 'watch list')).blocks)).toContain(
      'paused: no CDN key (`/cdn login` resumes it)',
    );
    expect(textOf((await answer(h, 'report list')).blocks)).toContain(
      'paused: no CDN key (`/cdn login` resumes it)',
    );
    expect(textOf((await openHome(h, MEMBER)).view)).toContain('paused: no CDN key');

    // A key again: both run by themselves, the report late (within its catch-up) but once.
    await h.login();
    await interval(h);
    expect(zoneRequests(h)).toBeGreaterThan(before);
    expect(await h.deps.reports.tick()).toEqual({ queued: 1, skipped: 0 });
    expect(textOf((await answer(h, 'report list')).blocks)).not.toContain('no CDN key');
  });

  it('deletes the watches and reports when that is chosen, and says so', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    await busyWorkspace(h);
    const question = await answer(h, 'logout', ADMIN);
    await choose(
      h,
      question,
      LOGOUT_IDS.delete,
      'The API key of the CDN account `default` is removed. 1 watch and 1 daily report are deleted.',
    );
    expect(await h.store.credentials.status(h.workspaceId)).toBeUndefined();
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toEqual([]);
    expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toEqual([]);
    await h.login();
    expect(await h.deps.watchEvaluation.tick()).toBe(0);
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['credentials.remove', 'watches_reports.delete']),
    );
  });

  it('without a key, offers only to delete what waits for one', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    await busyWorkspace(h);
    await choose(h, await answer(h, 'logout', ADMIN), LOGOUT_IDS.confirm, 'is removed');
    const again = await answer(h, 'logout', ADMIN);
    expect(textOf(again.blocks)).toContain('has no CDN API key');
    expect(textOf(again.blocks)).not.toContain('Log out and delete');
    await choose(h, again, LOGOUT_IDS.delete, '1 watch and 1 daily report are deleted');
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toEqual([]);
    expect((await answer(h, 'logout', ADMIN)).text).toContain('There was no CDN API key to remove');
  });
});
