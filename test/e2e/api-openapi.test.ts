// The HTTP API's OpenAPI document as tools use it, against the bot over real HTTP and the CDN
// sandbox: served to anyone (no token, before the first token, cacheable), and a client generated
// from the committed openapi.json by a maintained generator (openapi-typescript's types,
// openapi-fetch) type-checks with tsc and purges a URL. The body's first form (without `kind`)
// still purges, and is the same request as with `kind` for its Idempotency-Key.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const FILE = new URL('../../openapi.json', import.meta.url);
const require = createRequire(import.meta.url);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function token(h: Harness) {
  const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name: 'deploy',
    zones: null,
    kinds: ['urls_tags', 'everything'],
    channelId: CHANNEL,
  });
  return secret;
}

/** A script as a CI would write it with the generated client: purge one URL, read until final. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const FINAL = ['succeeded', 'failed', 'rejected', 'expired', 'unknown'];

export async function purge(baseUrl: string, token: string, url: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
  const asked = await client.POST('/api/v1/purges', {
    params: { header: { 'Idempotency-Key': 'release-1' } },
    body: { kind: 'urls', zone: 'example.com', urls: [url], reason: 'generated client' },
  });
  if (!asked.data) throw new Error(\`refused: \${asked.response.status} \${asked.error?.type}\`);
  for (;;) {
    const read = await client.GET('/api/v1/purges/{id}', {
      params: { path: { id: asked.data.id }, query: { wait: 10 } },
    });
    if (!read.data) throw new Error(\`read refused: \${read.error?.type}\`);
    if (FINAL.includes(read.data.status)) return read.data;
  }
}

export function wrongKind(client: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error: a tags purge names tags, not urls (the discriminator picks the branch).
  return client.POST('/api/v1/purges', { body: { kind: 'tags', zone: 'example.com', urls: ['x'] } });
}
`;

/**
 * The client's directory: the types generated from openapi.json, the client, and the generated
 * client's one runtime dependency, openapi-fetch, where TypeScript and Node find it.
 */
async function generatedClient(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'api-client-'));
  dirs.push(dir);
  const types = astToString(await openapiTS(JSON.parse(await readFile(FILE, 'utf8'))));
  await writeFile(join(dir, 'api.ts'), types);
  await writeFile(join(dir, 'client.ts'), CLIENT);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        outDir: 'out',
      },
      files: ['api.ts', 'client.ts'],
    }),
  );
  await mkdir(join(dir, 'node_modules'));
  await symlink(
    dirname(require.resolve('openapi-fetch/package.json')),
    join(dir, 'node_modules', 'openapi-fetch'),
  );
  return dir;
}

describe('the OpenAPI document', () => {
  it('is served to anyone, before the first token and without one, cacheable, as committed', async () => {
    const h = await startHarness();
    const committed = JSON.parse(await readFile(FILE, 'utf8')) as unknown;
    const first = await fetch(`${h.url}/api/v1/openapi.json`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await first.json()).toEqual(committed);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${h.url}/api/v1/openapi.json`, {
      headers: { 'if-none-match': String(etag) },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // The rest of the API is still off.
    const purge = await fetch(`${h.url}/api/v1/purges`, { method: 'POST' });
    expect(purge.status).toBe(404);
    expect(((await purge.json()) as { type: string }).type).toMatch(/problems\/not-found$/);
    await h.login();
    await token(h);
    const later = await fetch(`${h.url}/api/v1/openapi.json`);
    expect(later.status).toBe(200);
    expect(later.headers.get('etag')).toBe(etag);
  });

  it('makes a client (openapi-typescript, openapi-fetch) that type-checks with tsc and purges a URL', async () => {
    const dir = await generatedClient();
    const tsc = require.resolve('typescript/bin/tsc');
    const checked = await promisify(execFile)(process.execPath, [tsc, '-p', dir]).catch(
      (error: { stdout?: string }) => ({ stdout: String(error.stdout), failed: true }),
    );
    expect(checked.stdout).toBe('');
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const client = (await import(pathToFileURL(join(dir, 'out', 'client.js')).href)) as {
      purge: (baseUrl: string, token: string, url: string) => Promise<Record<string, unknown>>;
    };
    const state = await client.purge(h.url, secret, 'https://example.com/app.css');
    expect(state).toMatchObject({ status: 'succeeded', zone: 'example.com', kind: 'urls' });
    expect(h.sandbox.state.purges.flatMap((p) => p.items)).toEqual(['https://example.com/app.css']);
  }, 60_000);
});

describe('a purge request body', () => {
  it('without `kind` (the first form) purges, the same request as with it for its Idempotency-Key', async () => {
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const post = (body: Record<string, unknown>) =>
      fetch(`${h.url}/api/v1/purges`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          'idempotency-key': 'release-2',
        },
        body: JSON.stringify(body),
      });
    const body = { zone: 'example.com', urls: ['https://example.com/a.js'] };
    const first = await post(body);
    expect(first.status).toBe(202);
    const { id } = (await first.json()) as { id: string };
    const withKind = await post({ kind: 'urls', ...body });
    expect(withKind.status).toBe(202);
    expect(((await withKind.json()) as { id: string }).id).toBe(id);
    const refused = await post({ kind: 'tags', ...body });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { type: string }).type).toMatch(/problems\/invalid-body$/);
  });
});
