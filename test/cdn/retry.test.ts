import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter } from '../../src/cdn/retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Sun, 22 Nov 2026 12:00:30 GMT', 30_000],
    ['Sun, 22 Nov 2026 11:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    [undefined, undefined],
  ])('%j → %s ms', (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });
});

describe('backoffDelay', () => {
  it('stays below a doubling ceiling that stops at maxDelayMs', () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6].map((retry) =>
      backoffDelay(retry, DEFAULT_RETRY_POLICY, () => 0.9999999),
    );
    expect(ceilings).toEqual([249, 499, 999, 1999, 3999, 7999, 7999]);
    expect(backoffDelay(3, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });
});
