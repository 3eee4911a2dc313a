// Edge checks (Verify) and audit exports, over the signed HTTP receiver: bounded per person and per
// workspace in the store, as CDN reads are, with a clear refusal before anything is asked of the
// edge or made; a second click on a check under way is not counted.
import { describe, expect, it } from 'vitest';
import { VERIFY_IDS } from '../../src/blocks/ids.js';
import { type Harness, MEMBER, OTHER, startHarness } from '../e2e/harness.js';
import { parseExposition, sumOf } from '../helpers/prometheus.js';

/** Purges one URL as `user`; the purge's result message. */
async function purged(h: Harness, user: string, n: number) {
  await h.command(`purge example.com https://example.com/asset-${n}.css`, { user });
  const results = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, n);
  const result = results[n - 1];
  if (!result) throw new Error('no purge result');
  return result;
}

const refusalsTo = (h: Harness, user: string, count: number, start: string) =>
  h.slack.waitForMessages((m) => m.ephemeralTo === user && (m.text ?? '').startsWith(start), count);

describe('edge checks (Verify)', () => {
  it('are bounded per person and per workspace, refused before the edge is asked', async () => {
    const h = await startHarness({
      login: true,
      env: {
        VERIFY_RATE_LIMIT: '2',
        VERIFY_RATE_LIMIT_WORKSPACE: '3',
        METRICS_TOKEN: 'verify-metrics-token',
      },
    });
    const results = [];
    for (let n = 1; n <= 5; n++) results.push(await purged(h, n <= 3 ? MEMBER : OTHER, n));
    const [first, second, third, fourth, fifth] = results;
    if (!first || !second || !third || !fourth || !fifth) throw new Error('no purges');

    await h.click(first, `${VERIFY_IDS.verify}_0`);
    await h.click(second, `${VERIFY_IDS.verify}_0`);
    // The same check clicked again is the check under way: not counted.
    await h.click(first, `${VERIFY_IDS.verify}_0`);
    await h.click(third, `${VERIFY_IDS.verify}_0`);
    const [mine] = await refusalsTo(h, MEMBER, 1, 'Slow down');
    expect(mine?.text).toMatch(
      /^Slow down: that is more than 2 edge checks \(Verify\) from you in a minute\. Nothing was checked\. Try again in \d+ s\.$/,
    );

    // Someone else has room of their own, until the workspace's bound.
    await h.click(fourth, `${VERIFY_IDS.verify}_0`, { user: OTHER });
    await h.click(fifth, `${VERIFY_IDS.verify}_0`, { user: OTHER });
    const [theirs] = await refusalsTo(h, OTHER, 1, 'This workspace');
    expect(theirs?.text).toMatch(
      /^This workspace has asked for more than 3 edge checks \(Verify\) in the last minute\. Nothing was checked\. Try again in \d+ s\.$/,
    );

    await h.deps.runner.settled();
    // Three checks ran, one URL each; the refused ones asked the edge nothing.
    expect(h.edge.requests.map((r) => r.path).sort()).toEqual([
      '/asset-1.css',
      '/asset-2.css',
      '/asset-4.css',
    ]);
    expect((await h.store.jobs.keyedLike('verify:')).length).toBe(3);

    // A minute on, the bounds have room again.
    h.clock.advance(60_000);
    await h.click(third, `${VERIFY_IDS.verify}_0`);
    await h.deps.runner.settled();
    expect(h.edge.requests.map((r) => r.path)).toContain('/asset-3.css');
    // /metrics counts each URL asked of the edge for `verify`, and the purges for `purge`.
    const scraped = await fetch(`${h.url}/metrics`, {
      headers: { authorization: 'Bearer verify-metrics-token' },
    });
    const metrics = parseExposition(await scraped.text());
    const byFeature = (feature: string) =>
      sumOf(metrics, 'cdn_chatops_cdn_requests_total', { feature });
    expect(byFeature('verify')).toBe(h.edge.requests.length);
    expect(byFeature('verify')).toBe(4);
    expect(byFeature('purge')).toBe(5);
  });
});

describe('audit exports', () => {
  const made = (h: Harness) =>
    h.slack.callsTo('files.completeUploadExternal').filter((c) => c.args.channel_id);

  it('are bounded per person and per workspace an hour, refused before anything is made', async () => {
    const h = await startHarness({
      env: { AUDIT_EXPORT_RATE_LIMIT: '2', AUDIT_EXPORT_RATE_LIMIT_WORKSPACE: '3' },
    });
    const said = new Map<string, number>();
    /** Asks for an export as `user`, waits for the answer, and for the export to be made. */
    const exportAs = async (user: string) => {
      const count = (said.get(user) ?? 0) + 1;
      said.set(user, count);
      await h.command('audit export', { user });
      await h.slack.waitForMessages((m) => m.ephemeralTo === user, count);
      // The export's calls keep to Slack's pace: the clock is moved on to each wait's end.
      for (;;) {
        const settled = h.deps.runner.settled().then(() => true);
        if (await Promise.race([settled, h.clock.sleepers().then(() => false)])) return;
        h.clock.advance((h.clock.nextWake() ?? h.clock.now()) - h.clock.now());
      }
    };
    await exportAs(MEMBER);
    await exportAs(MEMBER);
    await exportAs(MEMBER);
    const [mine] = await refusalsTo(h, MEMBER, 1, 'Slow down');
    expect(mine?.text).toMatch(
      /^Slow down: that is more than 2 audit exports from you in an hour\. Nothing was exported\. Try again in (29|30) min\.$/,
    );
    await exportAs(OTHER);
    await exportAs(OTHER);
    const [theirs] = await refusalsTo(h, OTHER, 1, 'This workspace');
    expect(theirs?.text).toMatch(
      /^This workspace has asked for more than 3 audit exports in the last hour\. Nothing was exported\. Try again in (19|20) min\.$/,
    );
    expect(made(h)).toHaveLength(3);
    expect(await h.store.jobs.keyedLike('audit-export:')).toHaveLength(3);

    // Half an hour on, the person has room for one more.
    h.clock.advance(30 * 60_000);
    await exportAs(MEMBER);
    expect(made(h)).toHaveLength(4);
  });
});
