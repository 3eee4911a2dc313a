// Whether a failed CDN call may have taken effect: the same answer for an error as thrown and as a
// purge job stores it (a step's JSON), so a restarted job says what the first attempt would have.
import { describe, expect, it } from 'vitest';
import { CdnError } from '../../src/cdn/errors.js';
import { outcomeUnknown, restoredError, storedError } from '../../src/cdn/outcome.js';

/** A network error as the transport makes it: the socket's code somewhere in its causes. */
const network = (socketCode: string) =>
  new CdnError('network', `Cannot reach the CDN at cdn.example: (${socketCode})`, {
    cause: Object.assign(new Error('fetch failed'), { cause: { code: socketCode } }),
  });

const cases: Array<[string, CdnError, boolean]> = [
  ['a timeout', new CdnError('timeout', 'no answer within 10 s'), true],
  ['a 5xx', new CdnError('unavailable', 'Injected 503', { status: 503, requestId: 'r1' }), true],
  ['a connection lost after sending', network('ECONNRESET'), true],
  ['a connection refused (never sent)', network('ECONNREFUSED'), false],
  ['a DNS failure (never sent)', network('ENOTFOUND'), false],
  [
    'a batch a given-up job never sent',
    new CdnError('unavailable', 'not sent', { notSent: true }),
    false,
  ],
  [
    'a refusal',
    new CdnError('invalid_request', 'files must be in the zone', { status: 400 }),
    false,
  ],
  ['a rate limit', new CdnError('rate_limited', 'slow down', { status: 429 }), false],
];

describe('outcomeUnknown', () => {
  it.each(cases)('says whether %s is unknown, thrown and as stored', (_, error, unknown) => {
    expect(outcomeUnknown(error)).toBe(unknown);
    const stored = JSON.parse(JSON.stringify(storedError(error)));
    expect(outcomeUnknown(restoredError(stored))).toBe(unknown);
    expect(restoredError(stored)).toMatchObject({ code: error.code, message: error.message });
  });

  it('counts a network failure stored before `notSent` was kept as unknown (it may have gone)', () => {
    expect(outcomeUnknown(restoredError({ code: 'network', message: 'connection failed' }))).toBe(
      true,
    );
  });
});
