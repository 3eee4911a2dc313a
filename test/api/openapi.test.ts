// The HTTP API's contract: openapi.json as committed is the document the bot serves (built from the
// zod schemas), a maintained validator (@readme/openapi-parser) finds it valid OpenAPI 3.1, it
// lists every answer each operation gives, and its request body is a oneOf with a discriminator
// that the API also accepts without (the first form of the body).
import { readFile } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/api/openapi.js';
import { OPERATION_PROBLEMS, PROBLEMS } from '../../src/api/problems.js';
import { parsePurgeRequest } from '../../src/api/schemas.js';

const FILE = new URL('../../openapi.json', import.meta.url);
const BASE = 'tag:cdn-chatops,2026:problems/';

interface Response {
  description: string;
  headers?: Record<string, { required?: boolean }>;
  content?: Record<
    string,
    { schema: { allOf?: Array<{ properties?: { type?: { enum: string[] } } }> } }
  >;
}
interface Doc {
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; security?: unknown[]; responses: Record<string, Response> }
    >
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
}

const doc = () => JSON.parse(JSON.stringify(openApiDocument())) as Doc;

/** Each status an operation answers, and the problem types it lists there. */
function answers(operationId: string): Record<string, string[]> {
  const operation = Object.values(doc().paths)
    .flatMap((item) => Object.values(item))
    .find((op) => op.operationId === operationId);
  if (!operation) throw new Error(`no operation ${operationId}`);
  return Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [
      status,
      (
        response.content?.['application/problem+json']?.schema.allOf?.[1]?.properties?.type?.enum ??
        []
      ).map((type) => type.slice(BASE.length)),
    ]),
  );
}

describe('the OpenAPI document', () => {
  it('is committed as openapi.json, as built from the schemas (npm run openapi writes it)', async () => {
    const committed = JSON.parse(await readFile(FILE, 'utf8')) as unknown;
    expect(committed, 'openapi.json is stale: run `npm run openapi`').toEqual(doc());
  });

  it('is valid OpenAPI 3.1 for a maintained validator', async () => {
    const result = await validate(openApiDocument() as Parameters<typeof validate>[0]);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('lists every status and problem type a purge request may be answered with, 429 and 503 among them', () => {
    expect(answers('createPurge')).toEqual({
      '202': [],
      '400': [
        'invalid-json',
        'invalid-body',
        'invalid-items',
        'invalid-not-before',
        'invalid-header',
      ],
      '401': ['unauthorized'],
      '403': ['forbidden-zone', 'forbidden-kind', 'forbidden-account', 'no-approval-channel'],
      '404': ['not-found', 'zone-not-found', 'account-not-found'],
      '408': ['request-timeout'],
      '409': ['idempotency-conflict', 'approval-pending', 'change-freeze', 'ambiguous-zone'],
      '413': ['body-too-large', 'too-many-items'],
      '415': ['unsupported-media-type'],
      '429': ['rate-limited'],
      '503': ['busy', 'no-cdn-key', 'not-ready', 'unavailable'],
    });
    expect(answers('getPurge')).toEqual({
      '200': [],
      '400': ['invalid-query'],
      '401': ['unauthorized'],
      '404': ['not-found', 'purge-not-found'],
      '429': ['rate-limited'],
      '503': ['busy', 'unavailable'],
    });
    expect(answers('getOpenApiDocument')).toEqual({ '200': [], '304': [] });
  });

  it('names the headers that come with an answer: Retry-After on 429 (always) and 503 (busy), WWW-Authenticate on 401', () => {
    const responses = doc().paths['/api/v1/purges']?.post?.responses ?? {};
    expect(responses['429']?.headers).toMatchObject({ 'Retry-After': { required: true } });
    expect(responses['503']?.headers).toMatchObject({ 'Retry-After': { required: false } });
    expect(responses['401']?.headers).toMatchObject({ 'WWW-Authenticate': { required: true } });
    expect(responses['202']?.headers).toMatchObject({ Location: { required: true } });
  });

  it('leaves no problem of the API out of every operation', () => {
    const listed = new Set<string>(Object.values(OPERATION_PROBLEMS).flat());
    expect(Object.keys(PROBLEMS).filter((name) => !listed.has(name))).toEqual([]);
  });

  it('is served without a token: the document alone needs none', () => {
    const { paths } = doc();
    expect(paths['/api/v1/openapi.json']?.get?.security).toEqual([]);
    expect(paths['/api/v1/purges']?.post?.security).toBeUndefined();
  });

  it('describes the purge request as a oneOf told apart by `kind`, each branch requiring it', () => {
    const { schemas } = doc().components;
    const request = schemas.PurgeRequest as {
      anyOf?: unknown;
      oneOf: Array<{ $ref: string }>;
      discriminator: { propertyName: string; mapping: Record<string, string> };
    };
    expect(request.anyOf).toBeUndefined();
    expect(request.discriminator.propertyName).toBe('kind');
    expect(request.oneOf.map((s) => s.$ref)).toEqual(Object.values(request.discriminator.mapping));
    for (const [kind, ref] of Object.entries(request.discriminator.mapping)) {
      const branch = schemas[ref.replace('#/components/schemas/', '')] as {
        required: string[];
        properties: { kind: { const: string } };
      };
      expect(branch.required).toContain('kind');
      expect(branch.properties.kind.const).toBe(kind);
    }
  });
});

describe('a purge request body', () => {
  const zone = 'example.com';
  it('is told apart by `kind`, and without it (the first form) by the one of urls, tags, everything it has', () => {
    expect(parsePurgeRequest({ kind: 'urls', zone, urls: ['https://example.com/a'] }).data).toEqual(
      { kind: 'urls', zone, urls: ['https://example.com/a'] },
    );
    expect(parsePurgeRequest({ zone, urls: ['https://example.com/a'] }).data).toEqual({
      kind: 'urls',
      zone,
      urls: ['https://example.com/a'],
    });
    expect(parsePurgeRequest({ zone, tags: ['t'] }).data?.kind).toBe('tags');
    expect(parsePurgeRequest({ zone, everything: true }).data?.kind).toBe('everything');
  });

  it('is refused with a kind that is not what it names, two kinds at once, or none', () => {
    const issues = (body: unknown) =>
      parsePurgeRequest(body).error?.issues.map((i) => `${i.path.join('.')}: ${i.code}`);
    expect(issues({ kind: 'tags', zone, urls: ['https://example.com/a'] })).toEqual([
      'tags: invalid_type',
      ': unrecognized_keys',
    ]);
    expect(issues({ zone, urls: ['https://example.com/a'], tags: ['t'] })).toEqual([
      'kind: invalid_union',
    ]);
    expect(issues({ zone })).toEqual(['kind: invalid_union']);
    expect(issues({ kind: 'zone', zone })).toEqual(['kind: invalid_union']);
    expect(issues([])).toEqual([': invalid_type']);
  });
});
