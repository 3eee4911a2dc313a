// Fault injection for the sandbox: errors, latency, hangs, bad bodies, resets, runaway paging and
// endless bodies on chosen requests.
import type { ServerResponse } from 'node:http';
import { failure, type Reply } from './http.js';

/** A fault for the next `times` requests matching `method` and `path` (relative to /v1). */
export type Fault = {
  method?: 'GET' | 'POST';
  path?: string | RegExp;
  times?: number;
} & (
  | {
      kind: 'status';
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
      /** Do the work first, then answer with this status (an outcome the client cannot know). */
      after?: boolean;
    }
  | { kind: 'latency'; ms: number }
  /**
   * Hold the request until `until` settles, then answer it as usual: a CDN exactly as slow as a
   * test wants. `onHeld` is called once the request is being held.
   */
  | { kind: 'hold'; until: Promise<unknown>; onHeld?: () => void }
  /** Never answer; with `after`, do the work first. */
  | { kind: 'hang'; after?: boolean }
  /** A 200 whose body is cut-off JSON. */
  | { kind: 'malformed' }
  /** Drop the connection without an answer. */
  | { kind: 'reset' }
  /**
   * GET /zones ignores `page`: every page holds page 1's zones (seed enough to fill it, e.g.
   * `bulkZones`), `meta.page` echoes the page asked for, and `meta.total` is this.
   */
  | { kind: 'ignore-paging'; total: number }
  /**
   * GET /zones never ends: every page is full of zones never listed before, and `meta.total`
   * always claims one page more than has been asked for.
   */
  | { kind: 'endless-paging' }
  /**
   * A 200 whose JSON body is `bytes` long, made as it is sent, chunk by chunk, waiting for the
   * client to take each one (never held in memory). `declareLength` sends Content-Length;
   * otherwise the body is chunked.
   */
  | { kind: 'huge-body'; bytes: number; declareLength?: boolean }
);

/** The faults waiting for their requests, first injected first matched. */
export class Faults {
  readonly #pending: Array<Fault & { remaining: number }> = [];

  inject(fault: Fault): void {
    this.#pending.push({ ...fault, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.#pending.length = 0;
  }

  /** The fault for this request, if any; it counts as used once. */
  take(method: string, path: string): Fault | undefined {
    const index = this.#pending.findIndex(
      (fault) =>
        (fault.method === undefined || fault.method === method) &&
        (fault.path === undefined ||
          (typeof fault.path === 'string' ? fault.path === path : fault.path.test(path))),
    );
    const fault = this.#pending[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.#pending.splice(index, 1);
    return fault;
  }
}

export function faultReply(fault: Extract<Fault, { kind: 'status' }>): Reply {
  return {
    status: fault.status,
    body: fault.body ?? failure('injected', `Injected ${fault.status}`),
    ...(fault.headers ? { headers: fault.headers } : {}),
  };
}

/** A page of GET /zones from a server that ignores `page` (see the `ignore-paging` fault). */
export function ignoredPaging(firstPage: Reply, query: URLSearchParams, total: number): Reply {
  const body = firstPage.body as { data?: unknown[] } | undefined;
  if (firstPage.status !== 200 || !body?.data) return firstPage;
  const perPage = Number(query.get('per_page') ?? 20);
  return {
    status: 200,
    body: {
      success: true,
      data: body.data,
      meta: { page: Number(query.get('page') ?? 1), per_page: perPage, total },
    },
  };
}

/** A page of GET /zones from a listing that never ends (see the `endless-paging` fault). */
export function endlessPage(query: URLSearchParams, createdAt: string): Reply {
  const page = Number(query.get('page') ?? 1);
  const perPage = Number(query.get('per_page') ?? 20);
  const data = Array.from({ length: perPage }, (_, i) => ({
    id: `zone_endless_${page}_${i}`,
    name: `z${i}.p${page}.endless.test`,
    status: 'active',
    created_at: createdAt,
  }));
  return {
    status: 200,
    body: { success: true, data, meta: { page, per_page: perPage, total: (page + 1) * perPage } },
  };
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Sends a 200 JSON zone list `bytes` long, one 64 KiB chunk at a time, each written only once the
 * client took the one before (backpressure). Resolves with the bytes written when the body ended
 * or the client went away.
 */
export async function streamHugeBody(
  res: ServerResponse,
  bytes: number,
  declareLength: boolean,
): Promise<number> {
  const head = Buffer.from('{"success":true,"data":[');
  const tail = Buffer.from('],"meta":{"page":1,"per_page":100,"total":1}}');
  const zone =
    '{"id":"zone_huge","name":"huge.example","status":"active","created_at":"2026-01-01T00:00:00Z"},';
  // Whole zones, then spaces to the chunk's size (whitespace between array items is valid JSON).
  const chunk = Buffer.alloc(CHUNK_BYTES, ' ');
  chunk.write(zone.repeat(Math.floor(CHUNK_BYTES / zone.length)));
  // The last item before the tail must not be followed by a comma.
  const closing = Buffer.from(
    '{"id":"zone_end","name":"end.example","status":"active","created_at":"2026-01-01T00:00:00Z"}',
  );
  const middle = Math.max(0, bytes - head.length - tail.length - closing.length);

  let gone = false;
  // A client that hangs up mid-body is what this fault is for, not an error of the sandbox's.
  res.on('error', () => {});
  res.once('close', () => {
    gone = !res.writableFinished;
  });
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  const write = async (piece: Buffer) => {
    if (!res.write(piece)) await drained();
  };

  res.writeHead(200, {
    'content-type': 'application/json',
    ...(declareLength
      ? { 'content-length': String(head.length + middle + closing.length + tail.length) }
      : {}),
  });
  let sent = 0;
  await write(head);
  sent += head.length;
  while (sent - head.length < middle && !gone && !res.destroyed) {
    const left = middle - (sent - head.length);
    // The chunk is written many times over and never changed; the last, shorter piece is spaces.
    const piece = left >= chunk.length ? chunk : Buffer.alloc(left, ' ');
    await write(piece);
    sent += piece.length;
  }
  if (gone || res.destroyed) return sent;
  res.end(Buffer.concat([closing, tail]));
  return sent + closing.length + tail.length;
}
