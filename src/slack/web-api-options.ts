// The Web API client's settings, explicit rather than its defaults (10 retries over about 30
// minutes, no timeout): a call made while a user waits gives up within SLACK_REQUEST_BUDGET_MS in
// all; a background call within a few tries, after which its job records the failure and retries
// later. Neither pauses the whole client on a 429: SlackRateLimits holds only that window. A paced
// call (an API purge's message, which keeps Slack's pace itself: durable-message.ts) never waits
// for a window: a 429, or a window still closed, comes back at once with its Retry-After.
import type { WebClientOptions } from '@slack/web-api';
import type { SlackApiSettings } from '../config.js';
import type { SlackRateLimits } from './rate-limits.js';

/** The longest pause between two tries of an interactive call. */
const INTERACTIVE_MAX_DELAY_MS = 1_000;

export interface WebApiOptions {
  /** For Bolt's clients (every listener's `client`, `respond`) and app.client. */
  interactive: WebClientOptions;
  /** For work outside a request: jobs' messages, reports, approval notices. */
  background: WebClientOptions;
  /** As `background`, for messages whose job comes back when Slack says, rather than waiting. */
  paced: WebClientOptions;
}

export function webApiOptions(settings: SlackApiSettings, limits: SlackRateLimits): WebApiOptions {
  const { timeoutMs, budgetMs, backgroundTimeoutMs, backgroundRetries } = settings;
  const maxDelay = Math.min(INTERACTIVE_MAX_DELAY_MS, Math.floor(budgetMs / 10));
  const background: WebClientOptions = {
    timeout: backgroundTimeoutMs,
    rejectRateLimitedCalls: true,
    retryConfig: {
      retries: backgroundRetries,
      factor: 2,
      minTimeout: 500,
      maxTimeout: 5_000,
      randomize: true,
    },
  };
  return {
    interactive: {
      timeout: timeoutMs,
      // A 429 is SlackRateLimits' to hold per window; the client would pause every call.
      rejectRateLimitedCalls: true,
      retryConfig: {
        retries: 2,
        factor: 2,
        minTimeout: Math.min(250, maxDelay),
        maxTimeout: maxDelay,
        randomize: false,
        // No try starts after this, so the last one ends within the budget (0 would mean no limit).
        maxRetryTime: Math.max(1, budgetMs - timeoutMs - maxDelay),
      },
      fetch: limits.fetchFor({ maxWaitMs: Math.floor(timeoutMs / 2), otherTimeoutMs: budgetMs }),
    },
    background: {
      ...background,
      fetch: limits.fetchFor({
        maxWaitMs: Math.floor(backgroundTimeoutMs / 2),
        otherTimeoutMs: backgroundTimeoutMs,
      }),
    },
    paced: {
      ...background,
      fetch: limits.fetchFor({ maxWaitMs: 0, otherTimeoutMs: backgroundTimeoutMs }),
    },
  };
}
