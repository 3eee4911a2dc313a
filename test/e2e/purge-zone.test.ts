// `/cdn purge <zone> <url>…` where the zone named does not serve some URLs, over the signed HTTP
// receiver against the CDN sandbox: each such URL is refused naming the zone that serves it (the
// longest zone name its host ends with), nothing is purged until the requester confirms, confirm
// purges only the rest on the zone named, and cancel purges nothing. The purge form asks the same.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { openForm, purgeFormValues } from './flows.js';
import { MEMBER, OTHER, startHarness, textOf } from './harness.js';

type Harness = Awaited<ReturnType<typeof startHarness>>;

const purgeRequests = (h: Harness) =>
  h.sandbox.requests
    .filter((r) => r.path.endsWith('/purge'))
    .map((r) => ({
      zone: h.sandbox.state.byId(r.path.split('/')[2] ?? '')?.name,
      body: r.body,
    }));

/** The question the command answers with: ephemeral, to the requester, with its two buttons. */
async function question(h: Harness): Promise<Message> {
  const [asked] = await h.slack.waitForMessages(
    (m) => m.via === 'response_url' && (m.text?.startsWith('Purge the') ?? false),
  );
  if (!asked) throw new Error('no question');
  return asked;
}

const MIXED =
  'purge example.com https://static.example.com/a.css https://example.com/b.css https://a.static.example.com/c.css https://www.example.com/d.js';

describe('/cdn purge <zone> with URLs another zone serves', () => {
  it('refuses each naming the zone serving it (the longest), purges nothing, and on confirm only the rest on the zone named', async () => {
    const h = await startHarness();
    await h.login();
    await h.command(MIXED);
    const asked = await question(h);
    expect(asked.ephemeralTo).toBe(MEMBER);
    expect(asked.text).toBe('Purge the 2 others on example.com? 2 URLs were refused.');
    const text = textOf(asked.blocks);
    expect(text).toContain('2 URLs are not served by *example.com* and were refused');
    expect(text).toContain(
      '`https://static.example.com/a.css`: served by the zone *static.example.com*',
    );
    // a.static.example.com is under static.example.com, the longer of the two zones it ends with.
    expect(text).toContain(
      '`https://a.static.example.com/c.css`: served by the zone *static.example.com*',
    );
    expect(text).toContain('Purge the 2 others');
    expect(text).toContain('Cancel');
    await h.deps.runner.settled();
    expect(purgeRequests(h)).toEqual([]);

    const before = structuredClone(asked);
    await h.click(asked, PURGE_IDS.holdConfirm);
    const [result] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(result?.text).toBe('Purged 2 items on example.com');
    expect(purgeRequests(h)).toEqual([
      {
        zone: 'example.com',
        body: { files: ['https://example.com/b.css', 'https://www.example.com/d.js'] },
      },
    ]);
    // The question became what was decided; a second click (from another device that still
    // shows the question) purges nothing more.
    await h.slack.waitForMessages(
      (m) => m.text?.includes('Purging the 2 others on *example.com*') ?? false,
    );
    await h.click(before, PURGE_IDS.holdConfirm);
    await h.slack.waitForMessages(
      (m) => m.text?.includes('This purge was already confirmed') ?? false,
    );
    await h.deps.runner.settled();
    expect(purgeRequests(h)).toHaveLength(1);
  });

  it('purges nothing when cancelled, nor on a confirm after it', async () => {
    const h = await startHarness();
    await h.login();
    await h.command(MIXED);
    const asked = await question(h);
    const buttons = structuredClone(asked);
    await h.click(asked, PURGE_IDS.holdCancel);
    await h.slack.waitForMessages((m) => m.text === 'Cancelled: nothing was purged.');
    // A confirm sent from the question as it was (a second device): refused.
    await h.click(buttons, PURGE_IDS.holdConfirm);
    await h.slack.waitForMessages(
      (m) => m.text?.includes('This purge was cancelled: nothing of it was purged.') ?? false,
    );
    await h.deps.runner.settled();
    expect(purgeRequests(h)).toEqual([]);
  });

  it('lets only the requester decide', async () => {
    const h = await startHarness();
    await h.login();
    await h.command(MIXED);
    const asked = await question(h);
    await h.click(asked, PURGE_IDS.holdConfirm, { user: OTHER });
    const [refused] = await h.slack.waitForMessages(
      (m) => m.text?.includes('Only the person who asked for this purge') ?? false,
    );
    expect(refused?.ephemeralTo).toBe(OTHER);
    await h.deps.runner.settled();
    expect(purgeRequests(h)).toEqual([]);
  });

  it('says when no zone of the workspace serves a URL', async () => {
    const h = await startHarness();
    await h.login();
    await h.command('purge example.com https://example.com/a https://nowhere.test/b');
    const asked = await question(h);
    expect(textOf(asked.blocks)).toContain(
      '`https://nowhere.test/b`: no zone of this workspace serves `nowhere.test`',
    );
    expect(textOf(asked.blocks)).toContain('Purge the 1 other');
  });

  it('refuses them all, purging nothing, when no URL of the zone named is left', async () => {
    const h = await startHarness();
    await h.login();
    await h.command('purge example.com https://static.example.com/a.css');
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.text).toBe('Nothing was purged: 1 item was refused.');
    expect(textOf(reply?.blocks)).toContain(
      'served by the zone static.example.com, not example.com',
    );
    expect(purgeRequests(h)).toEqual([]);
  });

  it('asks the same in the purge form: submitting purges the rest, on the zone picked', async () => {
    const h = await startHarness();
    await h.login();
    const viewId = await openForm(h, 'purge');
    const answer = await h.submit(
      viewId,
      purgeFormValues(h, 'https://example.com/a\nhttps://a.static.example.com/b'),
    );
    const updated = JSON.parse(answer.body) as { response_action: 'update'; view: never };
    expect(updated.response_action).toBe('update');
    // Slack shows it in place of the form, checked as views.update would check it.
    expect(h.slack.applyResponseAction(viewId, updated)).toMatchObject({ ok: true });
    expect(updated.view).toMatchObject({
      callback_id: PURGE_IDS.holdCallback,
      submit: { text: 'Purge the 1 other' },
      close: { text: 'Cancel' },
    });
    expect(textOf(updated.view)).toContain(
      '`https://a.static.example.com/b`: served by the zone *static.example.com*',
    );
    await h.deps.runner.settled();
    expect(purgeRequests(h)).toEqual([]);

    const closed = await h.submit(viewId, {});
    expect(closed.body).toBe('');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(purgeRequests(h)).toEqual([
      { zone: 'example.com', body: { files: ['https://example.com/a'] } },
    ]);
  });
});
