// Guests (multi- and single-channel) and people of another workspace in a shared channel, over the
// signed HTTP receiver: they read, they are refused every change in one line saying why, and an
// admin can let guests operate (never approve).
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS } from '../../src/blocks/ids.js';
import { answerTo, requestEverything } from './flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const GUEST = 'UGUEST';
const SINGLE = 'USINGLE';
const EXTERNAL = 'UEXTERNAL';

async function withGuests(): Promise<Harness> {
  const h = await startHarness();
  h.slack.addUser({ id: GUEST, name: 'grace', isRestricted: true });
  h.slack.addUser({ id: SINGLE, name: 'sam', isUltraRestricted: true });
  h.slack.addUser({ id: EXTERNAL, name: 'wei', teamId: 'T0PARTNER' });
  await h.login();
  return h;
}

const REFUSED = {
  purge:
    "Guests can't purge cached content in this workspace. An admin can allow it with `/cdn config guests operate`.",
  ratelimit:
    "Guests can't change rate limits in this workspace. An admin can allow it with `/cdn config guests operate`.",
  config: "Guests can't change who may operate the CDN in this workspace.",
  login: "Guests can't set the CDN API key in this workspace.",
  approve: "Guests can't approve or deny purges in this workspace.",
};

describe.each([
  ['a multi-channel guest', GUEST],
  ['a single-channel guest', SINGLE],
])('%s', (_name, guest) => {
  it('is refused every change in one line, and calls nothing', async () => {
    const h = await withGuests();
    const command = (text: string) => answerTo(h, guest, () => h.command(text, { user: guest }));
    expect(await command('purge example.com https://example.com/a.css')).toBe(REFUSED.purge);
    expect(await command('purge example.com everything')).toBe(REFUSED.purge);
    expect(await command('ratelimit example.com on')).toBe(REFUSED.ratelimit);
    expect(await command('ratelimit example.com off')).toBe(REFUSED.ratelimit);
    expect(await command('config guests operate')).toBe(REFUSED.config);
    expect(await command('login')).toBe(REFUSED.login);
    const shortcut = await answerTo(h, guest, () =>
      h.shortcut(
        PURGE_IDS.shortcut,
        { channel: CHANNEL, ts: '1.2', text: 'https://example.com/a.css' },
        { user: guest },
      ),
    );
    expect(shortcut).toBe(REFUSED.purge);

    const request = await requestEverything(h);
    const approve = await answerTo(h, guest, () =>
      h.click(request, APPROVAL_IDS.approve, { user: guest }),
    );
    expect(approve).toBe(REFUSED.approve);

    // One modal opened (the member's request); nothing reached the CDN but its reads.
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    expect(h.sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await h.store.workspaces.ensure(h.workspaceId)).guestAccess).toBe('read');
  });

  it('lists zones and sees analytics', async () => {
    const h = await withGuests();
    const zones = await answerTo(h, guest, () => h.command('zones', { user: guest }));
    expect(zones).toContain('example.com');
    await h.command('analytics example.com', { user: guest });
    const [upload] = await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal');
    expect(upload?.args.channel_id).toBe(CHANNEL);
  });

  it('may purge once an admin allows guests to operate, and still may not approve', async () => {
    const h = await withGuests();
    const set = await answerTo(h, ADMIN, () => h.command('config guests operate', { user: ADMIN }));
    expect(set).toContain('Guests may now change things as members do');
    expect((await h.store.workspaces.ensure(h.workspaceId)).guestAccess).toBe('operate');

    await h.command('purge example.com https://example.com/a.css', { user: guest });
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    const request = await requestEverything(h);
    const approve = await answerTo(h, guest, () =>
      h.click(request, APPROVAL_IDS.approve, { user: guest }),
    );
    expect(approve).toBe(REFUSED.approve);

    await answerTo(h, ADMIN, () => h.command('config guests read', { user: ADMIN }));
    const again = await answerTo(h, guest, () =>
      h.command('purge example.com https://example.com/b.css', { user: guest }),
    );
    expect(again).toBe(REFUSED.purge);
    const audit = await h.store.audit.recent(h.workspaceId, { limit: 20 });
    expect(audit.filter((e) => e.action === 'config.guests').map((e) => e.detail)).toEqual([
      { access: 'read' },
      { access: 'operate' },
    ]);
  });
});

describe('someone from another workspace in a shared channel', () => {
  it('spends none of the CDN quota, and is refused a change even when guests may operate', async () => {
    const h = await withGuests();
    await answerTo(h, ADMIN, () => h.command('config guests operate', { user: ADMIN }));
    // A zone list is a CDN read: the workspace's own people's (issue 32, item 3).
    const zones = await answerTo(h, EXTERNAL, () => h.command('zones', { user: EXTERNAL }));
    expect(zones).toBe(
      "You are from another workspace (this channel is shared with it), so you can't use this workspace's CDN (zone lists, charts) here. Ask someone from this workspace.",
    );
    const purge = await answerTo(h, EXTERNAL, () =>
      h.command('purge example.com https://example.com/a.css', { user: EXTERNAL }),
    );
    expect(purge).toBe(
      "You are from another workspace (this channel is shared with it), so you can't purge cached content here. Ask someone from this workspace.",
    );
    expect(h.sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
