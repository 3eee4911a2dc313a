import { describe, expect, it } from 'vitest';
import { shapeTraffic } from '../../../src/dev/console/traffic.js';
import { Sandbox } from '../../../src/dev/sandbox/server.js';
import { syntheticTraffic } from '../../../src/dev/sandbox/traffic.js';
import { ManualClock } from '../../helpers/clock.js';

const MINUTE = 60_000;
const now = Date.parse('2026-11-22T10:00:00Z');
const range = { since: now - 10 * MINUTE, until: now, granularity: 'minute' as const };
const window = { from: 0, to: now };

describe('sandbox traffic shapes', () => {
  it('multiplies requests in a spike, empties them in a drop, lowers hits in a hit-rate fall, only in their span', () => {
    const plain = syntheticTraffic('zone_a', range, window);
    const from = now - 5 * MINUTE;
    const spike = syntheticTraffic('zone_a', range, window, [
      { kind: 'spike', from, to: now, factor: 4 },
    ]);
    const drop = syntheticTraffic('zone_a', range, window, [
      { kind: 'drop', from, to: now, factor: 0 },
    ]);
    const fall = syntheticTraffic('zone_a', range, window, [
      { kind: 'hitrate', from, to: now, hitRate: 0.2 },
    ]);
    for (const [i, bucket] of plain.entries()) {
      const inside = bucket.start >= from;
      expect(spike[i]?.requests).toBe(inside ? Math.round(bucket.requests * 4) : bucket.requests);
      expect(drop[i]?.requests).toBe(inside ? 0 : bucket.requests);
      expect(fall[i]?.hits).toBe(inside ? Math.round(bucket.requests * 0.2) : bucket.hits);
    }
  });

  it('is driven from the console: shapes from the last whole minute, and activates a pending zone', () => {
    const clock = new ManualClock(now + 30_000);
    const sandbox = new Sandbox({ clock });
    const pending = sandbox.state.byName('launch.example.io');
    const active = sandbox.state.byName('example.com');
    if (!pending || !active) throw new Error('no demo zones');
    expect(sandbox.state.statusOf(pending)).toBe('pending');
    expect(shapeTraffic(sandbox, ['launch.example.io', 'live'])).toContain('is active now');
    expect(sandbox.state.statusOf(pending)).toBe('active');
    expect(shapeTraffic(sandbox, ['example.com', 'spike', '5'])).toContain('a spike for 5 min');
    expect(sandbox.state.shapesOf(active.id)).toEqual([
      { kind: 'spike', from: now - MINUTE, to: now + 5 * MINUTE },
    ]);
    expect(shapeTraffic(sandbox, ['nowhere.test', 'spike'])).toContain('No zone nowhere.test');
    expect(shapeTraffic(sandbox, ['example.com', 'wobble'])).toContain('Usage: /traffic');
    expect(shapeTraffic(undefined, ['example.com', 'spike'])).toContain('CDN_API_BASE_URL');
  });
});
