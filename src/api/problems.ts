// The HTTP API's problems (RFC 9457), the purge service's refusals among them: each one's status,
// stable type name, title and when it is answered, and which operation answers which. The routes
// answer them (http.ts); the OpenAPI document lists them per operation (openapi.ts); docs/api.md's
// table says the same.

/**
 * Every problem type of this API is this prefix and a name: a tag URI (RFC 4151), stable and not
 * meant to be fetched, as RFC 9457 allows.
 */
export const PROBLEM_BASE = 'tag:cdn-chatops,2026:problems/';

/** A header some problems are answered with. */
export type ProblemHeader = 'Retry-After' | 'WWW-Authenticate';

export interface ProblemKind {
  status: number;
  /** The type's name: the type is PROBLEM_BASE and it. */
  type: string;
  title: string;
  when: string;
  /** The headers it is answered with. */
  headers?: readonly ProblemHeader[];
}

export const PROBLEMS = {
  off: {
    status: 404,
    type: 'not-found',
    title: 'Not found',
    when: 'the API is off (no token yet)',
  },
  unauthorized: {
    status: 401,
    type: 'unauthorized',
    title: 'Missing or invalid token',
    when: 'no token, an unknown one, or a revoked one',
    headers: ['WWW-Authenticate'],
  },
  invalid_body: {
    status: 400,
    type: 'invalid-body',
    title: 'The body is not a purge request',
    when: 'the body does not match PurgeRequest (`errors` says where)',
  },
  invalid_json: {
    status: 400,
    type: 'invalid-json',
    title: 'The body is not JSON',
    when: 'the body is not UTF-8 JSON',
  },
  invalid_header: {
    status: 400,
    type: 'invalid-header',
    title: 'A header is not valid',
    when: 'a malformed Idempotency-Key',
  },
  invalid_query: {
    status: 400,
    type: 'invalid-query',
    title: 'A query parameter is not valid',
    when: '`wait` is not 0–60',
  },
  unsupported_media_type: {
    status: 415,
    type: 'unsupported-media-type',
    title: 'The body must be application/json',
    when: 'the body is not application/json',
  },
  body_too_large: {
    status: 413,
    type: 'body-too-large',
    title: 'The body is too large',
    when: 'the body is over 1 MiB; the connection is closed',
  },
  request_timeout: {
    status: 408,
    type: 'request-timeout',
    title: 'The body did not arrive in time',
    when: 'the body stopped arriving, or took too long in all; the connection is closed',
  },
  too_many_items: {
    status: 413,
    type: 'too-many-items',
    title: 'Too many URLs or tags',
    when: 'more URLs or tags than the server allows (API_MAX_ITEMS)',
  },
  invalid_not_before: {
    status: 400,
    type: 'invalid-not-before',
    title: '`not_before` is not a time the purge can wait for',
    when: '`not_before` has passed, is more than 7 days ahead, or is neither an RFC 3339 timestamp nor `in <duration>`',
  },
  invalid_items: {
    status: 400,
    type: 'invalid-items',
    title: 'Some URLs or tags cannot be purged in this zone',
    when: 'URLs the zone does not serve, or tags that are not one word (`items` lists them)',
  },
  forbidden_kind: {
    status: 403,
    type: 'forbidden-kind',
    title: 'The token may not request this kind of purge',
    when: 'the token may not ask for this kind of purge',
  },
  forbidden_zone: {
    status: 403,
    type: 'forbidden-zone',
    title: 'The token may not purge this zone',
    when: 'the token does not cover the zone',
  },
  forbidden_account: {
    status: 403,
    type: 'forbidden-account',
    title: 'The token may not purge zones of this account',
    when: 'the token is for another CDN account than the one named, or its account no longer exists',
  },
  no_approval_channel: {
    status: 403,
    type: 'no-approval-channel',
    title: 'Nowhere to ask for approval',
    when: 'everything, with no channel to ask in or one the bot cannot post in',
  },
  zone_not_found: {
    status: 404,
    type: 'zone-not-found',
    title: 'No such zone',
    when: 'no such zone in the CDN accounts the token reaches',
  },
  account_not_found: {
    status: 404,
    type: 'account-not-found',
    title: 'No such CDN account',
    when: 'no CDN account of that name in the workspace (`accounts` lists them)',
  },
  purge_not_found: {
    status: 404,
    type: 'purge-not-found',
    title: 'No such purge',
    when: 'no such purge of this token',
  },
  idempotency_conflict: {
    status: 409,
    type: 'idempotency-conflict',
    title: 'Idempotency-Key reused with another body',
    when: 'the Idempotency-Key was used with another body',
  },
  approval_pending: {
    status: 409,
    type: 'approval-pending',
    title: 'The zone already waits for an approval',
    when: 'the zone already waits for a purge-everything approval',
  },
  frozen: {
    status: 409,
    type: 'change-freeze',
    title: 'A change freeze is in force',
    when: 'a change freeze covers the zone now: purge-everything always, URLs and tags when the freeze says so (`freeze` names it and when it ends; Retry-After is its end)',
    headers: ['Retry-After'],
  },
  ambiguous_zone: {
    status: 409,
    type: 'ambiguous-zone',
    title: 'The zone is in several CDN accounts: name one',
    when: 'the zone name is in several CDN accounts the token reaches and no `account` was named (`accounts` lists them)',
  },
  rate_limited: {
    status: 429,
    type: 'rate-limited',
    title: 'Too many requests',
    when: 'over the requests a minute allowed for this token (API_RATE_LIMIT_PER_MINUTE)',
    headers: ['Retry-After'],
  },
  not_ready: {
    status: 503,
    type: 'not-ready',
    title: 'The CDN cannot be reached with this workspace’s settings',
    when: 'the workspace’s CDN settings forbid calls now',
  },
  no_api_key: {
    status: 503,
    type: 'no-cdn-key',
    title: 'The workspace has no CDN key',
    when: 'the CDN account has no API key yet',
  },
  unavailable: {
    status: 503,
    type: 'unavailable',
    title: 'Try again shortly',
    when: 'the database or Slack did not answer, or something went wrong on the server',
  },
  busy: {
    status: 503,
    type: 'busy',
    title: 'The API is busy',
    when: 'this server already works on and queues as many API requests as it may',
    headers: ['Retry-After'],
  },
} as const satisfies Record<string, ProblemKind>;

export type ProblemName = keyof typeof PROBLEMS;

/** The problems each operation answers (the OpenAPI document lists these, and no others). */
export const OPERATION_PROBLEMS = {
  createPurge: [
    'invalid_json',
    'invalid_body',
    'invalid_items',
    'invalid_not_before',
    'invalid_header',
    'unauthorized',
    'forbidden_zone',
    'forbidden_kind',
    'forbidden_account',
    'no_approval_channel',
    'off',
    'zone_not_found',
    'account_not_found',
    'request_timeout',
    'idempotency_conflict',
    'approval_pending',
    'frozen',
    'ambiguous_zone',
    'body_too_large',
    'too_many_items',
    'unsupported_media_type',
    'rate_limited',
    'busy',
    'no_api_key',
    'not_ready',
    'unavailable',
  ],
  getPurge: [
    'invalid_query',
    'unauthorized',
    'off',
    'purge_not_found',
    'rate_limited',
    'busy',
    'unavailable',
  ],
} as const satisfies Record<string, readonly ProblemName[]>;
