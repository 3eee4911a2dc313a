import { loadImage } from 'canvas';
import { describe, expect, it } from 'vitest';
import { ANALYTICS_IDS, HOME_IDS, ZONE_PICKER_IDS, ZONES_IDS } from '../../src/blocks/ids.js';
import { formatBytes, formatCount } from '../../src/charts/format.js';
import {
  type ChartInput,
  type TrafficChartInput,
  TrafficChartRenderer,
} from '../../src/charts/traffic-chart.js';
import { syntheticTraffic } from '../../src/dev/sandbox/traffic.js';
import { commandReply, openHome } from './flows.js';
import { CHANNEL, MEMBER, startHarness, textOf, viewIdOf } from './harness.js';

describe('/cdn analytics', () => {
  it('uploads a PNG chart of the last 24 h with the totals as its comment', async () => {
    const h = await startHarness({ login: true });
    await h.command('analytics example.com');
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(h.slack.calls.map((c) => c.method).filter((m) => m !== 'auth.test')).toEqual([
      'users.info',
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
    expect(complete?.args.channel_id).toBe(CHANNEL);
    const comment = String(complete?.args.initial_comment);
    expect(comment).toContain(':bar_chart: *example.com* · last 24 h by hour (America/New_York)');
    expect(comment).toMatch(
      /\*[\d,.]+( k| M)?\* requests · \*[\d.]+ (MB|GB|TB)\* · cache hit rate \*\d+\.\d %\*/,
    );

    const [file] = h.slack.files.values();
    const image = await loadImage(file?.bytes ?? Buffer.alloc(0));
    expect([image.width, image.height]).toEqual([1200, 640]);
    expect(file?.filename).toMatch(/^example\.com-traffic-\d{8}T\d{4}\.png$/);

    const query = h.sandbox.requests.find((r) => r.path.endsWith('/analytics/traffic'))?.query;
    expect(query?.granularity).toBe('hour');
    expect(Date.parse(query?.until ?? '') - Date.parse(query?.since ?? '')).toBe(24 * 3_600_000);
  });

  it('posts totals of exactly the last 24 h when a day is the bucket, and says which window', async () => {
    const drawn: TrafficChartInput[] = [];
    const real = new TrafficChartRenderer();
    const chartRenderer = {
      render: (input: ChartInput) => {
        if (!('kind' in input)) drawn.push(input);
        return real.render(input);
      },
    };
    const h = await startHarness({ login: true, chartRenderer });
    // 10:21:37 UTC: yesterday's whole day would be counted with today's, and the minute cut.
    h.clock.advance(21 * 60_000 + 37_000);
    await h.command('analytics example.com 24h day');
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    const zone = h.sandbox.state.byName('example.com');
    if (!zone) throw new Error('no zone');
    const now = h.clock.now();
    // The window: from 10:21 yesterday (the minute holding now − 24 h) to now.
    const minutes = syntheticTraffic(
      zone.id,
      { since: Date.parse('2026-11-21T10:21:00Z'), until: now, granularity: 'minute' },
      { from: zone.createdAt, to: now },
    );
    const requests = minutes.reduce((t, m) => t + m.requests, 0);
    const bandwidth = minutes.reduce((t, m) => t + m.bandwidth, 0);
    const comment = String(complete?.args.initial_comment);
    expect(comment).toContain(
      `*${formatCount(requests)}* requests · *${formatBytes(bandwidth)}* · cache hit rate`,
    );
    const window = 'Sat 21 Nov 05:21 – Sun 22 Nov 05:21 (America/New_York) · by day';
    expect(comment).toContain(window);
    expect(drawn[0]?.subtitle).toBe(window);
    expect(drawn[0]?.traffic.totals).toMatchObject({ requests, bandwidth });
  });

  it('marks purges and rate-limit changes of that range', async () => {
    const h = await startHarness({ login: true });
    await h.command('purge example.com https://example.com/a.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.command('analytics example.com 6h');
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(String(complete?.args.initial_comment)).toMatch(
      /Marked on the chart: purge 1 URL \(\d\d:\d\d\)\./,
    );
    expect(
      h.sandbox.requests.find((r) => r.path.endsWith('/analytics/traffic'))?.query.granularity,
    ).toBe('minute');
  });

  it('says there was no traffic instead of drawing an empty chart', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'analytics staging.example.com');
    expect(reply?.text).toBe(
      `:zzz: No traffic on *staging.example.com* in the last 24 h (the zone is pending). Requested by <@${MEMBER}>.`
        .replace(':zzz: ', ' :zzz: ')
        .trim(),
    );
    expect(h.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
  });

  it('tells the user to invite the bot when it is not in the channel', async () => {
    const h = await startHarness({ login: true });
    h.slack.addChannel({ id: 'CELSEWHERE', name: 'elsewhere', botMember: false });
    const reply = await commandReply(h, 'analytics example.com', { channel: 'CELSEWHERE' });
    expect(reply?.ephemeralTo).toBe(MEMBER);
    expect(reply?.text).toContain('Invite me with `/invite @cdn`');
  });

  it('refuses unreadable ranges before calling the CDN', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'analytics example.com 30d minute');
    expect(reply?.text).toContain('last 30 days by minute is 43,200 points');
    expect(h.sandbox.requests).toEqual([]);
  });

  it('posts the chart from the Analytics button of a zone list', async () => {
    const h = await startHarness({ login: true });
    const list = await commandReply(h, 'zones active');
    expect(textOf(list.blocks)).toContain('Analytics');
    await h.click(list, `${ZONES_IDS.analytics}_0`);
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(complete?.args.channel_id).toBe(CHANNEL);
    expect(String(complete?.args.initial_comment)).toContain('*example.com*');
  });

  it('posts the chart chosen in the App Home form', async () => {
    const h = await startHarness({ login: true });
    await h.clickInView((await openHome(h, MEMBER)).id, HOME_IDS.analytics);
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const zone = h.sandbox.state.byName('blog.example.net');
    const answer = await h.submit(viewIdOf(opened), {
      [ANALYTICS_IDS.zoneBlock]: {
        [ZONE_PICKER_IDS.action]: { type: 'external_select', selected_option: { value: zone?.id } },
      },
      [ANALYTICS_IDS.rangeBlock]: {
        [ANALYTICS_IDS.rangeInput]: { type: 'static_select', selected_option: { value: '7d' } },
      },
      [ANALYTICS_IDS.channelBlock]: {
        [ANALYTICS_IDS.channelInput]: {
          type: 'conversations_select',
          selected_conversation: CHANNEL,
        },
      },
    });
    expect(answer.body).toBe('');
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(complete?.args.channel_id).toBe(CHANNEL);
    expect(String(complete?.args.initial_comment)).toContain(
      '*blog.example.net* · last 7 days by hour',
    );
  });
});
