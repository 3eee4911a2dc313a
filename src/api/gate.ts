// How many HTTP API requests this process works on at once, and how many may wait their turn: a
// burst of CI requests queues here, cheaply, instead of all holding database connections and
// event-loop turns at once, so Slack's acks (served by the same process) keep their latency.
// Past the queue a request is refused at once (503 `busy`, with Retry-After), never held.

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

export class ApiGate {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limits: GateLimits) {
    if (limits.inFlight < 1 || limits.queued < 0)
      throw new TypeError('ApiGate: inFlight must be at least 1 and queued at least 0');
  }

  /** Requests being worked on now, and waiting for a turn. */
  get load(): { active: number; waiting: number } {
    return { active: this.#active, waiting: this.#waiting.length };
  }

  /** Runs `work` when a turn is free (first come, first served); GateFull when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limits.inFlight) {
      if (this.#waiting.length >= this.limits.queued) throw new GateFull('the API is busy');
      // The turn is handed over by the one that ends (#active is not decremented in between).
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else this.#active++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
