// The HTTP API's shapes as zod schemas: the same schemas validate requests and, through
// zod's own JSON Schema output (z.toJSONSchema, draft 2020-12, which OpenAPI 3.1 uses), make the
// OpenAPI document served at GET /api/v1/openapi.json. Nothing here is written by hand twice.
import { z } from 'zod';

/**
 * Every problem type of this API is this prefix and a name (docs/api.md lists them): a tag URI
 * (RFC 4151), stable and not meant to be fetched, as RFC 9457 allows.
 */
export const PROBLEM_BASE = 'tag:cdn-chatops,2026:problems/';

const text = (max: number) => z.string().min(1).max(max);

export const PurgeContextSchema = z
  .strictObject({
    repository: text(200).optional(),
    commit: text(100).optional(),
    run_url: text(2_000).optional(),
    actor: text(200).optional(),
  })
  .describe('Where the purge comes from; free strings, shown in Slack (escaped).');

const common = {
  zone: text(253).describe('The zone to purge, by name (as `/cdn zones` lists it).'),
  account: text(128)
    .optional()
    .describe(
      'The CDN account of the zone, by name (as `/cdn accounts` lists it). Without it, the zone is looked for in every account the token may use (its own, for a token bound to one); a name held by several is refused as `ambiguous-zone`.',
    ),
  reason: text(500).optional().describe('Why; shown to the approvers and kept in the audit log.'),
  context: PurgeContextSchema.optional(),
};

/** A URL or tag list: its length is checked against API_MAX_ITEMS (413), not here (400). */
const items = (item: z.ZodString) => z.array(item).min(1);

export const PurgeRequestSchema = z
  .union([
    z.strictObject({ ...common, urls: items(text(4_096)).describe('URLs of the zone.') }),
    z.strictObject({ ...common, tags: items(text(1_024)).describe('Cache tags of the zone.') }),
    z.strictObject({
      ...common,
      everything: z.literal(true).describe('Purge the whole zone: needs a second person in Slack.'),
    }),
  ])
  .describe('Exactly one of urls, tags or everything.');

export const PURGE_STATUSES = [
  'queued',
  'waiting_for_approval',
  'running',
  'succeeded',
  'failed',
  'rejected',
  'expired',
  'unknown',
] as const;

export const PurgeStatusSchema = z
  .enum(PURGE_STATUSES)
  .describe('`unknown`: the CDN did not confirm the purge (it may have happened).');

export const PurgeAcceptedSchema = z.object({
  id: z.string(),
  status: PurgeStatusSchema,
  url: z.string().describe('Where to read its status (GET).'),
});

export const PurgeStateSchema = z.object({
  id: z.string(),
  status: PurgeStatusSchema,
  zone: z.string(),
  account: z.string().describe('The CDN account of the zone, by name, as when it was asked.'),
  kind: z.enum(['urls', 'tags', 'everything']),
  progress: z.object({ done: z.int().min(0), total: z.int().min(0) }),
  approved_by: z.string().optional().describe('The Slack user id of the approver.'),
  error: z.string().optional(),
});

export const ProblemSchema = z
  .object({
    type: z
      .string()
      .describe(
        `A stable URI naming the kind of problem: \`${PROBLEM_BASE}<name>\`, the names as each response lists them.`,
      ),
    title: z.string(),
    status: z.int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('What is wrong with the request body, field by field.'),
    items: z
      .array(z.object({ item: z.string(), reason: z.string() }))
      .optional()
      .describe('URLs or tags that cannot be purged in the zone.'),
    accounts: z
      .array(z.string())
      .optional()
      .describe(
        "CDN account names: those holding the zone (`ambiguous-zone`), or the workspace's (`account-not-found`).",
      ),
  })
  .describe('RFC 9457 problem details.');

export type PurgeRequestBody = z.infer<typeof PurgeRequestSchema>;

/** The `?wait=` of GET /api/v1/purges/{id}: whole seconds, at most 60. */
export const WaitSchema = z.coerce.number().int().min(0).max(60);

/** An Idempotency-Key: 1 to 255 visible ASCII characters. */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters');

/** The OpenAPI 3.1 document, built from the schemas above. */
export function openApiDocument(serverUrl?: string): Record<string, unknown> {
  const schema = (s: z.ZodType, io: 'input' | 'output') => {
    const { $schema: _, ...json } = z.toJSONSchema(s, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    return json;
  };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const problem = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: ref('Problem') } },
  });
  const bearer = [{ bearer: [] }];
  return {
    openapi: '3.1.0',
    info: {
      title: 'cdn-chatops API',
      version: '1',
      description:
        'Purges from CI and scripts, seen in Slack; purging everything needs a second person there.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    paths: {
      '/api/v1/purges': {
        post: {
          operationId: 'createPurge',
          security: bearer,
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: schema(IdempotencyKeySchema, 'input'),
              description: 'The same key with the same token returns the same purge.',
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('PurgeRequest') } },
          },
          responses: {
            '202': {
              description: 'Accepted (or, with an Idempotency-Key used before, the same purge).',
              content: { 'application/json': { schema: ref('PurgeAccepted') } },
            },
            '400': problem(
              'The body is not a purge request (`invalid-json`, `invalid-body`, `invalid-items`, `invalid-header`).',
            ),
            '401': problem('No token, or not a live one (`unauthorized`).'),
            '403': problem(
              'The token may not purge this zone (`forbidden-zone`), this kind (`forbidden-kind`) or zones of this CDN account (`forbidden-account`: a token of another account, or one whose account no longer exists); or nowhere to ask for approval (`no-approval-channel`).',
            ),
            '404': problem(
              'No such zone (`zone-not-found`), no CDN account of that name (`account-not-found`, with `accounts`), or the API is off (`not-found`).',
            ),
            '409': problem(
              'The Idempotency-Key was used with another body (`idempotency-conflict`), the zone already waits for an approval (`approval-pending`), or the zone name is in several CDN accounts the token may use (`ambiguous-zone`, with `accounts`: name one as `account`).',
            ),
            '413': problem(
              'Too many URLs or tags (`too-many-items`), or the body is too large (`body-too-large`).',
            ),
            '415': problem('The body is not application/json (`unsupported-media-type`).'),
            '429': problem('Too many requests with this token (`rate-limited`); see Retry-After.'),
          },
        },
      },
      '/api/v1/purges/{id}': {
        get: {
          operationId: 'getPurge',
          security: bearer,
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            {
              name: 'wait',
              in: 'query',
              required: false,
              schema: schema(WaitSchema, 'input'),
              description: 'Hold the answer up to this many seconds until the status changes.',
            },
          ],
          responses: {
            '200': {
              description: 'The purge.',
              content: { 'application/json': { schema: ref('PurgeState') } },
            },
            '401': problem('No token, or not a live one.'),
            '404': problem('No such purge of this token.'),
            '429': problem('Too many requests with this token; see Retry-After.'),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        PurgeRequest: schema(PurgeRequestSchema, 'input'),
        PurgeAccepted: schema(PurgeAcceptedSchema, 'output'),
        PurgeState: schema(PurgeStateSchema, 'output'),
        Problem: schema(ProblemSchema, 'output'),
      },
    },
  };
}
