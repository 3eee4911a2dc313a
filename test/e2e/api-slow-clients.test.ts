// Slow and stalled clients of the HTTP API, over real sockets to the bot's own server: a body is
// read (bounded in size and time) before the request takes a turn, and turns are shared fairly
// between tokens, so one token's stalled bodies or burst never hold up another token's request.
import { type IncomingMessage, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { expectProblem, postPurge } from './api-flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const PURGES = '/api/v1/purges';

async function token(h: Harness, name: string): Promise<string> {
  const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name,
    zones: null,
    kinds: ['urls_tags'],
    channelId: CHANNEL,
  });
  return secret;
}

function serverOf(h: Harness): Server {
  if (!h.server) throw new Error('the harness runs no HTTP server');
  return h.server;
}

/** Resolves once the server has seen `count` requests to the purge API (their headers read). */
function requestsSeen(server: Server, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const onRequest = (req: IncomingMessage) => {
      if (req.url !== PURGES || ++seen < count) return;
      server.off('request', onRequest);
      resolve();
    };
    server.on('request', onRequest);
  });
}

/** Resolves once the server has read the bodies of `count` requests to the purge API. */
function bodiesRead(server: Server, count: number): Promise<void> {
  let read = 0;
  return new Promise((resolve) => {
    const onRequest = (req: IncomingMessage) => {
      if (req.url !== PURGES) return;
      req.once('end', () => {
        if (++read < count) return;
        server.off('request', onRequest);
        resolve();
      });
    };
    server.on('request', onRequest);
  });
}

/** A POST over a connection of its own, stalled: what the server answers, once it closes it. */
interface Stalled {
  socket: Socket;
  /** The answer's status and body (JSON), once the server has answered and closed the socket. */
  closed: Promise<{ status: number; body: Record<string, unknown> }>;
}

/**
 * Opens a connection (node:net), sends a POST's headers and `sent` of a body said to be `length`
 * bytes long, then stalls. Node's HTTP client writes the request and reads the answer.
 */
async function stalled(h: Harness, secret: string, length: number, sent: string): Promise<Stalled> {
  const { hostname, port } = new URL(h.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve).once('error', reject);
  });
  const req = request({
    createConnection: () => socket,
    method: 'POST',
    path: PURGES,
    headers: {
      host: `${hostname}:${port}`,
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      'content-length': String(length),
    },
  });
  const answered = new Promise<{ status: number; body: Record<string, unknown> }>(
    (resolve, reject) => {
      req.once('error', reject);
      req.once('response', async (res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') });
      });
    },
  );
  const closed = Promise.all([
    answered,
    new Promise<void>((resolve) => socket.once('close', () => resolve())),
  ]).then(([answer]) => answer);
  // The request's errors are the answer's (a socket destroyed by the test ends it too).
  closed.catch(() => undefined);
  await new Promise<void>((resolve, reject) =>
    req.write(sent, (error) => (error ? reject(error) : resolve())),
  );
  return { socket, closed };
}

/**
 * `path` asked with the token `secret` (a purge POSTed when `body` is given): how long its answer
 * took (wall time), and its status; status 0 when none came within 5 s.
 */
async function timed(
  h: Harness,
  secret: string,
  path: string,
  body?: unknown,
): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${h.url}${path}`, {
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5_000),
    });
    await response.arrayBuffer();
    return { ms: performance.now() - started, status: response.status };
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    return { ms: performance.now() - started, status: 0 };
  }
}

const purgeOf = (path: string) => ({ zone: 'example.com', urls: [`https://example.com/${path}`] });

/**
 * Holds the one turn of a server with API_MAX_IN_FLIGHT 1: a POST for a zone the index does not
 * have is looked up at the CDN, which holds its answer until `release`.
 */
async function holdTheTurn(h: Harness, secret: string) {
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = new Promise<void>((onHeld) =>
    h.sandbox.inject({ kind: 'hold', until, onHeld, method: 'GET', path: /^\/zones/, times: 1 }),
  );
  const answered = postPurge(
    h,
    secret,
    { zone: 'held.example', tags: ['held'] },
    { 'x-test-name': 'held' },
  );
  await held;
  return { answered, release };
}

describe('the purge API and slow clients', () => {
  it('accepts another token’s purge within 1 s while one token holds ten stalled bodies', async () => {
    // The production defaults: 8 turns, 500 queued, a 5 s idle and 20 s total body timeout.
    const h = await startHarness({ login: true });
    const stalling = await token(h, 'stalling');
    const deploy = await token(h, 'deploy');
    // Warm: the path's first purge is not what is measured.
    expect((await postPurge(h, deploy, purgeOf('warm'))).status).toBe(202);
    const seen = requestsSeen(serverOf(h), 10);
    const raws = await Promise.all(
      Array.from({ length: 10 }, () => stalled(h, stalling, 4096, '{')),
    );
    try {
      await seen;
      const purge = await timed(h, deploy, PURGES, purgeOf('beside'));
      expect(purge.status, 'the purge’s answer (0: none within 5 s)').toBe(202);
      expect(purge.ms).toBeLessThan(1_000);
      const read = await timed(h, deploy, `${PURGES}/none`);
      expect(read.status, 'the read’s answer (0: none within 5 s)').toBe(404);
      expect(read.ms).toBeLessThan(1_000);
    } finally {
      for (const { socket } of raws) socket.destroy();
    }
  });

  it('refuses a body over the limit with 413 without waiting for a turn', async () => {
    const h = await startHarness({
      login: true,
      env: { API_MAX_IN_FLIGHT: '1', API_MAX_QUEUED: '0' },
    });
    const holder = await token(h, 'holder');
    const big = await token(h, 'big');
    const turn = await holdTheTurn(h, holder);
    // Said by Content-Length: refused before a byte of it is read.
    const declared = await stalled(h, big, 2 * 1024 * 1024, '');
    const answer = await declared.closed;
    expect(answer.status).toBe(413);
    expect(answer.body.type).toBe('tag:cdn-chatops,2026:problems/body-too-large');
    // Found while reading (no Content-Length): refused once past the limit.
    const chunked = await fetch(`${h.url}${PURGES}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${big}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(1024 * 1024 + 1).fill(0x20));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    await expectProblem(chunked, 413, 'body-too-large');
    turn.release();
    await expectProblem(await turn.answered, 404, 'zone-not-found');
  });

  it('answers 408 and closes the connection when a body stops arriving, without waiting for a turn', async () => {
    const h = await startHarness({
      login: true,
      env: { API_MAX_IN_FLIGHT: '1', API_MAX_QUEUED: '0', API_BODY_IDLE_TIMEOUT_MS: '200' },
    });
    const holder = await token(h, 'holder');
    const slow = await token(h, 'slow');
    const turn = await holdTheTurn(h, holder);
    const raw = await stalled(h, slow, 4096, '{');
    const answer = await raw.closed;
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({
      type: 'tag:cdn-chatops,2026:problems/request-timeout',
      status: 408,
      detail: 'No byte of the body arrived for 0.2 s: send it at once, in full.',
    });
    turn.release();
    await expectProblem(await turn.answered, 404, 'zone-not-found');
  });

  it('answers 408 when a body takes longer than its total time', async () => {
    const h = await startHarness({
      login: true,
      env: { API_BODY_IDLE_TIMEOUT_MS: '60000', API_BODY_TIMEOUT_MS: '200' },
    });
    const slow = await token(h, 'slow');
    const raw = await stalled(h, slow, 4096, '{"zone":');
    const answer = await raw.closed;
    expect(answer.status).toBe(408);
    expect(answer.body.detail).toBe('The body must arrive within 0.2 s of the request.');
  });

  it('queues a token’s burst behind its own requests, not in front of another token’s', async () => {
    const h = await startHarness({ login: true, env: { API_MAX_IN_FLIGHT: '1' } });
    const burst = await token(h, 'burst');
    const other = await token(h, 'other');
    const server = serverOf(h);
    // The order in which the server answers the purge requests, by their test names.
    const answered: string[] = [];
    server.on('request', (req, res) => {
      if (req.url === PURGES)
        res.once('finish', () => answered.push(String(req.headers['x-test-name'])));
    });
    const turn = await holdTheTurn(h, burst);
    // The burst waits for the turn (each request waits once its body is read), then another
    // token's request comes.
    const burstRead = bodiesRead(server, 5);
    const names = ['b1', 'b2', 'b3', 'b4', 'b5'];
    const posts = names.map((name) => postPurge(h, burst, purgeOf(name), { 'x-test-name': name }));
    await burstRead;
    const otherRead = bodiesRead(server, 1);
    const beside = postPurge(h, other, purgeOf('other'), { 'x-test-name': 'other' });
    await otherRead;
    turn.release();
    for (const response of [...(await Promise.all(posts)), await beside])
      expect(response.status).toBe(202);
    // The held one first; then the turn goes round: the burst's next, the other token's, the rest.
    expect(answered).toEqual(['held', 'b1', 'other', 'b2', 'b3', 'b4', 'b5']);
  });
});
