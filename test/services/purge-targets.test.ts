import { describe, expect, it } from 'vitest';
import type { Zone } from '../../src/cdn/schemas.js';
import { parsePurgeArgs, planPurge } from '../../src/services/purge-targets.js';

const zone = (name: string, status = 'active'): Zone => ({
  id: `id-${name}`,
  name,
  status,
  createdAt: '',
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
    };
    expect(planPurge({ zone, urls: ['https://old.example/a'], tags: ['t'] }, [zone])).toEqual({
      groups: [],
      rejected: [
        { item: 'https://old.example/a', reason: 'the zone old.example is deleted' },
        { item: 'tag:t', reason: 'the zone old.example is deleted' },
      ],
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
        urls: ['https://example.org/x', 'ftp://example.com/y', 'https://evil.com/?example.com'],
        tags: [],
      },
      ZONES,
    );
    expect(plan.rejected.map((r) => r.reason)).toEqual([
      'example.org is outside the zone example.com',
      'only http:// and https:// URLs can be purged',
      'evil.com is outside the zone example.com',
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
