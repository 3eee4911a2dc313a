// Whether a CDN call that failed may have taken effect all the same, for an error as thrown and as
// a purge job stores it: one definition for the Slack messages, the HTTP API and the logs.
import { CdnError, type CdnErrorCode } from './errors.js';
import { wasNotSent } from './transport.js';

/**
 * Whether a failed POST may still have been applied (a timeout, a 5xx, a connection lost after the
 * request left): its outcome is unknown, never "failed". A request never sent is a failure.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof CdnError) || wasNotSent(error)) return false;
  return error.code === 'timeout' || error.code === 'unavailable' || error.code === 'network';
}

/**
 * A CdnError as a job step keeps it (JSON): what is said of it, and what `outcomeUnknown` reads.
 * `notSent`: the request never left (a refused connection, a batch a given-up job never sent).
 * Steps stored before `notSent` was kept have none: a `network` one of those counts as unknown.
 */
export interface StoredCdnError {
  code: CdnErrorCode;
  message: string;
  requestId?: string;
  notSent?: true;
}

export function storedError(error: CdnError): StoredCdnError {
  return {
    code: error.code,
    message: error.message,
    ...(error.requestId ? { requestId: error.requestId } : {}),
    ...(wasNotSent(error) ? { notSent: true } : {}),
  };
}

/** The CdnError a stored one was: `outcomeUnknown` says of it what it said of the original. */
export function restoredError(stored: StoredCdnError): CdnError {
  return new CdnError(stored.code, stored.message, {
    ...(stored.requestId ? { requestId: stored.requestId } : {}),
    ...(stored.notSent ? { notSent: true } : {}),
  });
}
