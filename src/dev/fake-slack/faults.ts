// Faults the fake Slack injects on chosen calls, as the sandbox's do for the CDN: an error status,
// a late answer, no answer at all, or a dropped connection, on a Web API method or on response_urls.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A fault for the next `times` calls to `method` (default: any call). */
export type SlackFault = {
  /** A Web API method (`views.open`), a pattern, or `response_url` for posts to response_urls. */
  method?: string | RegExp;
  times?: number;
} & (
  | {
      kind: 'status';
      status: number;
      /** The body, as is (default: Slack's JSON for an internal error; a response_url's word). */
      body?: string;
      headers?: Record<string, string>;
    }
  | { kind: 'latency'; ms: number }
  /** Never answer (until the caller gives up, or the fake Slack closes). */
  | { kind: 'hang' }
  /** Drop the connection without an answer. */
  | { kind: 'reset' }
);

/** One call a fault was injected on: when (wall time), and when its caller gave up, if it did. */
export interface FaultHit {
  method: string;
  kind: SlackFault['kind'];
  at: number;
  /** When the caller closed the connection of a `hang` (it stopped waiting). */
  abandonedAt?: number;
}

export class SlackFaults {
  readonly #pending: Array<SlackFault & { remaining: number }> = [];

  inject(fault: SlackFault): void {
    this.#pending.push({ ...fault, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.#pending.length = 0;
  }

  /** The fault for this call, if any; it counts as used once. */
  take(method: string): SlackFault | undefined {
    const index = this.#pending.findIndex(
      (fault) =>
        fault.method === undefined ||
        (typeof fault.method === 'string' ? fault.method === method : fault.method.test(method)),
    );
    const fault = this.#pending[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.#pending.splice(index, 1);
    return fault;
  }
}

/**
 * Answers `res` as `fault` says; resolves once the fault is done with it. A latency fault resolves
 * `true` when the call should then go on as usual.
 */
export async function applyFault(
  fault: SlackFault,
  hit: FaultHit,
  req: IncomingMessage,
  res: ServerResponse,
  onAbandoned: (hit: FaultHit) => void,
): Promise<boolean> {
  switch (fault.kind) {
    case 'status': {
      // By default Slack's own words: internal_error ("The server could not complete your
      // operation(s) without encountering an error": every method's errors, e.g.
      // https://api.slack.com/methods/apps.connections.open); a response_url answers in plain text.
      const body =
        fault.body ??
        (hit.method === 'response_url'
          ? 'internal_error'
          : '{"ok":false,"error":"internal_error"}');
      res
        .writeHead(fault.status, {
          'content-type': hit.method === 'response_url' ? 'text/plain' : 'application/json',
          ...fault.headers,
        })
        .end(body);
      return false;
    }
    case 'latency':
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
      return true;
    case 'hang':
      req.socket.once('close', () => {
        hit.abandonedAt = Date.now();
        onAbandoned(hit);
      });
      return false;
    case 'reset':
      req.socket.destroy();
      return false;
  }
}
