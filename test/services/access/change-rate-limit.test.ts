// The change rate limit: 10 changes a minute per user by default, shared by every replica through
// the database, smoothed over the previous minute, and saying how long to wait.

import { describe, expect, it } from 'vitest';
import { errorText } from '../../../src/blocks/errors.js';
import { AppError } from '../../../src/errors.js';
import { ChangeRateLimit } from '../../../src/services/access/change-rate-limit.js';
import { InstantClock } from '../../helpers/clock.js';
import { BACKENDS, testStore } from '../../helpers/store.js';

const refusal = async (promise: Promise<unknown>): Promise<AppError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe.each(BACKENDS)('ChangeRateLimit on $backend', ({ backend, skip }) => {
  it.skipIf(skip)('lets 10 changes through in a minute and refuses the 11th, clearly', async () => {
    const clock = new InstantClock(Date.parse('2026-11-22T12:00:05Z'));
    const { store } = await testStore(backend, { clock });
    const flood = new ChangeRateLimit(store, clock, 10);
    for (let i = 0; i < 10; i++) await flood.take('T1', 'U1');
    const error = await refusal(flood.take('T1', 'U1'));
    expect(error.problem).toEqual({ code: 'too_many_changes', limit: 10, retryInSeconds: 61 });
    expect(errorText(error).text).toBe(
      'Slow down: that is more than 10 changes (purges, new zones, rate-limit changes) from you in a minute. Nothing was sent to the CDN. Try again in 61 s.',
    );
    // Someone else, or the same user in another workspace, is not held back.
    await flood.take('T1', 'U2');
    await flood.take('T2', 'U1');

    // Refusals do not count: after the wait it says, the user may go on.
    await refusal(flood.take('T1', 'U1'));
    clock.advance(61_000);
    await flood.take('T1', 'U1');
    await refusal(flood.take('T1', 'U1'));
  });

  it.skipIf(skip)('refuses a second burst just past the minute of the first', async () => {
    const clock = new InstantClock(Date.parse('2026-11-22T12:00:00Z'));
    const { store } = await testStore(backend, { clock });
    const flood = new ChangeRateLimit(store, clock, 10);
    await flood.take('T1', 'U1');
    clock.advance(59_000);
    for (let i = 0; i < 9; i++) await flood.take('T1', 'U1');
    // A fixed window begun by the first change would start afresh here and let 10 more through.
    clock.advance(1_500);
    const error = await refusal(flood.take('T1', 'U1'));
    expect(error.problem).toMatchObject({ code: 'too_many_changes', limit: 10 });
  });

  it.skipIf(skip)('holds across replicas racing on one database', async () => {
    const clock = new InstantClock(Date.parse('2026-11-22T12:00:05Z'));
    const first = await testStore(backend, { clock });
    const replicas = await Promise.all(
      [0, 1, 2].map(async (i) =>
        i === 0
          ? first.store
          : (await testStore(backend, { clock, database: first.database })).store,
      ),
    );
    const floods = replicas.map((store) => new ChangeRateLimit(store, clock, 10));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => floods[i % 3]?.take('T1', 'U1')),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
  });

  it.skipIf(skip)('is off with a limit of 0', async () => {
    const { store, clock } = await testStore(backend);
    const flood = new ChangeRateLimit(store, clock, 0);
    for (let i = 0; i < 50; i++) await flood.take('T1', 'U1');
    expect(await store.db.selectFrom('change_counters').selectAll().execute()).toEqual([]);
  });
});
