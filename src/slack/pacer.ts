// Spaces out Web API calls that Slack limits by rate, across every replica: one post per second
// per channel, and each file method within its tier (Tier 4: Slack's 100 a minute per workspace,
// of which background work takes 80). Each call first takes a slot (RateSlotRepository, one statement on the shared database) and waits
// for it, so replicas posting to one channel or one workspace never collide into a 429.
import type { Clock } from '../clock.js';

/** Where slots are kept: the store (every replica), or this process alone (tests, tools). */
export interface SlotSource {
  /**
   * The time at which the caller may go, at or after `notBefore`; the next slot of `key` is
   * `gapMs` after it.
   */
  take(key: string, gapMs: number, notBefore?: number): Promise<number>;
  prune?(): Promise<number>;
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

/** Slack's limits, as gaps between calls under one key. */
export const SLACK_GAPS = {
  /**
   * Messages in one channel: one a second, and a fifth more for the time between taking a slot and
   * the post reaching Slack (measured: at 1,000 ms, 16 of 1,000 reports met a 429).
   */
  channelPostMs: 1_200,
  /**
   * A Tier 4 method in one workspace: Slack allows 100 a minute; background work keeps to 80, so
   * that 20 are left for charts people ask for (which never wait for a slot).
   */
  tier4Ms: 750,
  /**
   * A Tier 3 method in one workspace (chat.update: Tier 3, 50+ a minute,
   * https://api.slack.com/methods/chat.update): background work keeps to 40, leaving 10 for the
   * edits people's clicks make (which never wait for a slot).
   */
  tier3Ms: 1_500,
} as const;

const PRUNE_EVERY_MS = 15 * 60_000;

export class Pacer {
  #pruned: number;

  constructor(
    private readonly slots: SlotSource,
    private readonly clock: Clock,
  ) {
    this.#pruned = clock.now();
  }

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
    if (this.slots.prune && this.clock.now() - this.#pruned > PRUNE_EVERY_MS) {
      this.#pruned = this.clock.now();
      await this.slots.prune().catch(() => 0);
    }
    return call();
  }
}

/** The key of a channel's posts and of a workspace's method, as the pacer takes them. */
export const paceKeys = {
  channel: (workspaceId: string, channelId: string): [string, number] => [
    `slack:channel:${workspaceId}:${channelId}`,
    SLACK_GAPS.channelPostMs,
  ],
  tier4: (workspaceId: string, method: string): [string, number] => [
    `slack:method:${workspaceId}:${method}`,
    SLACK_GAPS.tier4Ms,
  ],
  tier3: (workspaceId: string, method: string): [string, number] => [
    `slack:method:${workspaceId}:${method}`,
    SLACK_GAPS.tier3Ms,
  ],
};
