// Fault injection for the sandbox: errors, latency, hangs, bad bodies, resets on chosen requests.
import { failure, type Reply } from './http.js';

/** A fault for the next `times` requests matching `method` and `path` (relative to /v1). */
export type Fault = {
  method?: 'GET' | 'POST';
  path?: string | RegExp;
  times?: number;
} & (
  | {
      kind: 'status';
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
      /** Do the work first, then answer with this status (an outcome the client cannot know). */
      after?: boolean;
    }
  | { kind: 'latency'; ms: number }
  /** Never answer; with `after`, do the work first. */
  | { kind: 'hang'; after?: boolean }
  /** A 200 whose body is cut-off JSON. */
  | { kind: 'malformed' }
  /** Drop the connection without an answer. */
  | { kind: 'reset' }
);

/** The faults waiting for their requests, first injected first matched. */
export class Faults {
  readonly #pending: Array<Fault & { remaining: number }> = [];

  inject(fault: Fault): void {
    this.#pending.push({ ...fault, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.#pending.length = 0;
  }

  /** The fault for this request, if any; it counts as used once. */
  take(method: string, path: string): Fault | undefined {
    const index = this.#pending.findIndex(
      (fault) =>
        (fault.method === undefined || fault.method === method) &&
        (fault.path === undefined ||
          (typeof fault.path === 'string' ? fault.path === path : fault.path.test(path))),
    );
    const fault = this.#pending[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.#pending.splice(index, 1);
    return fault;
  }
}

export function faultReply(fault: Extract<Fault, { kind: 'status' }>): Reply {
  return {
    status: fault.status,
    body: fault.body ?? failure('injected', `Injected ${fault.status}`),
    ...(fault.headers ? { headers: fault.headers } : {}),
  };
}
