// Slack's rate limits, honoured per workspace, method and channel (a retry-after backoff,
// src/throttles): a 429's Retry-After closes that one window, and later calls through it wait it
// out (or are refused at once when the wait would not fit), instead of the Web API client's
// default of pausing every call of the process.
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { RetryAfterBackoff } from '../throttles/retry-after-backoff.js';

/** How long a call may wait for a closed window before it is refused (a 429 it never sent). */
export interface WindowWait {
  maxWaitMs: number;
  /** A deadline for requests that are not Web API calls (Bolt's respond() sets none). */
  otherTimeoutMs: number;
}

/** Tries of one call that each met a 429 within their wait before it is handed back. */
const MAX_WAITED_TRIES = 3;

export class SlackRateLimits {
  readonly #apiUrl: string;
  readonly #backoff: RetryAfterBackoff;

  constructor(
    private readonly options: {
      /** The Web API base (SLACK_API_URL): calls under it are rate-limited per window. */
      apiUrl: string;
      clock: Clock;
      logger: Logger;
    },
  ) {
    this.#apiUrl = options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`;
    this.#backoff = new RetryAfterBackoff(options.clock);
  }

  /** When the window of this call opens again, if it is closed now (for tests and logs). */
  closedUntil(window: { token?: string; method: string; channel?: string }): number | undefined {
    return this.#backoff.closedUntil(windowKey(window.token, window.method, window.channel));
  }

  /** A fetch for a WebClient (its `fetch` option; Bolt's respond() uses it too). */
  fetchFor(wait: WindowWait): typeof fetch {
    const send = globalThis.fetch;
    return async (input, init = {}) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.startsWith(this.#apiUrl)) {
        // A response_url (Bolt's respond) or an upload URL: bounded like any call.
        return send(
          input,
          init.signal ? init : { ...init, signal: AbortSignal.timeout(wait.otherTimeoutMs) },
        );
      }
      const method = url.slice(this.#apiUrl.length).split('?')[0] ?? '';
      const key = windowKey(tokenOf(init.headers), method, channelOf(init.body));
      for (let tries = 1; ; tries++) {
        const closedFor = this.#backoff.closedFor(key);
        if (closedFor > wait.maxWaitMs) return refused(closedFor);
        if (closedFor > 0) await this.options.clock.sleep(closedFor, init.signal ?? undefined);
        const response = await send(input, init);
        if (response.status !== 429) return response;
        const retryAfterMs = retryAfterOf(response);
        if (retryAfterMs === undefined) return response;
        this.#backoff.close(key, retryAfterMs);
        this.options.logger.warn(
          { method, channel: channelOf(init.body), retryAfterMs },
          'Slack rate limited a call; calls to that method and channel wait for it',
        );
        if (retryAfterMs > wait.maxWaitMs || tries >= MAX_WAITED_TRIES) return response;
        await response.body?.cancel();
      }
    };
  }
}

/** One window: the workspace (its token, hashed: never kept or logged), the method, the channel. */
function windowKey(token: string | undefined, method: string, channel: string | undefined): string {
  const who = token ? createHash('sha256').update(token).digest('base64url').slice(0, 16) : '';
  return `${who}|${method}|${channel ?? ''}`;
}

function tokenOf(headers: RequestInit['headers']): string | undefined {
  const authorization = new Headers(headers).get('authorization');
  return /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
}

/** The channel a call is about, from its form body (Slack's own encoding) or multipart form. */
function channelOf(body: RequestInit['body']): string | undefined {
  let channel: unknown;
  if (typeof body === 'string') {
    const fields = new URLSearchParams(body);
    channel = fields.get('channel') ?? fields.get('channel_id');
  } else if (body instanceof URLSearchParams || body instanceof FormData) {
    channel = body.get('channel') ?? body.get('channel_id');
  }
  return typeof channel === 'string' && channel !== '' ? channel : undefined;
}

function retryAfterOf(response: Response): number | undefined {
  const seconds = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  return Number.isNaN(seconds) || seconds < 0 ? undefined : seconds * 1_000;
}

/** The answer Slack would give, without asking it: the window is closed for longer than we wait. */
function refused(closedForMs: number): Response {
  return new Response('{"ok":false,"error":"ratelimited"}', {
    status: 429,
    headers: {
      'content-type': 'application/json',
      'retry-after': String(Math.max(1, Math.ceil(closedForMs / 1_000))),
    },
  });
}
