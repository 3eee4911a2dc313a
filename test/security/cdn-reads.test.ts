// Issue 32, item 3, over the signed HTTP receiver: reads of the CDN made for people (charts, zone
// lists and their pages) are bounded per person and per workspace before the CDN is called, in
// the store (racing requests never all get through); someone of another organization in a
// shared channel spends none of the workspace's quota and rewrites none of its messages.
import { describe, expect, it } from 'vitest';
import { ZONES_IDS } from '../../src/blocks/ids.js';
import { MEMBER, OTHER, startHarness, textOf } from '../e2e/harness.js';

const isAnalytics = (r: { path: string }) => r.path.endsWith('/analytics/traffic');
const isZoneList = (r: { path: string; query: Record<string, string> }) =>
  r.path === '/zones' && r.query.per_page === '10';

describe('CDN reads made for people', () => {
  it('40 concurrent `/cdn analytics <zone> 30d` from one member draw 5 charts; the rest are refused before the CDN is called', async () => {
    const h = await startHarness({ env: { CDN_READ_RATE_LIMIT: '5' } });
    await h.login();
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => h.command('analytics example.com 30d')),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const refusals = await h.slack.waitForMessages(
      (m) => m.ephemeralTo === MEMBER && (m.text ?? '').startsWith('Slow down'),
      35,
    );
    expect(refusals[0]?.text).toMatch(
      /^Slow down: that is more than 5 CDN reads \(zone lists, charts\) from you in a minute\. Nothing was asked of the CDN\. Try again in \d+ s\.$/,
    );
    // Every command answered: 35 refusals and 5 charts, which asked the CDN for a few pages
    // each (40 unbounded charts would have asked at least 80 times).
    await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal', 5);
    expect(refusals).toHaveLength(35);
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(5);
    expect(h.sandbox.requests.filter(isAnalytics).length).toBeLessThanOrEqual(15);

    // A minute on, the bound has room again.
    h.clock.advance(60_000);
    await h.command('analytics example.com 30d');
    await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal', 6);
  });

  it('bounds the whole workspace too, whoever asks', async () => {
    const h = await startHarness({
      env: { CDN_READ_RATE_LIMIT: '10', CDN_READ_RATE_LIMIT_WORKSPACE: '3' },
    });
    await h.login();
    for (const user of [MEMBER, OTHER, MEMBER]) {
      await h.command('zones', { user });
      await h.sandbox.waitFor(isZoneList, h.sandbox.requests.filter(isZoneList).length + 1);
    }
    await h.command('zones', { user: OTHER });
    const [refusal] = await h.slack.waitForMessages(
      (m) => m.ephemeralTo === OTHER && (m.text ?? '').startsWith('This workspace'),
    );
    expect(refusal?.text).toMatch(
      /^This workspace has asked the CDN for more than 3 reads \(zone lists, charts\) in the last minute\. Nothing was asked of the CDN\. Try again in \d+ s\.$/,
    );
    expect(h.sandbox.requests.filter(isZoneList)).toHaveLength(3);
  });
});

describe('someone of another organization in a shared channel', () => {
  const EXTERNAL = 'UEXTERNAL';
  const REFUSED =
    "You are from another workspace (this channel is shared with it), so you can't use this workspace's CDN (zone lists, charts) here. Ask someone from this workspace.";

  it('pressing Next or Analytics on a zone list rewrites nothing, draws nothing, and calls nothing', async () => {
    const h = await startHarness({ sandbox: { bulkZones: 25 } });
    h.slack.addUser({ id: EXTERNAL, name: 'wei', teamId: 'T0PARTNER' });
    await h.login();
    await h.command('zones');
    const [list] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    if (!list) throw new Error('no list');
    const before = textOf(list.blocks);
    const calls = h.sandbox.requests.length;

    await h.click(list, ZONES_IDS.next, { user: EXTERNAL });
    await h.click(list, `${ZONES_IDS.analytics}_0`, { user: EXTERNAL });
    const refusals = await h.slack.waitForMessages((m) => m.ephemeralTo === EXTERNAL, 2);
    expect(refusals.map((m) => m.text)).toEqual([REFUSED, REFUSED]);
    expect(list.history).toHaveLength(0);
    expect(textOf(list.blocks)).toBe(before);
    expect(h.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
    expect(h.sandbox.requests).toHaveLength(calls);
  });

  it('is refused `/cdn zones`, `/cdn analytics` and `/cdn ratelimit <zone>` before the CDN is called', async () => {
    const h = await startHarness();
    h.slack.addUser({ id: EXTERNAL, name: 'wei', teamId: 'T0PARTNER' });
    await h.login();
    for (const text of ['zones', 'analytics example.com', 'ratelimit example.com']) {
      await h.command(text, { user: EXTERNAL });
    }
    const refusals = await h.slack.waitForMessages((m) => m.ephemeralTo === EXTERNAL, 3);
    expect(refusals.map((m) => m.text)).toEqual([REFUSED, REFUSED, REFUSED]);
    expect(h.sandbox.requests.filter((r) => isAnalytics(r) || isZoneList(r))).toEqual([]);
  });
});
