// A sliding-window rate limit's arithmetic: the previous window weighed by how much of it is still
// inside the last one, and how long until one more fits. The store's side: the change rate limit
// (test/services/access/change-rate-limit.test.ts).

import { describe, expect, it } from 'vitest';
import { estimate, waitMs } from '../../src/throttles/sliding-window-rate-limit.js';

describe('the sliding-window arithmetic', () => {
  it('weighs the previous minute by how much of it is still inside the last 60 s', () => {
    expect(estimate(10, 0, 0)).toBe(10);
    expect(estimate(10, 2, 30_000)).toBe(7);
    expect(estimate(10, 2, 60_000)).toBe(2);
  });

  it('says how long until one more change fits', () => {
    // 10 this minute, 12 s in: wait for the next minute, then until 10 × (1 − t) + 1 ≤ 10 (t = 6 s).
    expect(waitMs(10, 0, 10, 12_000)).toBe(48_000 + 6_000);
    // 10 last minute, 3 this minute, 30 s in: 10 × (1 − t) + 4 ≤ 10 → t ≥ 24 s: already.
    expect(waitMs(10, 10, 3, 30_000)).toBe(0);
    // 10 last minute, 5 this minute, 30 s in: t ≥ 60 × (1 − 4/10) = 36 s → 6 s more.
    expect(waitMs(10, 10, 5, 30_000)).toBe(6_000);
  });
});
