// Why the HTTP API refuses a purge request: a stable code the HTTP layer turns into a problem
// (RFC 9457, src/api/http.ts), a detail for people, and what the problem adds to its body.

/** Why the API refuses a request: the HTTP layer turns each code into a problem (RFC 9457). */
export type ApiRefusalCode =
  | 'forbidden_kind'
  | 'forbidden_zone'
  | 'forbidden_account'
  | 'zone_not_found'
  | 'account_not_found'
  | 'ambiguous_zone'
  | 'purge_not_found'
  | 'idempotency_conflict'
  | 'too_many_items'
  | 'invalid_items'
  | 'rate_limited'
  | 'no_approval_channel'
  | 'approval_pending'
  | 'frozen'
  | 'invalid_not_before'
  | 'not_ready';

export class ApiRefusal extends Error {
  override readonly name = 'ApiRefusal';
  constructor(
    readonly code: ApiRefusalCode,
    readonly detail: string,
    readonly extra: {
      retryAfterSeconds?: number;
      items?: Array<{ item: string; reason: string }>;
      /** CDN account names: those holding an ambiguous zone, or the workspace's. */
      accounts?: string[];
      /** The change freeze that refuses the request, and when its window ends (ISO 8601). */
      freeze?: { id: string; target: string; reason: string; time_zone: string; ends_at: string };
    } = {},
  ) {
    super(detail);
  }
}
