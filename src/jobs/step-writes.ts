// A job attempt's step results, written together when they end together: a purge's batches are
// sent several at once and mostly end within the same moment, so each result waits for the write
// under way (and for the end of the event loop's turn) and then goes with the others waiting, in
// one statement. Each result is still stored before the job goes on to its end (its promise
// settles when its own write has), and a write's failure fails every result it carried.

/** What a write of several steps answers: the indexes it closed (the others: lease lost). */
export type WriteSteps = (
  results: ReadonlyArray<{ idx: number; result: unknown }>,
) => Promise<ReadonlySet<number>>;

interface Waiting {
  idx: number;
  result: unknown;
  resolve: (closed: boolean) => void;
  reject: (error: unknown) => void;
}

/** At most this many results in one statement (bound parameters stay well within limits). */
const MAX_PER_WRITE = 200;

export class StepWrites {
  readonly #waiting: Waiting[] = [];
  #writing = false;

  constructor(private readonly write: WriteSteps) {}

  /** Closes step `idx` with `result`: true once stored, false when it was not (lease lost). */
  add(idx: number, result: unknown): Promise<boolean> {
    const closed = new Promise<boolean>((resolve, reject) =>
      this.#waiting.push({ idx, result, resolve, reject }),
    );
    if (!this.#writing) {
      this.#writing = true;
      // Results that end in this same turn (answers read together) join the first write.
      setImmediate(() => void this.#drain());
    }
    return closed;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, MAX_PER_WRITE);
        try {
          const closed = await this.write(batch.map(({ idx, result }) => ({ idx, result })));
          for (const step of batch) step.resolve(closed.has(step.idx));
        } catch (error) {
          for (const step of batch) step.reject(error);
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}
