import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { PURGE_JOB } from '../../src/services/purge/purge-job.js';
import { openForm, purgeFormValues } from './flows.js';
import { CHANNEL, MEMBER, startHarness, textOf } from './harness.js';

const urls = (count: number, host = 'example.com') =>
  Array.from({ length: count }, (_, i) => `https://${host}/assets/${i}.js`);
const purgeRequests = (h: Awaited<ReturnType<typeof startHarness>>) =>
  h.sandbox.requests.filter((r) => r.path.endsWith('/purge'));

describe('/cdn purge with URLs and tags', () => {
  it('purges URLs of a named zone (as Slack escapes them) and says so in the channel', async () => {
    const h = await startHarness();
    await h.login();
    await h.command('purge example.com https://example.com/a.css https://www.example.com/b.js');
    // A bot message in the channel (so that it can be edited: a command's response_url cannot).
    const [reply] = await h.slack.waitForMessages(
      (m) => m.via === 'api' && (m.text?.startsWith('Purged') ?? false),
    );
    expect(reply?.ephemeralTo).toBeUndefined();
    expect(textOf(reply?.blocks)).toContain(`<@${MEMBER}> purged 2 URLs on *example.com*`);
    expect(purgeRequests(h).map((r) => r.body)).toEqual([
      { files: ['https://example.com/a.css', 'https://www.example.com/b.js'] },
    ]);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      action: 'purge.urls',
      zoneName: 'example.com',
      outcome: 'ok',
      detail: { files: 2, requests: 1 },
    });
    expect(audit?.detail?.purgeIds).toEqual([expect.stringMatching(/^purge_/)]);
  });

  it('purges cache tags', async () => {
    const h = await startHarness();
    await h.login();
    await h.command('purge example.com tag:product-42 tag:css tag:css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(purgeRequests(h).map((r) => r.body)).toEqual([{ tags: ['product-42', 'css'] }]);
  });

  it('infers the zone of each URL (longest match) and groups them', async () => {
    const h = await startHarness();
    await h.login();
    await h.command(
      'purge https://static.example.com/x https://www.example.com/y https://shop.example.org/z https://cdn.static.example.com/w',
    );
    const [reply] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    const byZone = Object.fromEntries(
      purgeRequests(h).map((r) => [
        h.sandbox.state.byId(r.path.split('/')[2] ?? '')?.name,
        (r.body as { files: string[] }).files,
      ]),
    );
    expect(byZone).toEqual({
      'static.example.com': ['https://static.example.com/x', 'https://cdn.static.example.com/w'],
      'example.com': ['https://www.example.com/y'],
      'shop.example.org': ['https://shop.example.org/z'],
    });
    expect(textOf(reply?.blocks)).toContain('3 requests to the CDN');
  });

  it('refuses out-of-zone URLs and sends nothing at all', async () => {
    const h = await startHarness();
    await h.login();
    await h.command(
      'purge example.com https://example.com/ok.css https://example.org/x.css ftp://example.com/y',
    );
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.ephemeralTo).toBe(MEMBER);
    expect(reply?.text).toBe('Nothing was purged: 2 items were refused.');
    expect(textOf(reply?.blocks)).toContain('no zone in this workspace serves example.org');
    expect(textOf(reply?.blocks)).toContain('only http:// and https:// URLs can be purged');
    expect(purgeRequests(h)).toEqual([]);
  });

  it('sends 95 URLs as 4 requests of at most 30', async () => {
    const h = await startHarness();
    await h.login();
    await h.command(`purge example.com ${urls(95).join(' ')}`);
    const [reply] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(reply?.text).toBe('Purged 95 items on example.com');
    expect(
      purgeRequests(h)
        .map((r) => (r.body as { files: string[] }).files.length)
        .sort((a, b) => b - a),
    ).toEqual([30, 30, 30, 5]);
  });

  it('says a batch that got a 503 as not confirmed (it may have been purged), and its button sends just those URLs again', async () => {
    const h = await startHarness();
    await h.login();
    h.sandbox.inject({ kind: 'status', status: 503, method: 'POST', path: /purge$/ });
    await h.command(`purge example.com ${urls(95).join(' ')}`);
    const [reply] = await h.slack.waitForMessages(
      (m) => m.text?.includes('not confirmed') ?? false,
    );
    if (!reply) throw new Error('no reply');
    const unknown = 95 - h.sandbox.state.purges.flatMap((p) => p.items).length;
    expect(reply.text).toBe(`Purge on example.com: ${unknown} of 95 not confirmed`);
    expect(textOf(reply.blocks)).toContain(
      `purged ${95 - unknown} of 95 on *example.com*; ${unknown} not confirmed: the CDN did not answer, they may have been purged.`,
    );
    expect(textOf(reply.blocks)).not.toContain('failed');
    expect(textOf(reply.blocks)).toContain('The CDN API is having trouble (Injected 503)');
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      outcome: 'partial',
      detail: { failed: 0, unconfirmed: unknown, errors: ['unavailable'] },
    });

    await h.click(reply, `${PURGE_IDS.retry}_0`);
    const [retry] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(textOf(retry?.blocks)).toContain(`purged ${unknown} URLs on *example.com* (retry)`);
    expect(new Set(h.sandbox.state.purges.flatMap((p) => p.items))).toEqual(new Set(urls(95)));
    expect(purgeRequests(h)).toHaveLength(5);
  });

  it('says a batch whose request timed out as not confirmed, not failed, and logs it', async () => {
    // Each attempt may take 300 ms; the CDN does the work of one batch and never answers it.
    const h = await startHarness({
      env: { CDN_ATTEMPT_TIMEOUT_MS: '300', CDN_OPERATION_TIMEOUT_MS: '60000' },
    });
    await h.login();
    h.sandbox.inject({ kind: 'hang', after: true, method: 'POST', path: /purge$/ });
    await h.command(`purge example.com ${urls(95).join(' ')}`);
    const [reply] = await h.slack.waitForMessages(
      (m) => m.via === 'api' && !(m.text?.startsWith('Purging') ?? true),
    );
    if (!reply) throw new Error('no reply');
    // The hung batch was purged all the same: only the bot cannot know it.
    expect(h.sandbox.state.purges.flatMap((p) => p.items)).toHaveLength(95);
    const unknown = purgeRequests(h).find((r) => r.status === 0);
    const size = (unknown?.body as { files: string[] } | undefined)?.files.length;
    expect(reply.text).toBe(`Purge on example.com: ${size} of 95 not confirmed`);
    expect(textOf(reply.blocks)).toContain(
      `:grey_question: <@${MEMBER}> purged ${95 - (size ?? 0)} of 95 on *example.com*; ${size} not confirmed: the CDN did not answer, they may have been purged.`,
    );
    expect(textOf(reply.blocks)).not.toContain('failed');
    expect(textOf(reply.blocks)).toContain(`Send the ${size} again`);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({ outcome: 'partial', detail: { failed: 0, unconfirmed: size } });
    const warning = JSON.parse(await h.logs.waitFor('purge batch outcome unknown'));
    expect(warning).toMatchObject({ level: 40, code: 'timeout', batchSize: size });
    expect(warning.zoneId).toBe(h.sandbox.state.byName('example.com')?.id);
  });

  it('updates one message with progress, then the result', async () => {
    const h = await startHarness();
    await h.login();
    // Every version of the message, as Slack shows it after each post or edit.
    const seen: string[] = [];
    h.slack.on('response', (message) => seen.push(`${message.via} ${message.text}`));
    await h.command(`purge example.com ${urls(300).join(' ')}`);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    // One bot message, posted, then edited in place with chat.update.
    expect(seen).toEqual([
      'api Purging: 0/300',
      expect.stringMatching(/^api Purging: 1\d\d\/300$/),
      expect.stringMatching(/^api Purging: 2\d\d\/300$/),
      'api Purged 300 items on example.com',
    ]);
    expect(h.slack.messages).toHaveLength(1);
  });

  it('never leaves "Purging…" in the channel: a purge that keeps failing ends, retryable', async () => {
    const h = await startHarness();
    await h.login();
    // Every attempt fails after the first batch: the database refuses the second checkpoint (of
    // batches that ended together, only the first is written).
    const completeSteps = h.store.jobs.completeSteps.bind(h.store.jobs);
    let written = false;
    h.store.jobs.completeSteps = async (jobId, owner, results) => {
      if (written) throw new Error('database unavailable');
      written = true;
      const closed = await completeSteps(jobId, owner, results.slice(0, 1));
      if (results.length > 1) throw new Error('database unavailable');
      return closed;
    };
    await h.command(`purge example.com ${urls(200).join(' ')}`);
    await h.slack.waitForMessages((m) => m.text === 'Purging: 0/200');
    // Each retry waits longer (on the test's clock); after the fifth the purge is given up.
    for (let attempt = 0; attempt < 6; attempt++) {
      h.clock.advance(70_000);
      await h.deps.runner.settled();
    }
    // The first batch went out; the others were never sent and can be retried from the button.
    const [final] = await h.slack.waitForMessages(
      (m) => m.text === 'Purge on example.com: 170 of 200 failed',
    );
    expect(textOf(final?.blocks)).toContain('Retry the 170 that failed');
    const [job, ...others] = await h.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', PURGE_JOB)
      .execute();
    expect(others).toEqual([]);
    expect(job).toMatchObject({ state: 'failed', error: 'too many attempts' });
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({ action: 'purge.urls', outcome: 'partial' });
  });

  it('purges from the form, with the zone picked', async () => {
    const h = await startHarness();
    await h.login();
    const viewId = await openForm(h, 'purge');
    const refused = JSON.parse(
      (
        await h.submit(
          viewId,
          purgeFormValues(h, 'https://example.com/a\nhttps://elsewhere.org/b\nftp://x'),
        )
      ).body,
    );
    expect(refused.errors[PURGE_IDS.itemsBlock]).toContain(
      'no zone in this workspace serves elsewhere.org',
    );
    expect(purgeRequests(h)).toEqual([]);

    const closed = await h.submit(
      viewId,
      purgeFormValues(h, 'https://example.com/a\nhttps://example.com/b, https://example.com/a'),
    );
    expect(closed.body).toBe('');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(purgeRequests(h).map((r) => r.body)).toEqual([
      { files: ['https://example.com/a', 'https://example.com/b'] },
    ]);
  });

  it('opens the form prefilled from a message’s URLs (the message shortcut)', async () => {
    const h = await startHarness();
    await h.login();
    const message: Pick<Message, 'channel' | 'ts' | 'text'> = {
      channel: CHANNEL,
      ts: '1795000000.000100',
      text: 'stale: https://static.example.com/app.css and https://static.example.com/app.js',
    };
    await h.shortcut(PURGE_IDS.shortcut, message as { channel: string; ts: string; text: string });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const view = opened?.args.view as {
      blocks: Array<{ block_id: string; element: Record<string, unknown> }>;
    };
    const items = view.blocks.find((b) => b.block_id === PURGE_IDS.itemsBlock)?.element
      .initial_value;
    expect(items).toBe('https://static.example.com/app.css\nhttps://static.example.com/app.js');
    const picked = view.blocks.find((b) => b.block_id === PURGE_IDS.zoneBlock)?.element
      .initial_option as { value: string };
    expect(picked.value).toBe(h.sandbox.state.byName('static.example.com')?.id);
  });

  it('lists the last changes with /cdn audit', async () => {
    const h = await startHarness();
    await h.login();
    await h.command('purge example.com https://example.com/a');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.command('audit example.com');
    const [log] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(log?.ephemeralTo).toBe(MEMBER);
    expect(textOf(log?.blocks)).toContain('`purge.urls` on *example.com* · ok');
  });
});
