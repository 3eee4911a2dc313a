// A concurrency limit with a fair queue: at most `inFlight` pieces of work at once, `queued` more
// waiting their turn, the rest refused at once (QueueFull), never held. Turns are shared fairly
// between keys (callers: the HTTP API's tokens): each key waits in its own line, and a free turn
// goes to the waiting key that holds the fewest turns now, in turn; one key's burst queues behind
// its own work, never in front of another's. While the event loop is busy (`busy`, see
// event-loop-busy.ts), work is let in one at a time. Past the queue the newest of the longest line
// makes room, unless that line is the newcomer's own.

/** Work refused because the queue is full. */
export class QueueFull extends Error {
  override readonly name = 'QueueFull';
}

export interface FairQueueLimits {
  /** Work run at once (the HTTP API: API_MAX_IN_FLIGHT). */
  inFlight: number;
  /** Work waiting for a turn beyond those (the HTTP API: API_MAX_QUEUED); past it, QueueFull. */
  queued: number;
}

export interface TurnOptions {
  /** Whose work it is (a token): turns are shared fairly between keys. Default: one key. */
  key?: string;
  /** The work's end (its client left): it leaves the line, rejected with the signal's reason. */
  signal?: AbortSignal;
}

interface Waiter {
  admit(): void;
  refuse(error: unknown): void;
}

export class FairQueue {
  #active = 0;
  #waiting = 0;
  /** Each key's waiting requests, first come first; the keys in the order their turn comes. */
  readonly #lines = new Map<string, Waiter[]>();
  /** Turns each key holds now (keys holding none are absent). */
  readonly #held = new Map<string, number>();

  /**
   * `busy`: whether the event loop is busy now; while it is, one request at a time (the turns
   * already given are kept, none is given beyond one). Default: never.
   */
  constructor(
    readonly limits: FairQueueLimits,
    private readonly busy: () => boolean = () => false,
  ) {
    if (limits.inFlight < 1 || limits.queued < 0)
      throw new TypeError('FairQueue: inFlight must be at least 1 and queued at least 0');
  }

  /** Requests being worked on now, and waiting for a turn. */
  get load(): { active: number; waiting: number } {
    return { active: this.#active, waiting: this.#waiting };
  }

  /**
   * Runs `work` in a turn: at once when one is free, else when its key's turn comes (see the
   * header); QueueFull when the queue is full and this request is the one to go.
   */
  async run<T>(work: () => Promise<T>, options: TurnOptions = {}): Promise<T> {
    const { key = '', signal } = options;
    signal?.throwIfAborted();
    if (this.#active >= this.#turns() && this.#waiting >= this.limits.queued)
      this.#makeRoomFor(key);
    await new Promise<void>((resolve, reject) => {
      const leave = () => {
        if (this.#remove(key, waiter)) reject(signal?.reason);
      };
      const waiter: Waiter = {
        admit: () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        },
        refuse: (error) => {
          signal?.removeEventListener('abort', leave);
          reject(error);
        },
      };
      signal?.addEventListener('abort', leave, { once: true });
      const line = this.#lines.get(key);
      if (line) line.push(waiter);
      else this.#lines.set(key, [waiter]);
      this.#waiting++;
      this.#admit();
    });
    try {
      return await work();
    } finally {
      this.#active--;
      const held = (this.#held.get(key) ?? 1) - 1;
      if (held > 0) this.#held.set(key, held);
      else this.#held.delete(key);
      this.#admit();
    }
  }

  /** Turns given at most now: all of them, or one while the event loop is busy. */
  #turns(): number {
    return this.busy() ? 1 : this.limits.inFlight;
  }

  /** Gives the free turns, each to the waiting key that holds the fewest (the earliest in turn). */
  #admit(): void {
    const turns = this.#waiting > 0 ? this.#turns() : 0;
    while (this.#waiting > 0 && this.#active < turns) {
      let next: string | undefined;
      for (const key of this.#lines.keys())
        if (next === undefined || (this.#held.get(key) ?? 0) < (this.#held.get(next) ?? 0))
          next = key;
      if (next === undefined) return;
      const line = this.#lines.get(next) ?? [];
      const waiter = line.shift();
      // Served: its key goes to the back of the turn, or out of it with no one left waiting.
      this.#lines.delete(next);
      if (line.length > 0) this.#lines.set(next, line);
      if (!waiter) continue;
      this.#waiting--;
      this.#active++;
      this.#held.set(next, (this.#held.get(next) ?? 0) + 1);
      waiter.admit();
    }
  }

  /**
   * The queue is full: the newest request of the longest line is refused to make room for `key`'s,
   * unless `key`'s own line is as long (then its newcomer is refused: QueueFull).
   */
  #makeRoomFor(key: string): void {
    const own = this.#lines.get(key)?.length ?? 0;
    let longest: string | undefined;
    for (const [other, line] of this.#lines)
      if (line.length > (longest === undefined ? own : (this.#lines.get(longest)?.length ?? 0)))
        longest = other;
    const evicted = longest === undefined ? undefined : this.#lines.get(longest)?.pop();
    if (longest === undefined || !evicted) throw new QueueFull('the queue is full');
    if (this.#lines.get(longest)?.length === 0) this.#lines.delete(longest);
    this.#waiting--;
    evicted.refuse(new QueueFull('the queue is full'));
  }

  /** Takes a waiting request out of its line; false when it is no longer there. */
  #remove(key: string, waiter: Waiter): boolean {
    const line = this.#lines.get(key);
    const at = line?.indexOf(waiter) ?? -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) this.#lines.delete(key);
    this.#waiting--;
    return true;
  }
}
