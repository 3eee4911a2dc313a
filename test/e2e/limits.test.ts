// Issue 32, item 2, through Slack: a watch past its rules limit is refused in one line that says
// the limit, how many, and how to raise it; an admin raises it with /cdn config limits, a member
// may not.
import { describe, expect, it } from 'vitest';
import { answerTo } from './flows.js';
import { ADMIN, MEMBER, startHarness } from './harness.js';

const elevenRules = Array.from({ length: 11 }, (_, i) => `requests>${i + 1}k/5m`).join(' ');

describe('/cdn config limits', () => {
  it('refuses an 11th rule in one line, and lets an admin (only) raise the limit', async () => {
    const h = await startHarness({ login: true });
    const watch = () =>
      answerTo(h, MEMBER, () => h.command(`watch example.com ${elevenRules}`, { user: MEMBER }));
    expect(await watch()).toBe(
      'A watch may have at most 10 thresholds, and this one would have 11; nothing was changed. A workspace admin can raise the limit with `/cdn config limits rules-per-watch &lt;number&gt;`.',
    );
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toEqual([]);

    const byMember = await answerTo(h, MEMBER, () =>
      h.command('config limits rules-per-watch 20', { user: MEMBER }),
    );
    expect(byMember).toMatch(/^Only workspace admins and owners can/);
    const usage = await answerTo(h, ADMIN, () =>
      h.command('config limits rules 20', { user: ADMIN }),
    );
    expect(usage).toContain('Usage: `/cdn config limits &lt;limit&gt; &lt;number&gt;`');
    const set = await answerTo(h, ADMIN, () =>
      h.command('config limits rules-per-watch 20', { user: ADMIN }),
    );
    expect(set).toBe('The rules-per-watch limit is now 20.');
    expect((await h.store.workspaces.ensure(h.workspaceId)).limits.rulesPerWatch).toBe(20);

    const answers = (m: { via?: string }) => m.via === 'response_url';
    const before = h.slack.messages.filter(answers).length;
    await h.command(`watch example.com ${elevenRules}`, { user: MEMBER });
    await h.slack.waitForMessages(answers, before + 1);
    const [stored] = await h.store.watches.listForWorkspace(h.workspaceId);
    expect(stored?.rules).toHaveLength(11);
  });
});
