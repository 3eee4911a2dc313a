// A runaway CDN against the real bot process: a listing that ignores `page` or never ends, and a
// body of 1 GiB streamed chunk by chunk, each end in one clear message, after a bounded number of
// requests and with bounded memory (the child's peak RSS, VmHWM in /proc/<pid>/status).
//
// On SQLite only (backends.ts): what is proven is the CDN client's bounds, and the store is only
// read for the CDN key, as every other fault scenario reads it on both databases.
//
// FAULT_REPORT=1 prints what each run observed (requests, peak RSS).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/dev/sandbox/server.js';
import { SQLITE } from './backends.js';
import { type Bot, MEMBER, startWorld, type World } from './bot-process.js';
import { TEST_TIMEOUT_MS } from './flows.js';

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
/** CDN_MAX_RESPONSE_BYTES's default: what the bot reads of one answer at most. */
const MAX_RESPONSE_BYTES = 8 * MIB;
/** Far below the 1 GiB body: the bot never held it. Its own start (tsx, Bolt, Kysely) is ~150 MB. */
const PEAK_RSS_LIMIT = 300 * MIB;

const isList = (request: RecordedRequest) => request.method === 'GET' && request.path === '/zones';

/** What the bot answered MEMBER through the command's response_url, in order. */
async function replies(world: World, count: number): Promise<string[]> {
  const messages = await world.slack.waitForMessages((m) => m.via === 'response_url', count);
  return messages.map((m) => m.text ?? '');
}

/** The process's peak resident set size so far, in bytes (Linux: VmHWM). */
async function peakRss(bot: Bot): Promise<number> {
  const status = await readFile(`/proc/${bot.pid}/status`, 'utf8');
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmHWM in /proc/${bot.pid}/status`);
  return Number(kib) * 1024;
}

function report(what: string, numbers: Record<string, unknown>): void {
  if (process.env.FAULT_REPORT)
    process.stderr.write(`[fault report] ${what}: ${JSON.stringify(numbers)}\n`);
}

const dontUnderstand = (said: string) =>
  `The CDN answered in a way I don't understand (${said}), so I assumed nothing.`;

describe.each([SQLITE])(
  'a runaway CDN, against the bot process ($backend)',
  ({ backend, skip }) => {
    it.skipIf(skip)(
      'a listing that ignores page, or never ends, stops with a clear message after a few requests',
      async () => {
        // 150 zones: page 1 is full (100), so only paging could end the listing.
        const world = await startWorld({ backend, sandbox: { bulkZones: 150 } });
        const bot = await world.spawnBot();

        // Every page is page 1 again, under a total of 9,000 (90 pages, within the cap).
        world.sandbox.inject({
          kind: 'ignore-paging',
          total: 9_000,
          path: '/zones',
          times: Infinity,
        });
        expect((await bot.command('analytics example.com', MEMBER)).status).toBe(200);
        const [ignored] = await replies(world, 1);
        expect(ignored).toBe(
          dontUnderstand(
            'The CDN sent the same zones again for page 2 of the zone list: it seems to ignore paging',
          ),
        );
        const ignoringRequests = world.sandbox.requests.filter(isList).length;
        expect(ignoringRequests).toBe(2);

        // Every page new, the total always a page ahead of what was read.
        world.sandbox.clearFaults();
        world.sandbox.inject({ kind: 'endless-paging', path: '/zones', times: Infinity });
        expect((await bot.command('ratelimit example.com on', MEMBER)).status).toBe(200);
        const [, endless] = await replies(world, 2);
        expect(endless).toBe(
          dontUnderstand('The zone list kept growing while the bot read it (200 zones, then 400)'),
        );
        const endlessRequests = world.sandbox.requests.filter(isList).length - ignoringRequests;
        expect(endlessRequests).toBe(3);

        // A total past the cap (100 pages of 100) is refused on the first page.
        world.sandbox.clearFaults();
        world.sandbox.inject({ kind: 'ignore-paging', total: 5_000_000, path: '/zones', times: 1 });
        expect((await bot.command('analytics example.com', MEMBER)).status).toBe(200);
        const [, , huge] = await replies(world, 3);
        expect(huge).toBe(
          dontUnderstand(
            'The CDN lists 5,000,000 zones, more than the 10,000 (100 pages) the bot reads',
          ),
        );
        expect(world.sandbox.requests.filter(isList)).toHaveLength(
          ignoringRequests + endlessRequests + 1,
        );
        // Nothing else was asked of the CDN: no analytics, no settings change.
        expect(world.sandbox.requests.filter((r) => !isList(r))).toEqual([]);

        // The CDN behaves again: the bot was never stuck.
        world.sandbox.clearFaults();
        expect((await bot.command('zones', MEMBER)).status).toBe(200);
        const [, , , zones] = await replies(world, 4);
        expect(zones).toContain('example.com');
        report(`runaway paging (${backend})`, { ignoringRequests, endlessRequests });
      },
      TEST_TIMEOUT_MS,
    );

    it.skipIf(skip)(
      'a 1 GiB body is cut off at the limit: bounded memory, and a clear message',
      async () => {
        const world = await startWorld({ backend });
        const bot = await world.spawnBot();
        const before = await peakRss(bot);

        // Chunked (no length announced), so only undici's count of the bytes can stop it.
        world.sandbox.inject({ kind: 'huge-body', bytes: GIB, method: 'GET', path: '/zones' });
        expect((await bot.command('zones', MEMBER)).status).toBe(200);
        const [reply] = await replies(world, 1);
        expect(reply).toBe(
          dontUnderstand(
            "The CDN's answer to GET /zones was larger than 8 MiB, the most the bot reads",
          ),
        );
        const peak = await peakRss(bot);
        const [streamed] = await world.sandbox.waitFor((r) => r.bodyBytesSent !== undefined);
        const sent = streamed?.bodyBytesSent ?? GIB;
        report(`1 GiB body (${backend})`, {
          peakRssBeforeMiB: Math.round(before / MIB),
          peakRssAfterMiB: Math.round(peak / MIB),
          sentMiB: Math.round(sent / MIB),
        });
        expect(peak).toBeLessThan(PEAK_RSS_LIMIT);
        // The sandbox stopped once the bot hung up: the limit and socket buffers, not the gigabyte.
        expect(sent).toBeGreaterThan(MAX_RESPONSE_BYTES);
        expect(sent).toBeLessThan(100 * MIB);
        expect(world.sandbox.requests.filter(isList)).toHaveLength(1);

        // The same connection pool serves the next request.
        expect((await bot.command('zones', MEMBER)).status).toBe(200);
        const [, zones] = await replies(world, 2);
        expect(zones).toContain('example.com');
      },
      TEST_TIMEOUT_MS,
    );
  },
);
