// The sandbox's HTTP plumbing: the spec's success and error envelopes, bodies, query parameters.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An answer to send: status, body (JSON, or text if a string) and extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const MAX_BODY_BYTES = 1024 * 1024;

export function ok(body: Record<string, unknown>): Reply {
  return { status: 200, body: { success: true, ...body } };
}

export function failure(code: string, message: string) {
  return { success: false, errors: [{ code, message }] };
}

export function fail(status: number, code: string, message: string): Reply {
  return { status, body: failure(code, message) };
}

export function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
  } else if (typeof body === 'string') {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
  } else {
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));
  }
}

/** The body as text; undefined when empty; null when over the limit. */
export async function readBody(req: IncomingMessage): Promise<string | undefined | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return size === 0 ? undefined : Buffer.concat(chunks).toString('utf8');
}

export function jsonBody(
  req: IncomingMessage,
  text: string | undefined,
): { value: Record<string, unknown> } | Reply {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return fail(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json');
  }
  const value = text === undefined ? undefined : tryJson(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(400, 'invalid_json', 'The body must be a JSON object');
  }
  return { value: value as Record<string, unknown> };
}

export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function integerParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
): number | null {
  const value = query.get(name);
  if (value === null) return fallback;
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export function instantParam(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null || !ISO_DATE_TIME.test(value)) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

export function isOneOf<T extends string>(value: unknown, options: readonly T[]): value is T {
  return typeof value === 'string' && (options as readonly string[]).includes(value);
}
