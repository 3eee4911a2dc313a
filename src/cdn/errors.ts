// Typed CDN errors: every failure of the API client is a CdnError with a code callers can switch on.
import type { CodedError } from '../errors.js';

export const CDN_ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'invalid_request',
  'rate_limited',
  'unavailable',
  'timeout',
  'network',
  'unexpected_response',
  /** A workspace's base URL led to an address the bot may not call (see src/cdn/egress.ts). */
  'blocked_address',
] as const;

export type CdnErrorCode = (typeof CDN_ERROR_CODES)[number];

export interface CdnErrorDetails {
  /** HTTP status when the server answered. */
  status?: number;
  /** The server's request id (from a response header), for support tickets. */
  requestId?: string;
  /** For rate_limited: how long the server asked us to wait. */
  retryAfterMs?: number;
  /** The request that failed, as `METHOD /path` (never the query's secrets, never headers). */
  operation?: string;
  /**
   * The request never left (known though its cause is gone: a failure restored from a job's step,
   * see src/cdn/outcome.ts). Otherwise transport.ts's wasNotSent reads it from the cause.
   */
  notSent?: boolean;
  cause?: unknown;
}

/**
 * One class rather than one per code: callers branch on `code`, and every code carries the same
 * optional details. `message` is the server's own words where it gave any, safe to show a user.
 */
export class CdnError extends Error implements CodedError {
  override readonly name = 'CdnError';
  readonly status?: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly operation?: string;
  readonly notSent?: true;

  constructor(
    readonly code: CdnErrorCode,
    message: string,
    details: CdnErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    if (details.status !== undefined) this.status = details.status;
    if (details.requestId !== undefined) this.requestId = details.requestId;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    if (details.operation !== undefined) this.operation = details.operation;
    if (details.notSent) this.notSent = true;
  }
}

export function isCdnError(error: unknown, code?: CdnErrorCode): error is CdnError {
  return error instanceof CdnError && (code === undefined || error.code === code);
}

/** The error code an HTTP status maps to; 2xx never reaches here. */
export function codeForStatus(status: number): CdnErrorCode {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
    case 410:
      return 'not_found';
    case 409:
      return 'conflict';
    case 408:
      return 'timeout';
    case 429:
      return 'rate_limited';
    default:
      if (status >= 500) return 'unavailable';
      if (status >= 400) return 'invalid_request';
      // 1xx/3xx: undici follows no redirects, so one here means the base URL is wrong.
      return 'unexpected_response';
  }
}

/** Whether a failure may pass by itself (the CDN busy, slow or out of reach): worth trying again later. */
export function isTransientCdnError(error: unknown): boolean {
  return (
    error instanceof CdnError &&
    (error.code === 'rate_limited' ||
      error.code === 'unavailable' ||
      error.code === 'timeout' ||
      error.code === 'network')
  );
}
