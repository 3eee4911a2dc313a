// How many HTTP API requests this process works on at once, and how many may wait their turn: a
// burst of CI requests queues here, cheaply, instead of all holding database connections and
// event-loop turns at once, so Slack's acks (served by the same process) keep their latency.
// Turns are shared fairly between callers (tokens): each waits in its own line, and a free turn
// goes to the waiting caller that holds the fewest turns now, in turn; one caller's burst queues
// behind its own requests, never in front of another's. While the event loop is busy (see
// LoopBusy), requests are worked on one at a time: Slack's requests take no turn, and find the loop
// free sooner. Past the queue a request is refused at once (503 `busy`, with Retry-After), never
// held: the newest of the longest line makes room, unless that line is the newcomer's own.

/** A request refused because the gate's queue is full. */
export class GateFull extends Error {
  override readonly name = 'GateFull';
}

export interface GateLimits {
  /** Requests worked on at once (API_MAX_IN_FLIGHT). */
  inFlight: number;
  /** Requests waiting for a turn beyond those (API_MAX_QUEUED); past it, GateFull. */
  queued: number;
}

export interface TurnOptions {
  /** Whose request it is (a token): turns are shared fairly between keys. Default: one key. */
  key?: string;
  /** The request's end (its client left): it leaves the line, rejected with the signal's reason. */
  signal?: AbortSignal;
}

interface Waiter {
  admit(): void;
  refuse(error: unknown): void;
}

export class ApiGate {
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
    readonly limits: GateLimits,
    private readonly busy: () => boolean = () => false,
  ) {
    if (limits.inFlight < 1 || limits.queued < 0)
      throw new TypeError('ApiGate: inFlight must be at least 1 and queued at least 0');
  }

  /** Requests being worked on now, and waiting for a turn. */
  get load(): { active: number; waiting: number } {
    return { active: this.#active, waiting: this.#waiting };
  }

  /**
   * Runs `work` in a turn: at once when one is free, else when its key's turn comes (see the
   * header); GateFull when the queue is full and this request is the one to go.
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
   * unless `key`'s own line is as long (then its newcomer is refused: GateFull).
   */
  #makeRoomFor(key: string): void {
    const own = this.#lines.get(key)?.length ?? 0;
    let longest: string | undefined;
    for (const [other, line] of this.#lines)
      if (line.length > (longest === undefined ? own : (this.#lines.get(longest)?.length ?? 0)))
        longest = other;
    const evicted = longest === undefined ? undefined : this.#lines.get(longest)?.pop();
    if (longest === undefined || !evicted) throw new GateFull('the API is busy');
    if (this.#lines.get(longest)?.length === 0) this.#lines.delete(longest);
    this.#waiting--;
    evicted.refuse(new GateFull('the API is busy'));
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
