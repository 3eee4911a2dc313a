// Whether the event loop has been busy lately: the signal the fair queue (fair-queue.ts) and the
// event-loop pace (event-loop-pace.ts) act on. Its utilisation (the share of the time it spent
// running callbacks rather than waiting for I/O) over the last window of at least `windowMs`, read
// when asked, with no timer of its own. Slack's acks share this loop: past the share
// (BACKGROUND_LOOP_PERCENT), a request that arrives waits for callbacks already queued (see
// docs/api.md, "Under load").
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

/** The loop counts as busy above this share of a window spent running callbacks (by default). */
export const BUSY_SHARE = 0.5;
/** The shortest window measured (by default): a shorter one would follow single callbacks. */
const WINDOW_MS = 50;

export class EventLoopBusy {
  #mark: EventLoopUtilization;
  #busy = false;

  constructor(
    private readonly share = BUSY_SHARE,
    /** Node's cumulative utilisation (tests give their own). */
    private readonly utilization: (
      now?: EventLoopUtilization,
      before?: EventLoopUtilization,
    ) => EventLoopUtilization = performance.eventLoopUtilization,
    private readonly windowMs = WINDOW_MS,
  ) {
    this.#mark = this.utilization();
  }

  /** Whether the loop ran callbacks more than `share` of the last complete window. */
  readonly busy = (): boolean => {
    const now = this.utilization();
    const window = this.utilization(now, this.#mark);
    if (window.idle + window.active >= this.windowMs) {
      this.#busy = window.utilization > this.share;
      this.#mark = now;
    }
    return this.#busy;
  };
}
