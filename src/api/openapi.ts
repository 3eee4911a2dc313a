// The OpenAPI 3.1 document of the HTTP API, built from its zod schemas (schemas.ts) and its
// problems (problems.ts): served at GET /api/v1/openapi.json and committed as openapi.json
// (`npm run openapi` writes it; a test fails when the two differ).
import { z } from 'zod';
import {
  OPERATION_PROBLEMS,
  PROBLEM_BASE,
  PROBLEMS,
  type ProblemHeader,
  type ProblemKind,
  type ProblemName,
} from './problems.js';
import {
  ANSWER_COMPONENTS,
  IdempotencyKeySchema,
  REQUEST_COMPONENTS,
  WaitSchema,
} from './schemas.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The registry's schemas as JSON Schema, each referring to the others as components. */
function components(registry: typeof REQUEST_COMPONENTS, io: 'input' | 'output'): Json {
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _, $id: __, ...json }]) => [id, json]),
  );
}

function parameterSchema(schema: z.ZodType): Json {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
  });
  return json;
}

const HEADERS: Record<ProblemHeader, Json> = {
  'Retry-After': {
    description: 'Seconds to wait before asking again.',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The scheme to authenticate with: `Bearer realm="cdn-chatops"`.',
    schema: { type: 'string' },
  },
};

/**
 * The operation's problems, one response a status: its types (as an enum of `type`), when each
 * is answered, and the headers that come with it (required when every type there has them).
 */
function problemResponses(names: readonly ProblemName[]): Record<string, Json> {
  const byStatus = new Map<number, ProblemKind[]>();
  for (const name of names) {
    const kind: ProblemKind = PROBLEMS[name];
    byStatus.set(kind.status, [...(byStatus.get(kind.status) ?? []), kind]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, kinds] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = Object.fromEntries(
      (Object.keys(HEADERS) as ProblemHeader[])
        .filter((header) => kinds.some((k) => k.headers?.includes(header)))
        .map((header) => [
          header,
          { ...HEADERS[header], required: kinds.every((k) => k.headers?.includes(header)) },
        ]),
    );
    responses[String(status)] = {
      description: kinds
        .map((k) => `\`${k.type}\`: ${k.when}${k.headers ? ` (${k.headers.join(', ')})` : ''}.`)
        .join(' '),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [
              ref('Problem'),
              {
                type: 'object',
                properties: {
                  type: { enum: kinds.map((k) => `${PROBLEM_BASE}${k.type}`) },
                  status: { const: status },
                },
              },
            ],
          },
        },
      },
    };
  }
  return responses;
}

/** The OpenAPI 3.1 document. Paths are relative to where it was fetched (it names no server). */
export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'cdn-chatops API',
      version: '1',
      description:
        'Purges from CI and scripts, seen in Slack; purging everything needs a second person there. Every path but this document answers 404 `not-found` until a workspace admin makes the first token.',
    },
    security: [{ bearer: [] }],
    paths: {
      '/api/v1/purges': {
        post: {
          operationId: 'createPurge',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: parameterSchema(IdempotencyKeySchema),
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
              headers: {
                Location: {
                  description: 'Where to read its status (GET), as `url` says.',
                  required: true,
                  schema: { type: 'string' },
                },
              },
              content: { 'application/json': { schema: ref('PurgeAccepted') } },
            },
            ...problemResponses(OPERATION_PROBLEMS.createPurge),
          },
        },
      },
      '/api/v1/purges/{id}': {
        get: {
          operationId: 'getPurge',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            {
              name: 'wait',
              in: 'query',
              required: false,
              schema: parameterSchema(WaitSchema),
              description: 'Hold the answer up to this many seconds until the status changes.',
            },
          ],
          responses: {
            '200': {
              description: 'The purge.',
              content: { 'application/json': { schema: ref('PurgeState') } },
            },
            ...problemResponses(OPERATION_PROBLEMS.getPurge),
          },
        },
      },
      '/api/v1/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          security: [],
          description: 'This document: served without a token, whether the API is on or not.',
          responses: {
            '200': {
              description: 'The document.',
              headers: {
                ETag: { description: 'Its version.', required: true, schema: { type: 'string' } },
              },
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            '304': { description: 'Not modified: If-None-Match named its ETag.' },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token a workspace admin made in Slack (`cdnb_…`).',
        },
      },
      schemas: {
        ...components(REQUEST_COMPONENTS, 'input'),
        ...components(ANSWER_COMPONENTS, 'output'),
      },
    },
  };
}
