// What a person can do in Slack behind the bot's back (delete its message, archive the channel,
// remove the bot), and how the work they asked for still finishes and still reaches them.
import { describe, expect, it } from 'vitest';
import { pendingApprovals, requestEverything } from './flows.js';
import { startHarness } from './harness.js';

describe('a deleted request message', () => {
  it('frees its zone: a new request replaces the one nobody can see or decide', async () => {
    const h = await startHarness({ login: true });
    const first = await requestEverything(h);
    h.slack.deleteAsPerson(first);
    const second = await requestEverything(h);
    expect(second.ts).not.toBe(first.ts);
    expect(await pendingApprovals(h)).toHaveLength(1);
    const cancelled = await h.store.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'purge.everything.cancelled')
      .execute();
    expect(cancelled).toHaveLength(1);
  });
});
