// How many HTTP API requests this process works on at once, and how many may wait their turn: a
// burst of CI requests queues here, cheaply, instead of all holding database connections and
// event-loop turns at once, so Slack's acks (served by the same process) keep their latency.
// While the event loop is busy (see LoopBusy), requests are worked on one at a time: Slack's
// requests take no turn, and find the loop free sooner. Past the queue a request is refused at
// once (503 `busy`, with Retry-After), never held.

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
    return { active: this.#active, waiting: this.#waiting.length };
  }

  /** Runs `work` when a turn is free (first come, first served); GateFull when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#turns() && this.#waiting.length >= this.limits.queued)
      throw new GateFull('the API is busy');
    const turn = new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#admit();
    await turn;
    try {
      return await work();
    } finally {
      this.#active--;
      this.#admit();
    }
  }

  /** Turns given at most now: all of them, or one while the event loop is busy. */
  #turns(): number {
    return this.busy() ? 1 : this.limits.inFlight;
  }

  /** Gives the free turns to the first waiting, in order. */
  #admit(): void {
    const turns = this.#waiting.length > 0 ? this.#turns() : 0;
    while (this.#waiting.length > 0 && this.#active < turns) {
      this.#active++;
      this.#waiting.shift()?.();
    }
  }
}
