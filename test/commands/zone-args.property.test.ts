// Reading commands that may leave their zone out (the channel's default is used): a state, a range
// or a path is never taken for a zone, and a zone named first is always read as one.
import { describe, expect, it } from 'vitest';
import { parseCommand, suggestSubcommand } from '../../src/commands/parse.js';
import { SUBCOMMAND_NAMES } from '../../src/listeners/commands/registry.js';
import { parseAnalyticsArgs, RANGES } from '../../src/services/analytics/analytics.js';
import { parsePurgeArgs } from '../../src/services/purge/purge-targets.js';
import { parseRateLimitArgs } from '../../src/services/zones/ratelimit.js';
import { anyText, fc, RUNS } from '../helpers/property.js';

/** Zone names as people type them: lowercase or not, with a trailing dot or not, or an id. */
const zoneName = fc.oneof(
  fc.domain().map((d) => d.replace(/^[^a-z]+/i, 'z')),
  fc.domain().map((d) => `${d.toUpperCase()}.`),
  fc.stringMatching(/^zone_[a-z0-9]{6,12}$/),
);
const onOff = fc.constantFrom('on', 'off', 'ON', 'Off');
const range = fc.constantFrom(...Object.keys(RANGES));
const granularity = fc.constantFrom('minute', '5min', 'hour', 'day');
const path = fc.webPath().filter((p) => p.startsWith('/') && !p.startsWith('//') && !/\s/.test(p));

describe('commands whose zone may be left out', () => {
  it('ratelimit: `on|off` alone names no zone; `<zone> on|off` names it', () => {
    fc.assert(
      fc.property(zoneName, onOff, (zone, state) => {
        const enabled = state.toLowerCase() === 'on';
        expect(parseRateLimitArgs([state])).toEqual({ enabled });
        expect(parseRateLimitArgs([zone, state])).toEqual({ zone, enabled });
        expect(parseRateLimitArgs([state, state])).toBeUndefined();
        expect(parseRateLimitArgs([zone])).toEqual({ zone });
        expect(parseRateLimitArgs([zone, state, state])).toBeUndefined();
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('analytics: a first word that is a range or granularity names no zone', () => {
    fc.assert(
      fc.property(
        zoneName,
        fc.subarray([range, granularity]).chain((parts) => fc.tuple(...parts)),
        (zone, words) => {
          const alone = parseAnalyticsArgs(words);
          if (alone.ok) expect(alone.zone).toBeUndefined();
          else expect(alone.problem?.code).toBe('too_many_points');
          const named = parseAnalyticsArgs([zone, ...words]);
          if (named.ok) expect(named.zone).toBe(zone);
          else expect(named.problem?.code).toBe('too_many_points');
        },
      ),
      { numRuns: RUNS.pure },
    );
  });

  it('purge: paths, tags and `everything` alone name no zone; a zone first is read as one', () => {
    fc.assert(
      fc.property(zoneName, fc.array(path, { minLength: 1, maxLength: 5 }), (zone, paths) => {
        expect(parsePurgeArgs(paths)).toEqual({
          kind: 'items',
          urls: [],
          tags: [],
          unknown: [],
          paths,
        });
        expect(parsePurgeArgs([zone, ...paths])).toEqual({
          kind: 'items',
          zone,
          urls: [],
          tags: [],
          unknown: [],
          paths,
        });
        expect(parsePurgeArgs(['tag:a', ...paths])).toMatchObject({ kind: 'items', tags: ['a'] });
        expect(parsePurgeArgs(['everything'])).toEqual({ kind: 'everything' });
        expect(parsePurgeArgs([zone, 'everything'])).toEqual({ kind: 'everything', zone });
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('never throws, and never takes a state, a range, a path or a URL for a zone', () => {
    fc.assert(
      fc.property(fc.array(anyText(40), { maxLength: 8 }), (words) => {
        const rate = parseRateLimitArgs(words);
        if (rate?.zone !== undefined) expect(['on', 'off']).not.toContain(rate.zone.toLowerCase());
        const chart = parseAnalyticsArgs(words);
        if (chart.ok && chart.zone !== undefined) {
          expect(Object.keys(RANGES)).not.toContain(chart.zone.toLowerCase());
          expect(['minute', '5min', 'hour', 'day']).not.toContain(chart.zone.toLowerCase());
        }
        const purge = parsePurgeArgs(words);
        if (purge.zone !== undefined) {
          expect(purge.zone).not.toMatch(/^\/(?!\/)|^tag:|^[a-z][a-z0-9+.-]*:\/\//i);
        }
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('`/cdn use` is found from its swapped-letter typo, and channel mentions give their ids', () => {
    expect(suggestSubcommand('ues', SUBCOMMAND_NAMES)).toBe('use');
    expect(parseCommand('use  shop.example.org ')).toMatchObject({
      name: 'use',
      args: ['shop.example.org'],
    });
    expect(parseCommand('config <#C0123|ops> <#C0123> #ops <@U1>').tokens).toMatchObject([
      { kind: 'channel', id: 'C0123' },
      { kind: 'channel', id: 'C0123' },
      { kind: 'word', text: '#ops' },
      { kind: 'user', id: 'U1' },
    ]);
  });
});
