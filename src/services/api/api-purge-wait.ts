// A GET that waits (`?wait`): held until the purge's status changes, its time is up or the client
// leaves; woken at once by a change this process wrote, else by reading the store every `pollMs`
// (purges of URLs or tags: one shared read for every wait), so a change on any replica is seen.
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../logger.js';
import type { ApiPurge } from '../../store/api-purges.js';
import { FINAL_STATUSES } from '../../store/api-purges.js';
import type { Store } from '../../store/index.js';
import type { ApiPurgeState } from './api-purge-status.js';

/** A wait on a purge: the status it started from, and how to wake it (with the purge, if read). */
interface Waiter {
  status: string;
  wake: (purge?: ApiPurge) => void;
}

export class ApiPurgeWaits {
  readonly #changes = new EventEmitter();
  /** Waits on purges of URLs or tags, by id: what each saw first, and how to wake it. */
  readonly #watched = new Map<string, Set<Waiter>>();
  #watching = false;

  constructor(private readonly deps: { store: Store; logger: Logger; pollMs: number }) {
    this.#changes.setMaxListeners(0);
  }

  /** A purge this process just wrote: its waits wake at once, with it. */
  changed(purge: ApiPurge): void {
    this.#changes.emit(purge.id, purge);
  }

  /**
   * Held from `first` until the status differs, or `seconds` pass, or `signal` aborts. A purge of
   * URLs or tags is watched by one reader for all the waits of this process; a purge of
   * everything, whose status also comes from its approval and the clock, is read on its own.
   * `read`: the state now, from the purge a wake brought (if any), else read again.
   */
  async waitFrom(
    first: ApiPurgeState,
    seconds: number,
    signal: AbortSignal,
    read: (seen: ApiPurge | undefined) => Promise<ApiPurgeState>,
  ): Promise<ApiPurgeState> {
    if (seconds <= 0 || (first.status !== 'scheduled' && FINAL_STATUSES.has(first.status)))
      return first;
    const id = first.id;
    const deadline = AbortSignal.timeout(seconds * 1000);
    const stop = AbortSignal.any([deadline, signal]);
    // A scheduled purge's status also comes from its job: read on its own, as everything's.
    const shared = first.kind !== 'everything' && first.status !== 'scheduled';
    for (;;) {
      const woken = new AbortController();
      // Woken with the purge as it now is (written here, or read by the shared reader), if known.
      let seen: ApiPurge | undefined;
      const wake = (purge?: ApiPurge) => {
        seen ??= purge;
        woken.abort();
      };
      this.#changes.once(id, wake);
      const watch = { status: first.status, wake };
      if (shared) this.#watch(id, watch);
      else
        void delay(this.deps.pollMs, undefined, { signal: AbortSignal.any([stop, woken.signal]) })
          .then(wake)
          .catch(() => undefined);
      await new Promise<void>((resolve) => {
        const any = AbortSignal.any([stop, woken.signal]);
        if (any.aborted) resolve();
        else any.addEventListener('abort', () => resolve(), { once: true });
      });
      this.#changes.off(id, wake);
      if (shared) this.#unwatch(id, watch);
      const now = await read(seen);
      if (now.status !== first.status || stop.aborted) return now;
    }
  }

  #watch(id: string, waiter: Waiter): void {
    const set = this.#watched.get(id) ?? new Set();
    this.#watched.set(id, set);
    set.add(waiter);
    if (!this.#watching) {
      this.#watching = true;
      void this.#readWatched();
    }
  }

  #unwatch(id: string, waiter: Waiter): void {
    const set = this.#watched.get(id);
    set?.delete(waiter);
    if (set?.size === 0) this.#watched.delete(id);
  }

  /** While anyone waits: every `pollMs`, one read of every watched status; wakes who differs. */
  async #readWatched(): Promise<void> {
    // Cleared in the same turn as the last look at #watched: a wait added after it starts a reader.
    try {
      while (this.#watched.size > 0) {
        await delay(this.deps.pollMs);
        if (this.#watched.size === 0) return;
        const purges = await this.deps.store.apiPurges
          .many([...this.#watched.keys()])
          .catch((error: unknown) => {
            this.deps.logger.warn({ err: error }, 'waiting API purges not read');
            return undefined;
          });
        if (!purges) continue;
        const woken: Array<() => void> = [];
        for (const [id, waiters] of this.#watched) {
          const purge = purges.get(id);
          // A purge gone (pruned) wakes its waiters too: their read answers what is there now.
          for (const waiter of waiters)
            if (purge?.status !== waiter.status) woken.push(() => waiter.wake(purge));
        }
        // One answer per turn of the event loop: a hundred reads woken at once would otherwise
        // answer in one go, and a Slack request arriving meanwhile would wait for all of them.
        for (const wake of woken) {
          wake();
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      this.#watching = false;
    }
  }
}
