// The fake Slack's HTTP plumbing: request bodies, the Web API's argument encodings, JSON replies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Args } from './types.js';

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export function reply(res: ServerResponse, status: number, body: Args): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A token "passed as an HTTP Authorization header" (https://api.slack.com/web#authentication). */
export function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  return match?.[1];
}

/**
 * Slack's Web API takes form fields (application/x-www-form-urlencoded, with nested values such
 * as blocks as JSON strings) or a JSON body (application/json): "Content types" on every method's
 * page, e.g. https://api.slack.com/methods/chat.postMessage.
 */
export function parseArgs(contentType: string, body: Buffer): Args {
  if (contentType.includes('application/json')) return parseJsonObject(body) ?? {};
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(body.toString('utf8'))) {
    args[key] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return args;
}

export function parseJsonObject(body: Buffer): Args | undefined {
  const value = tryJson(body.toString('utf8'));
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Args)
    : undefined;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
