// Channel binding end to end: a channel's default zone used by purge, analytics and ratelimit
// (and named in every answer), and purges limited to chosen channels, over the fake Slack and the
// sandbox.
import { describe, expect, it } from 'vitest';
import { CONFIG_IDS, PURGE_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { commandReply, openHome } from './flows.js';
import {
  ADMIN,
  CHANNEL,
  type Harness,
  MEMBER,
  OTHER,
  startHarness,
  textOf,
  viewIdOf,
} from './harness.js';

/** A second channel, with no default zone and (once purges are limited) no right to purge. */
const DEV = 'CDEV';

const purgeRequests = (h: Harness) => h.sandbox.requests.filter((r) => r.path.endsWith('/purge'));
const posts = (h: Harness) => h.sandbox.requests.filter((r) => r.method === 'POST');

describe('a channel default zone', () => {
  it('is used by purge, analytics and ratelimit, and each answer names it', async () => {
    const h = await startHarness();
    h.slack.addChannel({ id: DEV, name: 'dev', botMember: true });
    await h.login();
    const shop = h.sandbox.state.byName('shop.example.org');

    const set = await commandReply(h, 'use shop.example.org');
    expect(set.ephemeralTo).toBeUndefined();
    expect(textOf(set.blocks)).toContain(
      `<@${MEMBER}> made *shop.example.org* this channel's default zone`,
    );
    const shown = await commandReply(h, 'use', { user: OTHER });
    expect(shown.ephemeralTo).toBe(OTHER);
    expect(textOf(shown.blocks)).toContain("This channel's default zone is *shop.example.org*");

    // A bare path: a URL of the default zone.
    await h.command('purge /assets/app.css');
    const [purged] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(textOf(purged?.blocks)).toContain(
      `<@${MEMBER}> purged 1 URL on *shop.example.org* (this channel's default).`,
    );
    expect(purgeRequests(h).map((r) => [r.path, r.body])).toEqual([
      [`/zones/${shop?.id}/purge`, { files: ['https://shop.example.org/assets/app.css'] }],
    ]);

    // Full URLs still find their own zones by host name.
    await h.command('purge https://static.example.com/x.js');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    const statics = h.sandbox.state.byName('static.example.com');
    expect(purgeRequests(h)[1]?.path).toBe(`/zones/${statics?.id}/purge`);

    await h.command('analytics 6h');
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(String(complete?.args.initial_comment)).toContain(
      ":bar_chart: *shop.example.org* (this channel's default) · last 6 h by 5 minutes",
    );
    const traffic = h.sandbox.requests.find((r) => r.path.endsWith('/analytics/traffic'));
    expect(traffic?.path).toBe(`/zones/${shop?.id}/analytics/traffic`);

    // The rate-limit change is a bot message (edited once every edge has it), not a response.
    await h.command('ratelimit on');
    const [limited] = await h.slack.waitForMessages(
      (m) => m.via === 'api' && (m.text?.startsWith('Rate limiting') ?? false),
    );
    if (!limited) throw new Error('no answer to /cdn ratelimit on');
    expect(limited.ephemeralTo).toBeUndefined();
    expect(textOf(limited.blocks)).toContain(
      `<@${MEMBER}> turned rate limiting *on* for *shop.example.org* (this channel's default).`,
    );
    expect(shop?.limits.enabled).toBe(true);
    // The follow-up, 30 s later, still says whose zone it was.
    h.clock.advance(30_000);
    await h.deps.runner.settled();
    await h.slack.waitForMessages((m) => m === limited && m.history.length === 1);
    expect(textOf(limited.blocks)).toContain("*shop.example.org* (this channel's default)");

    // Another channel has no default: told how to name a zone or set one; nothing is sent.
    const sent = posts(h).length;
    const noZone = await commandReply(h, 'purge /assets/app.css', { channel: DEV });
    expect(noZone.text).toBe(
      "Name a zone (`/cdn purge &lt;zone&gt; /path…` or full URLs), or make one this channel's default with `/cdn use &lt;zone&gt;`.",
    );
    const noZoneRate = await commandReply(h, 'ratelimit off', { channel: DEV });
    expect(noZoneRate.text).toContain('`/cdn ratelimit &lt;zone&gt; on|off`');
    expect(noZoneRate.text).toContain('/cdn use &lt;zone&gt;');
    expect(posts(h)).toHaveLength(sent);
    expect(shop?.limits.enabled).toBe(true);

    // Naming a zone still works where there is a default: the named one wins.
    await h.command('ratelimit example.com on');
    await h.slack.waitForMessages(
      (m) => m.via === 'api' && (m.text?.startsWith('Rate limiting on for example.com') ?? false),
    );
    expect(h.sandbox.state.byName('example.com')?.limits.enabled).toBe(true);

    const audit = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(audit).toContain('channel.use');
  });

  it('reads `ratelimit on` and `analytics 7d` as a state and a range, never as zones', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'analytics 7d day');
    expect(reply.text).toBe(
      "Name a zone (`/cdn analytics &lt;zone&gt;`), or make one this channel's default with `/cdn use &lt;zone&gt;`.",
    );
    const usage = await commandReply(h, 'ratelimit on off');
    expect(usage.text).toContain('Usage: `/cdn ratelimit &lt;zone&gt; on|off`');
    expect(h.sandbox.requests).toEqual([]);
  });

  it('is set by operators only, dropped when the key changes, and says when its zone is gone', async () => {
    const h = await startHarness({ login: true });
    h.slack.addUsergroup('S0OPS', 'cdn-ops', [ADMIN]);
    await h.command('config operators @cdn-ops', { user: ADMIN });
    await h.slack.waitForMessages((m) => m.via === 'response_url');

    const refused = await commandReply(h, 'use example.com', { user: MEMBER });
    expect(refused.text).toContain(
      "Only members of this workspace's CDN operators group can set a channel's default zone.",
    );
    expect(await commandReply(h, 'use').then((m) => m.text)).toBe(
      'This channel has no default zone.',
    );

    const deleted = await commandReply(h, 'use old-site.example.com', { user: ADMIN });
    expect(deleted.text).toBe('*old-site.example.com* is deleted: choose a live zone.');
    const typo = await commandReply(h, 'use exmaple.com', { user: ADMIN });
    expect(typo.text).toBe('No zone `exmaple.com` in this workspace. Did you mean `example.com`?');

    await commandReply(h, 'use example.com', { user: ADMIN });
    // A new key (even the same one typed again): the zone may not exist for it.
    await h.login();
    const stale = await commandReply(h, 'purge /a.css', { user: ADMIN });
    expect(stale.text).toContain(
      "This channel's default zone (*example.com*) was chosen before the workspace's CDN API key changed, so I dropped it.",
    );
    expect(await h.store.channelBindings.view(h.workspaceId, CHANNEL)).toMatchObject({
      binding: undefined,
    });
    expect(purgeRequests(h)).toEqual([]);

    // The zone is deleted on the CDN after it became the default.
    await commandReply(h, 'use shop.example.org', { user: ADMIN });
    const shop = h.sandbox.state.byName('shop.example.org');
    if (shop) shop.deleted = true;
    h.deps.zoneIndex.refreshSoon(h.workspaceId, await h.loginAccountId());
    await h.deps.zoneIndex.idle();
    const gone = await commandReply(h, 'analytics', { user: ADMIN });
    expect(gone.text).toBe(
      "This channel's default zone *shop.example.org* is deleted, so nothing was done. Name a zone, or choose another default with `/cdn use &lt;zone&gt;`.",
    );
    expect(h.sandbox.requests.filter((r) => r.path.includes('/analytics'))).toEqual([]);

    const cleared = await commandReply(h, 'use none', { user: ADMIN });
    expect(cleared.ephemeralTo).toBeUndefined();
    expect(textOf(cleared.blocks)).toContain(`<@${ADMIN}> cleared this channel's default zone.`);
    expect((await commandReply(h, 'use none', { user: ADMIN })).text).toBe(
      'This channel has no default zone to clear.',
    );
  });

  it('preselects the default in the purge form, and purges everything of it after approval', async () => {
    const h = await startHarness({ login: true });
    await commandReply(h, 'use example.com');
    await h.command('purge');
    const [form] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const view = form?.args.view as {
      blocks: Array<{ block_id: string; element: Record<string, unknown> }>;
    };
    const picked = view.blocks.find((b) => b.block_id === PURGE_IDS.zoneBlock)?.element
      .initial_option as { value: string };
    expect(picked.value).toBe(h.sandbox.state.byName('example.com')?.id);

    await h.command('purge everything');
    const [, confirm] = await h.slack.waitForCalls((c) => c.method === 'views.open', 2);
    expect(textOf(confirm?.args.view)).toContain('example.com');
  });
});

describe('purges limited to chosen channels', () => {
  it('refuses purges from any other channel with a clear answer, and allows them again', async () => {
    const h = await startHarness();
    h.slack.addChannel({ id: DEV, name: 'dev', botMember: true });
    await h.login();

    // A form opened in #dev before the limit is set is refused when submitted after.
    await h.command('purge', { channel: DEV });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const formId = viewIdOf(opened);

    const notAdmin = await commandReply(h, 'config purge-channels #ops');
    expect(notAdmin.text).toBe(
      'Only workspace admins and owners can change who may operate the CDN.',
    );
    const set = await commandReply(h, 'config purge-channels #ops', { user: ADMIN });
    expect(textOf(set.blocks)).toContain('Purges are now limited to the channels below.');
    expect(textOf(set.blocks)).toContain(`may be run in: <#${CHANNEL}>`);

    const refusal = `Purges may only be run in <#${CHANNEL}> (a workspace admin chose these with \`/cdn config purge-channels\`). Nothing was purged; ask there.`;
    expect(
      (await commandReply(h, 'purge example.com https://example.com/a.css', { channel: DEV })).text,
    ).toBe(refusal);
    expect((await commandReply(h, 'purge https://example.com/a.css', { channel: DEV })).text).toBe(
      refusal,
    );
    expect((await commandReply(h, 'purge example.com tag:css', { channel: DEV })).text).toBe(
      refusal,
    );
    const opens = h.slack.callsTo('views.open').length;
    expect((await commandReply(h, 'purge example.com everything', { channel: DEV })).text).toBe(
      refusal,
    );
    expect((await commandReply(h, 'purge', { channel: DEV })).text).toBe(refusal);
    expect(h.slack.callsTo('views.open')).toHaveLength(opens);

    const submitted = JSON.parse(
      (
        await h.submit(formId, {
          [PURGE_IDS.zoneBlock]: {
            [ZONE_PICKER_IDS.action]: {
              type: 'external_select',
              selected_option: { value: h.sandbox.state.byName('example.com')?.id },
            },
          },
          [PURGE_IDS.itemsBlock]: {
            [PURGE_IDS.itemsInput]: { type: 'plain_text_input', value: 'https://example.com/a' },
          },
        })
      ).body,
    );
    expect(submitted.errors[PURGE_IDS.zoneBlock]).toContain(
      'Purges may only be run from the channels a workspace admin chose',
    );

    // The message shortcut, used in #dev.
    const refusals = h.slack.messages.filter((m) => m.text === refusal).length;
    await h.shortcut(PURGE_IDS.shortcut, {
      channel: DEV,
      ts: '1795000000.000100',
      text: 'stale: https://example.com/app.css',
    });
    const answers = await h.slack.waitForMessages((m) => m.text === refusal, refusals + 1);
    expect(answers[refusals]?.ephemeralTo).toBe(MEMBER);
    expect(h.slack.callsTo('views.open')).toHaveLength(opens);
    expect(purgeRequests(h)).toEqual([]);

    // In the allowed channel, purging works.
    await h.command('purge example.com https://example.com/a.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(purgeRequests(h)).toHaveLength(1);

    expect(textOf((await commandReply(h, 'config', { user: OTHER })).blocks)).toContain(
      `*Purges* (URLs, tags, everything) may be run in: <#${CHANNEL}>`,
    );
    const lifted = await commandReply(h, 'config purge-channels anywhere', { user: ADMIN });
    expect(textOf(lifted.blocks)).toContain('Purges may be run from any channel again.');
    await h.command('purge https://example.com/b.css', { channel: DEV });
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    expect(purgeRequests(h)).toHaveLength(2);
  });

  it('is chosen with the channel picker of /cdn config, by admins only', async () => {
    const h = await startHarness({ login: true });
    const payloads = new SlackPayloads(h.slack, h.workspaceId);
    const pick = async (message: Message, user: string, channels: string[]) => {
      const body = payloads.blockAction(message, CONFIG_IDS.purgeChannels, { user }) as {
        actions: Array<Record<string, unknown>>;
      };
      body.actions = body.actions.map((action) => ({ ...action, selected_channels: channels }));
      return h.post(
        new URLSearchParams({ payload: JSON.stringify(body) }).toString(),
        'application/x-www-form-urlencoded',
      );
    };
    const shown = await commandReply(h, 'config', { user: ADMIN });
    expect(textOf(shown.blocks)).toContain('may be run in: any channel');

    expect((await pick(shown, MEMBER, [CHANNEL])).status).toBe(200);
    const [refused] = await h.slack.waitForMessages(
      (m) => m.ephemeralTo === MEMBER && (m.text?.includes('Only workspace admins') ?? false),
    );
    expect(refused).toBeDefined();
    expect(await h.store.channelBindings.purgeChannels(h.workspaceId)).toEqual([]);

    await pick(shown, ADMIN, [CHANNEL, DEV]);
    await h.slack.waitForMessages((m) => m === shown && m.history.length === 1);
    expect(textOf(shown.blocks)).toContain(`may be run in: <#${DEV}>, <#${CHANNEL}>`);
    expect(await h.store.channelBindings.purgeChannels(h.workspaceId)).toEqual([DEV, CHANNEL]);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({ action: 'config.purge_channels', actorId: ADMIN });

    await pick(shown, ADMIN, []);
    await h.slack.waitForMessages((m) => m === shown && m.history.length === 2);
    expect(textOf(shown.blocks)).toContain('Purges may be run from any channel again.');
  });

  it('explains the setting when the channels are not mentions', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'config purge-channels ops', { user: ADMIN });
    expect(reply.text).toContain('Name the channels with # so Slack sends their ids');
    expect(await h.store.channelBindings.purgeChannels(h.workspaceId)).toEqual([]);
  });
});

describe('help and the App Home', () => {
  it('show channel defaults and where purges may be run', async () => {
    const h = await startHarness({ login: true });
    const help = await commandReply(h, 'help');
    expect(textOf(help.blocks)).toContain('/cdn use <zone> | none');
    expect(textOf(help.blocks)).toContain('purge-channels #channel…|anywhere');

    await commandReply(h, 'use shop.example.org');
    h.slack.addChannel({ id: DEV, name: 'dev', botMember: true });
    await commandReply(h, 'config purge-channels #ops #dev', { user: ADMIN });
    const home = textOf((await openHome(h, MEMBER)).view);
    expect(home).toContain(`*Purges* may only be run in <#${DEV}>, <#${CHANNEL}>.`);
    expect(home).toContain(`<#${CHANNEL}> → *shop.example.org*`);
    expect(home).toContain('/cdn use <zone> | none');
  });
});
