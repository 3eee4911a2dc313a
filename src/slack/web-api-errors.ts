// What the Web API said went wrong: its error code; a refusal to post somewhere the user chose
// (not in the channel, archived, app removed) as AppError cannot_post; a spent trigger or Slack not
// answering in time as the problem the user reads; anything else stays as it was.
import { isPostRefusal } from '../blocks/problems.js';
import { AppError, type PostPlace } from '../errors.js';
import { cannotReach, unreachableOf } from '../network-failures.js';

/** The Web API error code an error carries (`not_in_channel`), if any. */
export function slackErrorCode(error: unknown): string | undefined {
  return (error as { data?: { error?: unknown } } | undefined)?.data?.error as string | undefined;
}

export function asPostRefusal(error: unknown, place: PostPlace): unknown {
  const slackError = slackErrorCode(error);
  return slackError !== undefined && isPostRefusal(slackError)
    ? new AppError({ code: 'cannot_post', place, slackError }, { cause: error })
    : error;
}

/** Web API errors that say "not now" rather than "no": worth trying again later. */
const TRANSIENT_PLATFORM_ERRORS = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** How long Slack asked to wait (the Web API client's rate-limited error says it in seconds). */
export function slackRetryAfterMs(error: unknown): number | undefined {
  const seconds = (error as { retryAfter?: unknown } | undefined)?.retryAfter;
  return typeof seconds === 'number' ? seconds * 1_000 : undefined;
}

/**
 * How long Slack asked to wait when it refused a call for its rate (HTTP 429, the Web API client's
 * rate-limited error, Retry-After in seconds; a window SlackRateLimits holds closed answers the
 * same way), else undefined.
 */
export function rateLimitedForMs(error: unknown): number | undefined {
  if ((error as { code?: unknown } | undefined)?.code !== 'slack_webapi_rate_limited_error')
    return undefined;
  return Math.max(1_000, slackRetryAfterMs(error) ?? 0);
}

/** Whether a Web API failure may pass by itself: the network, a 5xx, a rate limit. */
export function isTransientSlackError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (
    code === 'slack_webapi_request_error' ||
    code === 'slack_webapi_http_error' ||
    code === 'slack_webapi_rate_limited_error'
  )
    return true;
  const platform = slackErrorCode(error);
  return platform !== undefined && TRANSIENT_PLATFORM_ERRORS.has(platform);
}

/**
 * Whether views.update (or views.push) refused because the modal is gone: the person closed it
 * while the app worked, and Slack answers `not_found`
 * (https://github.com/slackapi/bolt-js/issues/1309).
 */
export function isClosedView(error: unknown): boolean {
  return slackErrorCode(error) === 'not_found';
}

/** views.open's answers for a trigger that can no longer open anything (3 s, used, or unknown). */
const SPENT_TRIGGER = new Set(['expired_trigger_id', 'invalid_trigger_id', 'exchanged_trigger_id']);

/** Whether views.open (or views.push) refused because its trigger is spent. */
export function isSpentTrigger(error: unknown): boolean {
  return SPENT_TRIGGER.has(slackErrorCode(error) ?? '');
}

/**
 * A Slack failure the user can act on, as the problem to tell them: a spent trigger ("took too
 * long"), or Slack not answering within the bot's bound (a timeout, a 5xx, a rate limit). Any
 * other error is returned as it was.
 */
export function asSlackProblem(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (isSpentTrigger(error)) return new AppError({ code: 'trigger_expired' }, { cause: error });
  if (!isTransientSlackError(error)) return error;
  const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
  return new AppError(
    typeof retryAfter === 'number'
      ? { code: 'slack_unavailable', retryInSeconds: Math.max(1, Math.ceil(retryAfter)) }
      : { code: 'slack_unavailable' },
    { cause: error },
  );
}

/**
 * Slack's answers to a token it will not take, which auth.test and every other method may give
 * (https://docs.slack.dev/reference/methods/auth.test, "Errors"; the Web API's common errors):
 * the token is wrong, missing, revoked or expired, or its workspace or user is deactivated.
 */
const TOKEN_REFUSALS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

/**
 * Why Slack could not be used at start-up, in one line that never holds the token: it refused the
 * token ("Slack refused the bot token (invalid_auth)"), or it could not be reached ("Cannot reach
 * Slack at slack.com: DNS lookup failed (ENOTFOUND)"), or it answered something else.
 */
export function slackStartFailure(
  error: unknown,
  options: { apiUrl: string; token: 'bot token' | 'app-level token'; timeoutMs: number },
): string {
  const platform = slackErrorCode(error);
  if (platform !== undefined && TOKEN_REFUSALS.has(platform)) {
    return `Slack refused the ${options.token} (${platform})`;
  }
  const host = URL.canParse(options.apiUrl) ? new URL(options.apiUrl).host : options.apiUrl;
  const unreachable = unreachableOf(error);
  if (unreachable) {
    // The client's own deadline (AbortSignal.timeout) carries no code: it is the configured one.
    const timeoutMs =
      unreachable.kind === 'timeout' && !unreachable.code ? options.timeoutMs : undefined;
    return cannotReach('Slack', host, unreachable, timeoutMs);
  }
  if (platform !== undefined) return `Slack at ${host} answered ${platform}`;
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  if (typeof status === 'number') return `Slack at ${host} answered HTTP ${status}`;
  return `Slack at ${host} failed: ${(error as Error | undefined)?.message ?? String(error)}`;
}
