import { describe, expect, it, vi } from 'vitest';
import type { Zone } from '../../../src/cdn/schemas.js';
import { parsePurgeArgs, planPurge } from '../../../src/services/purge/purge-targets.js';

const zone = (name: string, status = 'active'): Zone => ({
  id: `id-${name}`,
  name,
  status,
  createdAt: '',
  accountId: 'acc_1',
});
const EXAMPLE = zone('example.com');
const ZONES = [
  EXAMPLE,
  zone('static.example.com'),
  zone('shop.example.org'),
  zone('old.example.net', 'deleted'),
];

describe('parsePurgeArgs', () => {
  it.each([
    [[], { kind: 'form' }],
    [['example.com'], { kind: 'form', zone: 'example.com' }],
    [['example.com', 'everything'], { kind: 'everything', zone: 'example.com' }],
    [['example.com', 'EVERYTHING'], { kind: 'everything', zone: 'example.com' }],
    [
      ['example.com', 'https://example.com/a.css', 'tag:product-1', 'junk'],
      {
        kind: 'items',
        zone: 'example.com',
        urls: ['https://example.com/a.css'],
        tags: ['product-1'],
        unknown: ['junk'],
      },
    ],
    [
      ['https://example.com/a', 'https://shop.example.org/b'],
      {
        kind: 'items',
        urls: ['https://example.com/a', 'https://shop.example.org/b'],
        tags: [],
        unknown: [],
      },
    ],
    // --verify anywhere (an em dash, as some Slack clients turn `--` into), never a URL or the zone.
    [
      ['--verify', 'example.com', 'https://example.com/a'],
      {
        kind: 'items',
        zone: 'example.com',
        verify: true,
        urls: ['https://example.com/a'],
        tags: [],
        unknown: [],
      },
    ],
    [
      ['https://example.com/a', '\u2014verify'],
      { kind: 'items', verify: true, urls: ['https://example.com/a'], tags: [], unknown: [] },
    ],
    [['example.com', '--verify'], { kind: 'form', zone: 'example.com' }],
    [
      ['example.com', 'everything', 'https://example.com/x'],
      {
        kind: 'items',
        zone: 'example.com',
        urls: ['https://example.com/x'],
        tags: [],
        unknown: ['everything'],
      },
    ],
    // With no zone named, paths, tags and `everything` are for the channel's default zone.
    [['everything'], { kind: 'everything' }],
    [
      ['/assets/app.css', '/b.js'],
      { kind: 'items', urls: [], tags: [], unknown: [], paths: ['/assets/app.css', '/b.js'] },
    ],
    [['tag:css'], { kind: 'items', urls: [], tags: ['css'], unknown: [] }],
    [
      ['example.com', '/a.css', 'https://example.com/b.css'],
      {
        kind: 'items',
        zone: 'example.com',
        urls: ['https://example.com/b.css'],
        tags: [],
        unknown: [],
        paths: ['/a.css'],
      },
    ],
    // Words arrive as typed (src/text.ts read Slack's escapes): an `&` is an `&`.
    [
      ['example.com', '/a?x=1&y=2', 'tag:a&b', 'https://example.com/c?d=1&e=2'],
      {
        kind: 'items',
        zone: 'example.com',
        urls: ['https://example.com/c?d=1&e=2'],
        tags: ['a&b'],
        unknown: [],
        paths: ['/a?x=1&y=2'],
      },
    ],
    // `//host/x` is not a path, and `everything` is a zone only with more after it.
    [['//example.com/x'], { kind: 'form', zone: '//example.com/x' }],
  ])('reads %j', (args, expected) => {
    expect(parsePurgeArgs(args)).toEqual(expected);
  });
});

describe('a deleted zone', () => {
  it('gets nothing, even when named explicitly', () => {
    const zone = {
      id: 'z9',
      name: 'old.example',
      status: 'deleted',
      createdAt: '2026-01-01T00:00:00Z',
      accountId: 'acc_1',
    };
    expect(planPurge({ zone, urls: ['https://old.example/a'], tags: ['t'] }, [zone])).toEqual({
      groups: [],
      rejected: [
        { item: 'https://old.example/a', reason: 'the zone old.example is deleted' },
        { item: 'tag:t', reason: 'the zone old.example is deleted' },
      ],
      elsewhere: [],
      duplicates: 0,
    });
  });
});

describe('planPurge', () => {
  it('infers each URL’s zone as the longest matching name and groups by zone', () => {
    const plan = planPurge(
      {
        urls: [
          'https://static.example.com/a',
          'https://www.example.com/b',
          'http://cdn.static.example.com/c',
          'https://shop.example.org/d',
        ],
        tags: [],
      },
      ZONES,
    );
    expect(plan.rejected).toEqual([]);
    expect(plan.groups.map((g) => [g.zone.name, g.files])).toEqual([
      ['static.example.com', ['https://static.example.com/a', 'http://cdn.static.example.com/c']],
      ['example.com', ['https://www.example.com/b']],
      ['shop.example.org', ['https://shop.example.org/d']],
    ]);
  });

  it('rejects URLs outside the named zone, non-http schemes, unknown hosts and deleted zones', () => {
    const plan = planPurge(
      {
        zone: EXAMPLE,
        urls: [
          'https://example.org/x',
          'ftp://example.com/y',
          'https://evil.com/?example.com',
          'https://static.example.com/z',
        ],
        tags: [],
      },
      ZONES,
    );
    // Something else is wrong too: nothing is offered, and every URL set aside is refused.
    expect(plan.elsewhere).toEqual([]);
    expect(plan.rejected.map((r) => r.reason)).toEqual([
      'only http:// and https:// URLs can be purged',
      'no zone in this workspace serves example.org',
      'no zone in this workspace serves evil.com',
      'served by the zone static.example.com, not example.com',
    ]);
    const inferred = planPurge(
      { urls: ['https://unknown.test/a', 'https://old.example.net/b'], tags: [] },
      ZONES,
    );
    expect(inferred.rejected.map((r) => r.reason)).toEqual([
      'no zone in this workspace covers unknown.test',
      'no zone in this workspace covers old.example.net',
    ]);
  });

  it('removes duplicates and fragments, and counts them', () => {
    const plan = planPurge(
      {
        zone: EXAMPLE,
        urls: ['https://example.com/a', 'https://example.com/a#top', 'https://EXAMPLE.com/a'],
        tags: ['t', 't'],
      },
      ZONES,
    );
    expect(plan.groups[0]).toMatchObject({ files: ['https://example.com/a'], tags: ['t'] });
    expect(plan.duplicates).toBe(3);
  });

  it('needs a zone for tags and one word per tag', () => {
    expect(planPurge({ urls: [], tags: ['x'] }, ZONES).rejected[0]?.reason).toContain(
      'tags need a zone',
    );
    expect(
      planPurge({ zone: EXAMPLE, urls: [], tags: ['two words', ''] }, ZONES).rejected,
    ).toHaveLength(2);
  });

  it('refuses more items than the limit', () => {
    const urls = Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`);
    expect(planPurge({ zone: EXAMPLE, urls, tags: [] }, ZONES, 10).rejected).toEqual([
      { item: '11 items', reason: 'at most 10 URLs and tags per purge' },
    ]);
  });

  it('reads each zone name once, not once per URL: 200 URLs among 2,000 zones', () => {
    // A purge from CI is planned on the event loop that acks Slack: a parse per URL and zone
    // (10,000 URLs of a workspace of 10,000 zones: a hundred million) would hold it for minutes.
    const zones = Array.from({ length: 2_000 }, (_, i) => zone(`site-${i}.example.org`));
    const shop = zones[1_242] as Zone;
    const urls = Array.from({ length: 200 }, (_, i) => `https://cdn.${shop.name}/a/${i}.css`);
    const parse = vi.spyOn(URL, 'parse');
    try {
      const plan = planPurge({ urls, tags: [] }, [...zones, EXAMPLE]);
      expect(plan.groups.map((g) => [g.zone.name, g.files.length])).toEqual([[shop.name, 200]]);
      expect(parse.mock.calls.length).toBeLessThanOrEqual(zones.length + 1 + urls.length);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('paths', () => {
  it('are URLs of the zone they are for, on https', () => {
    const plan = planPurge(
      { zone: EXAMPLE, urls: [], tags: [], paths: ['/assets/app.css', '/a b'] },
      ZONES,
    );
    expect(plan.rejected).toEqual([]);
    expect(plan.groups).toEqual([
      {
        zone: EXAMPLE,
        files: ['https://example.com/assets/app.css', 'https://example.com/a%20b'],
        tags: [],
      },
    ]);
  });

  it('are refused without a zone, saying how to give one', () => {
    const plan = planPurge({ urls: [], tags: [], paths: ['/a.css'] }, ZONES);
    expect(plan.groups).toEqual([]);
    expect(plan.rejected).toEqual([
      {
        item: '/a.css',
        reason: 'a path needs a zone: /cdn purge <zone> /path, or /cdn use <zone> first',
      },
    ]);
  });
});

describe('a zone named that does not serve some URLs', () => {
  const STATIC = ZONES[1] as Zone;

  it('sets aside a URL of a zone of its own, naming that zone, and keeps the rest', () => {
    const plan = planPurge(
      {
        zone: EXAMPLE,
        urls: [
          'https://example.com/a.css',
          'https://static.example.com/a.css',
          'https://www.example.com/b.js',
          'https://unknown.test/c',
        ],
        tags: ['t'],
      },
      ZONES,
    );
    expect(plan.rejected).toEqual([]);
    expect(plan.elsewhere).toEqual([
      {
        item: 'https://static.example.com/a.css',
        host: 'static.example.com',
        servedBy: 'static.example.com',
      },
      { item: 'https://unknown.test/c', host: 'unknown.test' },
    ]);
    expect(plan.groups).toEqual([
      {
        zone: EXAMPLE,
        files: ['https://example.com/a.css', 'https://www.example.com/b.js'],
        tags: ['t'],
      },
    ]);
  });

  it('gives a host to the longest zone name it ends with', () => {
    const under = planPurge(
      {
        zone: EXAMPLE,
        urls: ['https://a.static.example.com/x', 'https://example.com/y'],
        tags: [],
      },
      ZONES,
    );
    expect(under.elsewhere).toEqual([
      {
        item: 'https://a.static.example.com/x',
        host: 'a.static.example.com',
        servedBy: 'static.example.com',
      },
    ]);
    const named = planPurge(
      { zone: STATIC, urls: ['https://a.static.example.com/x'], tags: [] },
      ZONES,
    );
    expect(named.elsewhere).toEqual([]);
    expect(named.groups.map((g) => [g.zone.name, g.files])).toEqual([
      ['static.example.com', ['https://a.static.example.com/x']],
    ]);
    // A name that only ends with the same letters is not under the zone.
    expect(
      planPurge({ zone: STATIC, urls: ['https://nostatic.example.com/x'], tags: [] }, ZONES)
        .rejected,
    ).toEqual([
      {
        item: 'https://nostatic.example.com/x',
        reason: 'served by the zone example.com, not static.example.com',
      },
    ]);
  });

  it('reads zone names as hosts: any case, a final dot, international names', () => {
    const zones = [zone('Example.COM.'), zone('bücher.example')];
    const plan = planPurge(
      {
        urls: [
          'https://www.example.com/a',
          'https://xn--bcher-kva.example/b',
          'https://bücher.example/c',
        ],
        tags: [],
      },
      zones,
    );
    expect(plan.rejected).toEqual([]);
    expect(plan.groups.map((g) => [g.zone.name, g.files.length])).toEqual([
      ['Example.COM.', 1],
      ['bücher.example', 2],
    ]);
  });

  it('leaves a deleted zone out: its hosts belong to the zone above it', () => {
    const zones = [EXAMPLE, zone('old.example.com', 'deleted')];
    const plan = planPurge({ zone: EXAMPLE, urls: ['https://old.example.com/a'], tags: [] }, zones);
    expect(plan.rejected).toEqual([]);
    expect(plan.elsewhere).toEqual([]);
    expect(plan.groups[0]?.files).toEqual(['https://old.example.com/a']);
  });

  it('refuses them all when nothing of the zone named is left to purge', () => {
    const plan = planPurge(
      {
        zone: EXAMPLE,
        urls: ['https://static.example.com/a', 'https://shop.example.org/b'],
        tags: [],
      },
      ZONES,
    );
    expect(plan.elsewhere).toEqual([]);
    expect(plan.rejected).toEqual([
      {
        item: 'https://static.example.com/a',
        reason: 'served by the zone static.example.com, not example.com',
      },
      {
        item: 'https://shop.example.org/b',
        reason: 'served by the zone shop.example.org, not example.com',
      },
    ]);
  });
});
