// The HTTP API's shapes as zod schemas: the same schemas validate requests and, through zod's own
// JSON Schema output (z.toJSONSchema, draft 2020-12, which OpenAPI 3.1 uses), make the OpenAPI
// document (openapi.ts). Nothing here is written by hand twice.
import { z } from 'zod';
import { PROBLEM_BASE } from './problems.js';

/**
 * The schemas the OpenAPI document names as its components, by id: requests (as a client sends
 * them) and answers (as the server sends them).
 */
export const REQUEST_COMPONENTS = z.registry<{ id: string }>();
export const ANSWER_COMPONENTS = z.registry<{ id: string }>();

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
  not_before: z
    .union([
      z.iso.datetime({ offset: true }).describe('An RFC 3339 timestamp with its offset.'),
      z
        .string()
        .regex(/^in\s+\S.*$/i)
        .max(40)
        .describe('`in <duration>`: `in 30m`, `in 1h30m`, `in 2d`, from when it is received.'),
    ])
    .optional()
    .describe(
      'Purge then, not now: the purge is stored (`scheduled`) and runs at that time, at most 7 days ahead, once, on any replica; its token, zone, account and the change freezes are checked again when it runs (refused then: `rejected`, `error` says why). A purge of everything needs its approval in Slack before then; unapproved by then, it `expired`.',
    ),
};

/** A URL or tag list: its length is checked against API_MAX_ITEMS (413), not here (400). */
const items = (item: z.ZodString) => z.array(item).min(1);

/** What a purge asks for: the discriminator of PurgeRequest. */
export const PURGE_KINDS = ['urls', 'tags', 'everything'] as const;

const kind = (k: (typeof PURGE_KINDS)[number]) =>
  z.literal(k).describe('What to purge (a body without it is still accepted: see PurgeRequest).');

export const PurgeUrlsRequestSchema = z
  .strictObject({
    kind: kind('urls'),
    ...common,
    urls: items(text(4_096)).describe('URLs of the zone.'),
    warm: z
      .boolean()
      .optional()
      .describe(
        'Once purged, ask the edge for each URL again (filling its cache); the status then tells how many came back cached (`warm`).',
      ),
  })
  .register(REQUEST_COMPONENTS, { id: 'PurgeUrlsRequest' });

export const PurgeTagsRequestSchema = z
  .strictObject({
    kind: kind('tags'),
    ...common,
    tags: items(text(1_024)).describe('Cache tags of the zone.'),
  })
  .register(REQUEST_COMPONENTS, { id: 'PurgeTagsRequest' });

export const PurgeEverythingRequestSchema = z
  .strictObject({
    kind: kind('everything'),
    ...common,
    everything: z.literal(true).describe('Purge the whole zone: needs a second person in Slack.'),
  })
  .register(REQUEST_COMPONENTS, { id: 'PurgeEverythingRequest' });

const componentRef = (id: string) => `#/components/schemas/${id}`;

export const PurgeRequestSchema = z
  .discriminatedUnion(
    'kind',
    [PurgeUrlsRequestSchema, PurgeTagsRequestSchema, PurgeEverythingRequestSchema],
    {
      error:
        '`kind` is `urls`, `tags` or `everything` (or, without `kind`, the body has exactly one of `urls`, `tags`, `everything`)',
    },
  )
  .meta({
    description:
      'A purge of URLs, tags or everything, told apart by `kind`. A body without `kind` (the first form of this API) is still accepted: its kind is the one of `urls`, `tags` and `everything` it has, exactly one.',
    discriminator: {
      propertyName: 'kind',
      mapping: {
        urls: componentRef('PurgeUrlsRequest'),
        tags: componentRef('PurgeTagsRequest'),
        everything: componentRef('PurgeEverythingRequest'),
      },
    },
  })
  .register(REQUEST_COMPONENTS, { id: 'PurgeRequest' });

/**
 * A request body as the API accepts it: with `kind`, or without it, as the first form of the API
 * had none: then its kind is the one of `urls`, `tags` and `everything` it has, if exactly one.
 */
export function parsePurgeRequest(body: unknown) {
  return PurgeRequestSchema.safeParse(withKind(body));
}

function withKind(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'kind' in body)
    return body;
  const present = PURGE_KINDS.filter((k) => k in body);
  return present.length === 1 ? { kind: present[0], ...body } : body;
}

export const PURGE_STATUSES = [
  'scheduled',
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
  .describe(
    '`scheduled`: asked with a future `not_before`, waiting for it (`not_before` says when). `unknown`: the CDN did not confirm the purge (it may have happened).',
  );

const notBefore = z
  .string()
  .optional()
  .describe(
    'Asked with `not_before`: the time it runs at (RFC 3339, UTC), said while it waits for it (and, for everything, throughout).',
  );

export const PurgeAcceptedSchema = z
  .object({
    id: z.string(),
    status: PurgeStatusSchema,
    not_before: notBefore,
    url: z.string().describe('Where to read its status (GET).'),
  })
  .register(ANSWER_COMPONENTS, { id: 'PurgeAccepted' });

export const PurgeStateSchema = z
  .object({
    id: z.string(),
    status: PurgeStatusSchema,
    not_before: notBefore,
    zone: z.string(),
    account: z.string().describe('The CDN account of the zone, by name, as when it was asked.'),
    kind: z.enum(PURGE_KINDS),
    progress: z.object({ done: z.int().min(0), total: z.int().min(0) }),
    approved_by: z.string().optional().describe('The Slack user id of the approver.'),
    warm: z
      .object({
        done: z.boolean().describe('Whether every URL was asked of the edge again.'),
        warmed: z.int().min(0).describe('URLs asked again.'),
        cached: z.int().min(0).describe('Of those, how many the edge then served from its cache.'),
      })
      .optional()
      .describe('Asked with `warm`, once the purge succeeded: the warming of its URLs.'),
    error: z.string().optional(),
  })
  .register(ANSWER_COMPONENTS, { id: 'PurgeState' });

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
    freeze: z
      .object({
        id: z.string(),
        target: z.string().describe('The zone, CDN account or `workspace` it covers.'),
        reason: z.string(),
        time_zone: z.string().describe('The IANA time zone its window is declared in.'),
        ends_at: z.string().describe('When its window ends (RFC 3339, UTC).'),
      })
      .optional()
      .describe('The change freeze that refuses the request (`change-freeze`).'),
  })
  .describe('RFC 9457 problem details.')
  .register(ANSWER_COMPONENTS, { id: 'Problem' });

export type PurgeRequestBody = z.infer<typeof PurgeRequestSchema>;

/** The `?wait=` of GET /api/v1/purges/{id}: whole seconds, at most 60. */
export const WaitSchema = z.coerce.number().int().min(0).max(60);

/** An Idempotency-Key: 1 to 255 visible ASCII characters. */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters');
