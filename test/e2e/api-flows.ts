// Calls of the HTTP purge API (issue 30) that the e2e tests of its Slack side, its accounts and its
// tokens share: a purge asked with a token, read until final, a problem answer checked.
import { expect } from 'vitest';
import type { Harness } from './harness.js';

const PROBLEM = 'application/problem+json';

/** POSTs `body` (as JSON) to /api/v1/purges with the token `secret` and any extra headers. */
export function postPurge(
  h: Harness,
  secret: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${h.url}/api/v1/purges`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${secret}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** Reads the purge until its status is final (each read after the first holds up to 10 s for a change). */
export async function finalPurge(
  h: Harness,
  secret: string,
  id: string,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 20; i++) {
    const response = await fetch(`${h.url}/api/v1/purges/${id}${i === 0 ? '' : '?wait=10'}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (!['queued', 'running', 'waiting_for_approval'].includes(String(body.status))) return body;
  }
  throw new Error(`purge ${id} never ended`);
}

/** Expects an RFC 9457 problem of `status` and `type`; resolves with its body. */
export async function expectProblem(
  response: Response,
  status: number,
  type: string,
): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(response.headers.get('content-type')).toBe(PROBLEM);
  expect(body.type).toBe(`tag:cdn-chatops,2026:problems/${type}`);
  return body;
}

/** POSTs a purge that the API accepts; resolves with its id. */
export async function startPurge(h: Harness, secret: string, body: unknown): Promise<string> {
  const { id } = (await (await postPurge(h, secret, body)).json()) as { id: string };
  return id;
}

/**
 * Holds the CDN's answers to the next purge requests (`times` of them, every one when not told)
 * until the function returned is called.
 */
export function holdPurges(h: Harness, times?: number): () => void {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  h.sandbox.inject({
    kind: 'hold',
    until: held,
    method: 'POST',
    path: /purge$/,
    ...(times === undefined ? {} : { times }),
  });
  return () => release();
}
