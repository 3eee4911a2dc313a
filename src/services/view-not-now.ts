// A view of a job (its Slack message) that cannot be shown yet: Slack's rate limit for its channel
// or method said when it may be. The job comes back then (JobOutcome `deferMs`) instead of waiting,
// so nothing else the job does (a purge's CDN work, its API status) waits on Slack.
import type { CodedError } from '../errors.js';

export class ViewNotNow extends Error implements CodedError {
  override readonly name = 'ViewNotNow';
  readonly code = 'view_not_now';

  /** `afterMs`: how long until it may be shown (never less than a 429's Retry-After). */
  constructor(
    readonly afterMs: number,
    options?: ErrorOptions,
  ) {
    super(`the view may be shown in ${afterMs} ms`, options);
  }
}
