// The same signed delivery three times (Slack's retries, or a captured request replayed inside
// its five minutes): one run, one CDN call, and an empty 200 for each repeat.
import { describe, expect, it } from 'vitest';
import { everythingRequests, openApprove, pendingApprovals, requestEverything } from './flows.js';
import { ADMIN, CHANNEL, startHarness } from './harness.js';

describe('a delivery replayed three times', () => {
  it('a command runs once', async () => {
    const h = await startHarness({ login: true });
    const first = await h.command('purge example.com https://example.com/app.css');
    const repeats = [await h.replayLast(), await h.replayLast()];
    expect([first.status, ...repeats.map((r) => r.status)]).toEqual([200, 200, 200]);
    expect(repeats.map((r) => r.body)).toEqual(['', '']);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.deps.runner.settled();
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/purge'))).toHaveLength(1);
    expect(h.slack.messages.filter((m) => m.text?.startsWith('Purged'))).toHaveLength(1);
  });

  it('a modal submission runs once, and a corrected one still runs', async () => {
    const h = await startHarness({ login: true });
    // requestEverything submits twice with mistakes, then the right form: that last is replayed.
    await requestEverything(h);
    await h.replayLast();
    await h.replayLast();
    const requests = h.slack.messages.filter(
      (m) => m.channel === CHANNEL && (m.text?.includes('Approval needed') ?? false),
    );
    expect(requests).toHaveLength(1);
    expect(await pendingApprovals(h)).toHaveLength(1);
  });

  it('an approval click and the approval itself run once: one purge_everything', async () => {
    const h = await startHarness({ login: true });
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, ADMIN);
    await h.replayLast();
    await h.replayLast();
    expect(h.slack.callsTo('views.open').filter((c) => c.args.trigger_id)).toHaveLength(2);
    await h.submit(viewId, {}, { user: ADMIN });
    await h.replayLast();
    await h.replayLast();
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    await h.deps.runner.settled();
    expect(everythingRequests(h)).toHaveLength(1);
    const audit = await h.store.audit.recent(h.workspaceId, { limit: 20 });
    expect(audit.filter((e) => e.action === 'purge.everything')).toHaveLength(1);
  });
});
