// What a person can do in Slack behind the bot's back (delete its message, archive the channel,
// remove the bot), and how the work they asked for still finishes and still reaches them.
import { describe, expect, it } from 'vitest';
import { WATCH_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import {
  alerts,
  commandReply,
  everythingRequests,
  interval,
  openApprove,
  pendingApprovals,
  requestEverything,
  shape,
  thread,
  watching,
} from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

/** The harness's CHANNEL as the fake Slack holds it, for a person to archive or remove the bot. */
function opsChannel(h: Harness) {
  const ops = h.slack.channels.get(CHANNEL);
  if (!ops) throw new Error('no channel');
  return ops;
}

/** A watch of example.com that alerted in CHANNEL (files processed at once: whole intervals). */
async function alerted(): Promise<{ h: Harness; alert: Message }> {
  const h = await startHarness({ slack: { fileReadyMs: 0 } });
  const zoneId = await watching(h, 'example.com');
  shape(h, zoneId, 5, 'spike');
  await interval(h, 3);
  const [alert] = alerts(h);
  if (!alert) throw new Error('no alert');
  return { h, alert };
}

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

describe('a request message deleted while it was being decided', () => {
  it('tells the requester by DM how it ended: the purge still ran', async () => {
    const h = await startHarness({ login: true });
    const request = await requestEverything(h);
    const viewId = await openApprove(h, request, ADMIN);
    h.slack.deleteAsPerson(request);
    await h.submit(viewId, {}, { user: ADMIN });
    const [dm] = await h.slack.waitForMessages(
      (m) => m.channel === MEMBER && (m.text?.includes('was purged') ?? false),
    );
    expect(dm?.via).toBe('api');
    expect(everythingRequests(h)).toHaveLength(1);
    // Only the outcome: the interim "purging" version is not said by DM.
    expect(h.slack.messages.filter((m) => m.channel === MEMBER)).toHaveLength(1);
  });
});

describe('a watch alert deleted before it resolved', () => {
  it('posts the resolution anew in the channel, its thread saying so', async () => {
    const { h, alert } = await alerted();
    h.slack.deleteAsPerson(alert);
    await interval(h, 10);
    const resolved = alerts(h).filter((m) => !m.deleted);
    expect(resolved.map((m) => m.text)).toEqual(['Resolved: example.com · Requests spike']);
    const [again] = resolved;
    if (!again) throw new Error('no resolution');
    expect(thread(h, again)).toEqual([expect.stringContaining('Resolved: back within bounds')]);
  });
});

describe('a channel archived while a purge runs in it', () => {
  it('still gets the result to the requester (the response_url): progress edits stop', async () => {
    const h = await startHarness({ login: true });
    const ops = opsChannel(h);
    const urls = Array.from({ length: 120 }, (_, i) => `https://example.com/assets/${i}.js`);
    void h.slack
      .waitForMessages((m) => m.text?.startsWith('Purging') ?? false)
      .then(() => {
        ops.archived = true;
      });
    await h.command(`purge example.com ${urls.join(' ')}`);
    const [result] = await h.slack.waitForMessages(
      (m) => m.text === 'Purged 120 items on example.com',
    );
    expect(result?.via).toBe('response_url');
    expect(h.slack.callsTo('chat.update').map((c) => c.response.error)).toEqual(['is_inactive']);
  });
});

describe('a workspace whose messages may be edited for a minute only', () => {
  it('says a long purge’s result as a new message once its progress can no longer be edited', async () => {
    const h = await startHarness({ login: true, slack: { editWindowMs: 60_000 } });
    const urls = Array.from({ length: 120 }, (_, i) => `https://example.com/assets/${i}.js`);
    void h.slack
      .waitForMessages((m) => m.text?.startsWith('Purging') ?? false)
      .then(() => h.clock.advance(120_000));
    await h.command(`purge example.com ${urls.join(' ')}`);
    const [result] = await h.slack.waitForMessages(
      (m) => m.text === 'Purged 120 items on example.com',
    );
    expect(result).toMatchObject({ via: 'api', channel: CHANNEL });
    expect(h.slack.callsTo('chat.update')[0]?.response.error).toBe('edit_window_closed');
  });
});

describe('an alert’s button pressed after the bot was removed from the channel', () => {
  it('snoozes all the same, and says so by DM since the thread refuses the bot', async () => {
    const { h, alert } = await alerted();
    const ops = opsChannel(h);
    ops.botMember = false;
    await h.click(alert, WATCH_IDS.snooze);
    const [dm] = await h.slack.waitForMessages(
      (m) => m.channel === MEMBER && (m.text?.includes('snoozed') ?? false),
    );
    expect(dm?.text).toContain(`<#${CHANNEL}>`);
    expect(h.slack.messages.filter((m) => m.ephemeralTo === MEMBER)).toEqual([]);
  });
});

describe('a channel whose content the organization’s admins revoked (EKM)', () => {
  it('a purge there still tells its result through the response_url', async () => {
    const h = await startHarness({ login: true });
    h.slack.addChannel({ id: 'CEKM', name: 'keys-revoked', botMember: true, ekmRevoked: true });
    await h.command('purge example.com https://example.com/a.css', { channel: 'CEKM' });
    const [result] = await h.slack.waitForMessages(
      (m) => m.text?.startsWith('Purged 1 item') ?? false,
    );
    expect(result).toMatchObject({ via: 'response_url', channel: 'CEKM' });
    expect(h.slack.callsTo('chat.postMessage')[0]?.response.error).toBe('ekm_access_denied');
  });

  it('a daily report there is paused, and its creator told why by DM', async () => {
    const h = await startHarness({ login: true });
    h.slack.addChannel({ id: 'CEKM', name: 'keys-revoked', botMember: true, ekmRevoked: true });
    await h.command('report example.com daily', { channel: 'CEKM' });
    await h.slack.waitForMessages((m) => textOf(m.blocks).includes('at 09:00'));
    h.clock.advance(4 * 3_600_000);
    await h.deps.reports.tick();
    await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal');
    await h.deps.runner.settled();
    const [dm] = await h.slack.waitForMessages((m) => m.channel === MEMBER);
    expect(dm?.text).toContain('administrators');
  });
});

describe('an operators group an admin deleted in Slack', () => {
  it('refuses as for anyone outside the group, saying where to look: not "something went wrong"', async () => {
    const h = await startHarness({ login: true });
    h.slack.addUsergroup('S0SRE', 'sre', [MEMBER]);
    await h.store.workspaces.update(h.workspaceId, { operatorGroupId: 'S0SRE' });
    h.slack.usergroups.delete('S0SRE');
    const reply = await commandReply(h, 'purge example.com https://example.com/a.css');
    expect(reply.text).toContain("Only members of this workspace's CDN operators group");
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/purge'))).toEqual([]);
  });
});

describe('the bot removed from the channel just as a verification’s summary was shown', () => {
  it('says the per-URL details through the response_url instead of its thread', async () => {
    const h = await startHarness({ login: true });
    const ops = opsChannel(h);
    h.slack.on('response', (m) => {
      if (m.text === 'Edge check of example.com: 1 fresh') ops.botMember = false;
    });
    await h.command('purge example.com https://example.com/a.css --verify');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.deps.runner.settled();
    const [details] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url' && textOf(m.blocks).includes('https://example.com/a.css'),
    );
    expect(details?.channel).toBe(CHANNEL);
    expect(h.slack.messages.filter((m) => m.threadTs !== undefined)).toEqual([]);
  });
});

describe('a channel archived while its watch alert stood', () => {
  it('pauses the watch when the alert resolves, and tells its creator why by DM', async () => {
    const { h } = await alerted();
    opsChannel(h).archived = true;
    await interval(h, 10);
    const [dm] = await h.slack.waitForMessages(
      (m) => m.channel === MEMBER && (m.text?.includes('archived') ?? false),
    );
    expect(dm?.text).toContain('example.com');
    expect(h.slack.callsTo('chat.update').map((c) => c.response.error)).toContain('is_inactive');
  });
});
