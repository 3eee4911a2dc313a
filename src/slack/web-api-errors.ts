// What the Web API said went wrong: its error code, and a refusal to post somewhere the user chose
// (not in the channel, archived, app removed) as AppError cannot_post; anything else stays as it was.
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
