import { describe, expect, it } from 'vitest';
import { ZONE_PICKER_IDS, ZONES_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { commandReply } from './flows.js';
import { MEMBER, startHarness, textOf } from './harness.js';

describe('/cdn zones', () => {
  it('pages through 250 zones with buttons that update the message in place', async () => {
    const h = await startHarness({ login: true, sandbox: { demoZones: false, bulkZones: 250 } });
    const list = await commandReply(h, 'zones');
    expect(list.ephemeralTo).toBe(MEMBER);
    expect(textOf(list.blocks)).toContain('250 zones · page 1 of 25');
    expect(textOf(list.blocks)).toContain('zone-001.bulk.test');
    expect(() => findButton(list, ZONES_IDS.previous)).toThrow();

    const seen = new Set<string>();
    for (let page = 1; page <= 25; page++) {
      for (const name of textOf(list.blocks).match(/zone-\d{3}\.bulk\.test/g) ?? []) seen.add(name);
      if (page === 25) break;
      await h.click(list, ZONES_IDS.next);
      await h.slack.waitForMessages((m) => m === list && m.history.length === page);
    }
    expect(seen.size).toBe(250);
    expect(textOf(list.blocks)).toContain('page 25 of 25');
    expect(() => findButton(list, ZONES_IDS.next)).toThrow();
    // Every page was one message, replaced in place, each within Slack's limits (the fake checks).
    expect(h.slack.messages).toHaveLength(1);
    expect(h.sandbox.requests.every((r) => r.query.per_page === '10')).toBe(true);

    await h.click(list, ZONES_IDS.previous);
    await h.slack.waitForMessages((m) => m === list && m.history.length === 25);
    expect(textOf(list.blocks)).toContain('page 24 of 25');
  });

  it('filters by status and takes a page number', async () => {
    const h = await startHarness({ login: true });
    const pending = await commandReply(h, 'zones pending');
    expect(textOf(pending?.blocks)).toContain('2 pending zones · page 1 of 1');
    expect(textOf(pending?.blocks)).toContain('staging.example.com');
    await h.command('zones deleted page 2');
    const [, beyond] = await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(textOf(beyond?.blocks)).toContain('Page 2 is past the last page');
    expect(h.sandbox.requests.map((r) => r.query)).toEqual([
      { page: '1', per_page: '10', status: 'pending' },
      { page: '2', per_page: '10', status: 'deleted' },
    ]);
  });

  it('past the last page, says one page count: the same in the summary and the notice', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'zones page 2');
    const text = textOf(reply.blocks);
    expect(text).toContain('9 zones · 1 page');
    expect(text).toContain('Page 2 is past the last page (1).');
    expect(text).not.toContain('of 2');
    expect(reply.text).not.toContain('of 2');
    // Back to the last page, the one there is.
    await h.click(reply, ZONES_IDS.previous);
    await h.slack.waitForMessages((m) => m === reply && m.history.length === 1);
    expect(textOf(reply.blocks)).toContain('9 zones · page 1 of 1');
  });

  it('paging a filtered list keeps the filter and its total', async () => {
    const h = await startHarness({ login: true, sandbox: { bulkZones: 25 } });
    const list = await commandReply(h, 'zones active');
    const heading = textOf(list.blocks).match(/(\d+) active zones · page 1 of (\d+)/);
    if (!heading) throw new Error(`no heading in ${textOf(list.blocks)}`);
    const [, total, pages] = heading;
    await h.click(list, ZONES_IDS.next);
    await h.slack.waitForMessages((m) => m === list && m.history.length === 1);
    expect(textOf(list.blocks)).toContain(`${total} active zones · page 2 of ${pages}`);
    expect(textOf(list.blocks)).not.toMatch(/pending|deleted/);
    await h.click(list, ZONES_IDS.previous);
    await h.slack.waitForMessages((m) => m === list && m.history.length === 2);
    expect(textOf(list.blocks)).toContain(`${total} active zones · page 1 of ${pages}`);
    expect(h.sandbox.requests.map((r) => [r.query.status, r.query.page])).toEqual([
      ['active', '1'],
      ['active', '2'],
      ['active', '1'],
    ]);
  });

  it('explains its usage for words it does not know, without calling the CDN', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'zones active archived shop');
    expect(reply?.text).toContain('Usage: `/cdn zones');
    expect(h.sandbox.requests).toEqual([]);
  });
});

describe('the zone picker', () => {
  it('offers matching live zones, best first, from one cached listing', async () => {
    const h = await startHarness({ login: true, sandbox: { bulkZones: 150 } });
    const first = JSON.parse((await h.suggest(ZONE_PICKER_IDS.action, 'example')).body);
    expect(
      first.options.map((o: { value: string; text: { text: string } }) => o.text.text),
    ).toEqual([
      'example.com (active)',
      'api.example.io (active)',
      'blog.example.net (active)',
      'launch.example.io (pending)',
      'shop.example.org (active)',
      'staging.example.com (pending)',
      'static.example.com (active)',
    ]);
    const all = JSON.parse((await h.suggest(ZONE_PICKER_IDS.action, '')).body);
    expect(all.options).toHaveLength(100);
    // 157 zones listed once at 100 per page; the second query came from the cache.
    expect(h.sandbox.requests).toHaveLength(2);
  });

  it('offers nothing, without failing, before a key is set', async () => {
    const h = await startHarness();
    const answer = await h.suggest(ZONE_PICKER_IDS.action, 'ex');
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { options: [] }]);
  });
});

function findButton(message: Message, actionId: string) {
  const found = JSON.stringify(message.blocks).includes(`"action_id":"${actionId}"`);
  if (!found) throw new Error(`no ${actionId}`);
  return true;
}
