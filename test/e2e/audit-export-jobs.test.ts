// The audit export as a durable job, over the real runner, the injected clock and one SQLite file
// shared by a stopped and restarted app: a restart after Slack shared the file (but before the job
// knew) shares it once, a second export is refused while one is queued or running, Slack failing
// every time ends in one failure DM, a requester who became a guest before the job ran gets a
// short DM and no file, and one deactivated since gets no file either.
import { describe, expect, it } from 'vitest';
import { ADMIN, type Harness, MEMBER, startHarness } from './harness.js';

const DM = `D${MEMBER}`;

async function withEntries(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness(options);
  // The account the entries' zone is of (keyless: the entries are all this test needs).
  const account = await h.store.accounts.create(h.workspaceId, {
    name: 'default',
    by: { userId: ADMIN, validated: false },
  });
  for (let i = 0; i < 30; i++) {
    await h.store.audit.record({
      workspaceId: h.workspaceId,
      actorId: i % 2 ? ADMIN : MEMBER,
      action: 'purge.urls',
      zoneId: 'zone_x',
      zoneName: 'example.com',
      accountId: account.id,
      outcome: 'ok',
      detail: { files: i + 1 },
    });
    h.clock.advance(60_000);
  }
  return h;
}

const calls = (h: Harness, method: string) => h.slack.callsTo(method).length;
/** The requester's first export job. */
const exportJob = (h: Harness) => h.store.jobs.byKey(`audit-export:${h.workspaceId}:${MEMBER}:1`);
const dms = (h: Harness) =>
  h.slack.messages.filter((m) => m.channel === DM && m.via === 'api' && !m.ephemeralTo);

describe('audit export jobs', () => {
  it('resumes after a restart from its checkpoint and, Slack having shared the file, shares it once', async () => {
    // The share's answer is late past the client's timeout: Slack shares the file, the job
    // sees a failure and keeps its checkpoint ("sharing"); then the app is stopped and started.
    const h = await withEntries({ env: { SLACK_BACKGROUND_TIMEOUT_MS: '1000' } });
    h.slack.inject({ method: 'files.completeUploadExternal', kind: 'latency', ms: 2_500 });
    await h.command('audit export');
    await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal');
    await h.deps.runner.settled();
    const before = await exportJob(h);
    expect(before?.state).toBe('queued');
    expect(before?.checkpoint).toMatchObject({ rows: 30, sharing: true });

    await h.restart();
    h.clock.advance(120_000);
    await h.deps.runner.settled();
    expect((await exportJob(h))?.state).toBe('succeeded');
    // Asked Slack first, found it shared: no new file, no second share, no failure DM.
    expect(calls(h, 'files.info')).toBeGreaterThanOrEqual(1);
    expect(calls(h, 'files.getUploadURLExternal')).toBe(1);
    expect(calls(h, 'files.completeUploadExternal')).toBe(1);
    expect(dms(h).filter((m) => m.text?.includes('could not be made'))).toHaveLength(0);
    const shared = [...h.slack.files.values()].filter((f) => f.completed);
    expect(shared).toHaveLength(1);
    expect(shared[0]?.channel).toBe(DM);
  });

  it('refuses a second export while one is queued, and while it runs', async () => {
    const h = await withEntries();
    // Queued: no runner claims it yet (every replica busy, or a deploy under way).
    await h.deps.runner.stop();
    await h.command('audit export');
    await h.command('audit export kind:purge');
    const told = await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER, 2);
    expect(told.map((m) => m.text)).toContainEqual(
      expect.stringContaining('Your audit export is still being made: one at a time.'),
    );

    // Running: held at its upload.
    h.slack.inject({ method: 'files.getUploadURLExternal', kind: 'hang' });
    await h.restart();
    await new Promise((resolve) => h.slack.once('fault', resolve));
    expect((await exportJob(h))?.state).toBe('running');
    await h.command('audit export');
    const again = await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER, 3);
    expect(again[2]?.text).toContain('Your audit export is still being made: one at a time.');
    expect(await h.store.jobs.keyedLike(`audit-export:${h.workspaceId}:${MEMBER}:`)).toHaveLength(
      1,
    );
    // Slack gone: the held upload fails now, not at its 10 s timeout, and the app stops at once.
    await h.slack.close();
  });

  it('tells the requester once, in their DM, when Slack keeps failing the upload', async () => {
    const h = await withEntries();
    h.slack.inject({
      method: 'files.getUploadURLExternal',
      kind: 'status',
      status: 500,
      times: 99,
    });
    await h.command('audit export');
    await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER);
    // Each failed attempt is retried later on the clock, until the job gives up.
    for (let i = 0; i < 8 && (await exportJob(h))?.state !== 'failed'; i++) {
      await h.deps.runner.settled();
      h.clock.advance(120_000);
    }
    await h.deps.runner.settled();
    expect((await exportJob(h))?.state).toBe('failed');
    // Five attempts, each refused by Slack (a refused call is a fault hit, not a recorded call).
    expect(h.slack.faultHits.filter((f) => f.method === 'files.getUploadURLExternal')).toHaveLength(
      5,
    );
    expect(calls(h, 'files.completeUploadExternal')).toBe(0);
    const failed = dms(h).filter((m) => m.text?.includes('could not be made'));
    expect(failed).toHaveLength(1);
    expect(failed[0]?.text).toMatch(
      /^:x: Your audit export could not be made: .+\. Try again later\.$/,
    );
  });

  it('re-checks access when it runs: one who became a guest since the request gets a DM, no file', async () => {
    const h = await withEntries();
    await h.deps.runner.stop();
    await h.command('audit export');
    expect((await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER))[0]?.text).toContain(
      'Making your audit export',
    );
    h.slack.addUser({ id: MEMBER, name: 'bob', tz: 'America/New_York', isRestricted: true });
    await h.restart();
    await h.deps.runner.settled();
    expect((await exportJob(h))?.state).toBe('succeeded');
    expect(calls(h, 'files.getUploadURLExternal')).toBe(0);
    expect(calls(h, 'files.completeUploadExternal')).toBe(0);
    expect(dms(h).map((m) => m.text)).toEqual([
      ":no_entry_sign: Your audit export was not made: Guests can't read the audit log in this workspace.",
    ]);
  });

  it('re-checks access when it runs: one deactivated since the request gets no file', async () => {
    const h = await withEntries();
    await h.deps.runner.stop();
    await h.command('audit export');
    expect((await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER))[0]?.text).toContain(
      'Making your audit export',
    );
    // Deactivated: users.info says `deleted: true` (a minute on, past the directory's cache).
    h.slack.addUser({ id: MEMBER, name: 'bob', tz: 'America/New_York', deleted: true });
    h.clock.advance(60_000);
    await h.restart();
    await h.deps.runner.settled();
    // Done, not retried: nothing made, nothing uploaded or shared.
    expect((await exportJob(h))?.state).toBe('succeeded');
    expect(calls(h, 'files.getUploadURLExternal')).toBe(0);
    expect(calls(h, 'files.completeUploadExternal')).toBe(0);
    // The word it leaves is refused by Slack (a DM to a deactivated account), and nothing else is tried.
    expect(
      h.slack.calls.filter((c) => c.method === 'conversations.open').map((c) => c.response.error),
    ).toEqual(['user_disabled']);
    expect(dms(h)).toEqual([]);
  });

  it('refuses a deactivated person at the request too, and asks no file of Slack', async () => {
    const h = await withEntries();
    h.slack.addUser({ id: MEMBER, name: 'bob', tz: 'America/New_York', deleted: true });
    await h.command('audit export');
    expect((await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER))[0]?.text).toBe(
      "Your account in this workspace is deactivated, so you can't read the audit log here.",
    );
    await h.command('audit');
    expect((await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER, 2))[1]?.text).toBe(
      "Your account in this workspace is deactivated, so you can't read the audit log here.",
    );
    await h.deps.runner.settled();
    expect(await h.store.jobs.keyedLike(`audit-export:${h.workspaceId}:`)).toEqual([]);
  });
});
