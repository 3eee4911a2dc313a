// A pace on calls per key, across every replica: a call takes a slot of each of its keys in turn
// (the store's RateSlotRepository: one statement moves the key's next slot a gap on) and waits for
// the last of them, so replicas never call closer than a key's gap; none is refused. Slack's gaps
// and keys: src/slack/web-api-paces.ts. Written here: maintained limiters queue calls in one
// process (rate-limiter-flexible's RateLimiterQueue) or need Redis (bottleneck), and none chains
// keys, hands out a slot without waiting (durable messages) or sleeps on an injected clock.
import type { Clock } from '../clock.js';

/** Where slots are kept: the store (every replica), or this process alone (tests, tools). */
export interface SlotSource {
  /**
   * The time at which the caller may go, at or after `notBefore`; the next slot of `key` is
   * `gapMs` after it.
   */
  take(key: string, gapMs: number, notBefore?: number): Promise<number>;
}

/** Slots in this process's memory: for one process alone. */
export class LocalSlots implements SlotSource {
  readonly #next = new Map<string, number>();
  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  async take(key: string, gapMs: number, notBefore = 0): Promise<number> {
    const at = Math.max(this.#next.get(key) ?? 0, this.clock.now(), notBefore);
    this.#next.set(key, at + gapMs);
    return at;
  }
}

/** Slots long past are deleted by the retention sweep (src/jobs/retention.ts). */
export class CallPace {
  constructor(
    private readonly slots: SlotSource,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `call` once every key's slot has come. The keys are taken in order, each slot no sooner
   * than the ones before it: the last key's slot is the moment the call goes, so put the strictest
   * limit (a channel's) last. A wait cut short by `signal` throws its reason, and the call is not
   * made (the slots taken are left unused).
   */
  async turn<T>(
    keys: ReadonlyArray<[key: string, gapMs: number]>,
    call: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    let at = 0;
    for (const [key, gapMs] of keys) at = await this.slots.take(key, gapMs, at);
    const wait = at - this.clock.now();
    if (wait > 0) await this.clock.sleep(wait, signal);
    signal?.throwIfAborted();
    return call();
  }
}
