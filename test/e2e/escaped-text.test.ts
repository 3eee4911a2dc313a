// Command and message text as real Slack sends it (`should_escape: true`: links, mentions and
// entities), through the signed HTTP receiver: every argument is read as the person typed it.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';

/** Posts /cdn with `text` exactly as written here: Slack's escaped form, spelled out. */
function escaped(h: Harness, text: string, user = MEMBER) {
  const fields = new SlackPayloads(h.slack, h.workspaceId).slashCommand(text, {
    user,
    channel: CHANNEL,
    raw: true,
  });
  return h.post(new URLSearchParams(fields).toString(), FORM);
}

const purgeBodies = (h: Harness) =>
  h.sandbox.requests.filter((r) => r.path.endsWith('/purge')).map((r) => r.body);

describe('escaped command text', () => {
  it('is what the fake Slack sends for typed text, as real Slack does', async () => {
    const h = await startHarness();
    h.slack.addChannel({ id: 'CREPORTS', name: 'reports', botMember: true });
    h.slack.addUsergroup('S0SRE', 'sre', [ADMIN]);
    const typed = (text: string) =>
      new SlackPayloads(h.slack, h.workspaceId).slashCommand(text, {
        user: MEMBER,
        channel: CHANNEL,
      }).text;
    expect(typed('purge example.com https://example.com/a.css?v=1&w=2 /x.css')).toBe(
      'purge <http://example.com|example.com> <https://example.com/a.css?v=1&amp;w=2> /x.css',
    );
    expect(typed('watch example.com requests>50k/5m hitrate<80%')).toBe(
      'watch <http://example.com|example.com> requests&gt;50k/5m hitrate&lt;80%',
    );
    expect(typed('report example.com daily 7:30 #reports @sre @bob @here a@b.co #nowhere')).toBe(
      'report <http://example.com|example.com> daily 7:30 <#CREPORTS|reports> <!subteam^S0SRE|@sre> <@UMEMBER|bob> <!here> <mailto:a@b.co|a@b.co> #nowhere',
    );
  });

  it('purges a linkified zone’s URLs, entities in a query decoded once', async () => {
    const h = await startHarness({ login: true });
    await escaped(
      h,
      'purge <http://example.com|example.com> <https://example.com/a.css> <https://example.com/c.css?v=1&amp;w=2>',
    );
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(purgeBodies(h)).toEqual([
      { files: ['https://example.com/a.css', 'https://example.com/c.css?v=1&w=2'] },
    ]);
  });

  it('watches a linkified zone with thresholds whose > and < arrive as entities', async () => {
    const h = await startHarness({ login: true });
    await escaped(h, 'watch <http://example.com|example.com> requests&gt;50k/5m hitrate&lt;80%');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    const watches = await h.store.watches.listForWorkspace(h.workspaceId);
    expect(watches).toMatchObject([
      { zoneName: 'example.com', rules: ['requests>50000/5m', 'hitrate<80%'] },
    ]);
  });

  it('schedules a report for a linkified zone into a mentioned channel', async () => {
    const h = await startHarness({ login: true });
    h.slack.addChannel({ id: 'CREPORTS', name: 'reports', botMember: true });
    await escaped(h, 'report <http://example.com|example.com> daily 7:30 <#CREPORTS|reports>');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toMatchObject([
      { zoneName: 'example.com', channelId: 'CREPORTS', timeOfDay: '07:30' },
    ]);
  });

  it('sets operators from a group mention, with or without its handle', async () => {
    const h = await startHarness({ login: true });
    h.slack.addUsergroup('S0SRE', 'sre', [ADMIN]);
    await escaped(h, 'config operators <!subteam^S0SRE|@sre>', ADMIN);
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect((await h.store.workspaces.get(h.workspaceId))?.operatorGroupId).toBe('S0SRE');
    await escaped(h, 'config approvers <!subteam^S0SRE>', ADMIN);
    await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect((await h.store.workspaces.get(h.workspaceId))?.approverGroupId).toBe('S0SRE');
  });

  it('creates a linkified domain, an IDN linked by its punycode too', async () => {
    const h = await startHarness({ login: true });
    await escaped(h, 'create <http://shop.example.dev|shop.example.dev> pro');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    await escaped(h, 'create <http://xn--bcher-kva.example|bücher.example>');
    await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([
      { name: 'shop.example.dev', plan: 'pro' },
      { name: 'xn--bcher-kva.example', plan: 'free' },
    ]);
  });

  it('makes a linkified zone the channel’s default, and turns its rate limit on', async () => {
    const h = await startHarness({ login: true });
    await escaped(h, 'use <http://example.com|example.com>');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(await h.deps.channels.current(h.workspaceId, CHANNEL)).toMatchObject({
      kind: 'set',
      binding: { zoneName: 'example.com' },
    });
    await escaped(h, 'ratelimit <http://example.com|example.com> on');
    // The rate limit's notice is a bot message, corrected in place once every edge has it.
    await h.slack.waitForMessages((m) => m.via === 'api');
    expect(h.sandbox.state.byName('example.com')?.limits.enabled).toBe(true);
  });
});

describe('a message shortcut on Slack-formatted text', () => {
  it('prefills the purge form with the links’ URLs, entities decoded once', async () => {
    const h = await startHarness({ login: true });
    const payload = new SlackPayloads(h.slack, h.workspaceId).messageShortcut(
      PURGE_IDS.shortcut,
      {
        channel: CHANNEL,
        ts: '1795000000.000100',
        text: 'stale: <https://example.com/a.css> and (<https://example.com/c.css?v=1&amp;w=2|the query>) &amp; more',
      },
      { user: MEMBER, raw: true },
    );
    await h.post(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), FORM);
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const view = opened?.args.view as {
      blocks: Array<{ block_id: string; element: Record<string, unknown> }>;
    };
    expect(
      view.blocks.find((b) => b.block_id === PURGE_IDS.itemsBlock)?.element.initial_value,
    ).toBe('https://example.com/a.css\nhttps://example.com/c.css?v=1&w=2');
  });
});
