// What the Web API said went wrong: its error code; a refusal to post somewhere the user chose
// (not in the channel, archived, app removed) as AppError cannot_post; a spent trigger or Slack not
// answering in time as the problem the user reads; anything else stays as it was.
import { isPostRefusal } from '../blocks/problems.js';
import { AppError, type PostPlace } from '../errors.js';

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
