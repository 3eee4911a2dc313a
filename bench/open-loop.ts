// Open-loop load for the ack benchmarks: signed slash commands on a fixed schedule, timed from it.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { signedCommandHeaders } from './bot-process.js';
import { fmt, type LatencySummary, latencySummary, table } from './stats.js';

export interface CommandStream {
  /** Requests per second, evenly spaced. */
  perSecond: number;
  /** The subcommand text, e.g. `zones`, for request `i`. */
  text(i: number): string;
  /** The channel request `i` comes from. */
  channel(i: number): string;
  /** Where request `i` goes (a port on 127.0.0.1): round-robin over replicas, say. */
  port(i: number): number;
  /** response_urls minted by the fake Slack, one per request: the stream stops when they run out. */
  responseUrls: string[];
}

export interface Workspace {
  teamId: string;
  user: string;
}

/** One request: when it was due (epoch ms), its latency (ms; NaN when it failed) and status. */
export type Sample = [scheduledAt: number, latency: number, status: number];

export interface StreamResult {
  samples: Sample[];
  /** How late the sender itself was (ms after the scheduled time), per request. */
  senderLag: number[];
}

/** The form body Slack POSTs for `/cdn <text>`, with a trigger id of its own (the replay guard). */
function slashCommand(
  workspace: Workspace,
  text: string,
  channel: string,
  responseUrl: string,
  id: string,
): string {
  return new URLSearchParams({
    token: 'legacy-unused',
    team_id: workspace.teamId,
    team_domain: 'bench',
    channel_id: channel,
    channel_name: channel,
    user_id: workspace.user,
    user_name: workspace.user,
    command: '/cdn',
    text,
    api_app_id: 'A0BENCH',
    response_url: responseUrl,
    trigger_id: id,
  }).toString();
}

let runs = 0;

interface Due {
  /** performance.now() when the call is due. */
  perf: number;
  /** Date.now() when the call is due. */
  epoch: number;
}

/**
 * Fires call `i` of stream `s` at its time (`i / perSecond` seconds after the start) until every
 * stream has made `count` calls, `durationMs` has passed, or `signal` aborts; then waits for the
 * calls still out. A call due while the loop was late is fired at once, keeping its due time.
 */
async function onSchedule(
  streams: Array<{ perSecond: number; count: number }>,
  options: { durationMs?: number | undefined; signal?: AbortSignal | undefined },
  fire: (s: number, i: number, due: Due) => Promise<void>,
): Promise<void> {
  const next = streams.map(() => 0);
  const pending = new Set<Promise<void>>();
  const startPerf = performance.now() + 20;
  const startEpoch = Date.now() + (startPerf - performance.now());
  const end = options.durationMs ?? Number.POSITIVE_INFINITY;
  for (;;) {
    if (options.signal?.aborted) break;
    let stream = -1;
    let at = Number.POSITIVE_INFINITY;
    streams.forEach((s, k) => {
      const index = next[k] ?? 0;
      const offset = (index * 1000) / s.perSecond;
      if (offset < end && index < s.count && offset < at) {
        at = offset;
        stream = k;
      }
    });
    if (stream < 0) break;
    const wait = startPerf + at - performance.now();
    if (wait > 0) {
      try {
        await delay(wait, undefined, options.signal ? { signal: options.signal } : {});
      } catch {
        break;
      }
    }
    const index = next[stream] ?? 0;
    next[stream] = index + 1;
    const done: Promise<void> = fire(stream, index, {
      perf: startPerf + at,
      epoch: startEpoch + at,
    }).finally(() => pending.delete(done));
    pending.add(done);
  }
  while (pending.size > 0) await Promise.all([...pending]);
}

// A closed loop sends less when the bot slows down, which hides the slowdown. Here each latency is
// from the request's scheduled send time to the end of its answer, so a late sender or a slow bot
// both count against the bot, never in its favour.

/**
 * Sends every stream on its schedule for `durationMs` (or until `signal` aborts), then waits for
 * the answers still out. Requests are never queued in the client: a new connection is opened
 * whenever none is free.
 */
export async function openLoop(
  workspace: Workspace,
  streams: CommandStream[],
  options: { durationMs?: number; signal?: AbortSignal },
): Promise<StreamResult[]> {
  const run = ++runs;
  const agent = new Agent({ keepAliveTimeout: 60_000, headersTimeout: 60_000 });
  const results: StreamResult[] = streams.map(() => ({ samples: [], senderLag: [] }));
  await onSchedule(
    streams.map((s) => ({ perSecond: s.perSecond, count: s.responseUrls.length })),
    options,
    async (s, i, due) => {
      const stream = streams[s] as CommandStream;
      const result = results[s] as StreamResult;
      const body = slashCommand(
        workspace,
        stream.text(i),
        stream.channel(i),
        stream.responseUrls[i] ?? '',
        `bench.${run}.${s}.${i}`,
      );
      result.senderLag.push(performance.now() - due.perf);
      const sample: Sample = [due.epoch, Number.NaN, 0];
      result.samples.push(sample);
      try {
        const response = await request(`http://127.0.0.1:${stream.port(i)}/slack/events`, {
          method: 'POST',
          dispatcher: agent,
          headers: signedCommandHeaders(body),
          body,
        });
        await response.body.dump();
        sample[1] = performance.now() - due.perf;
        sample[2] = response.statusCode;
      } catch {
        // No answer: counted as failed (NaN).
      }
    },
  );
  await agent.close();
  return results;
}

/**
 * `call(i)` `perSecond` times a second, open loop, as `openLoop` sends commands: for a reference
 * measured beside them (a database write, say). A call that throws is a failed sample (NaN).
 */
export async function steadyCalls(
  perSecond: number,
  options: { durationMs?: number; signal?: AbortSignal },
  call: (i: number) => Promise<unknown>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  await onSchedule([{ perSecond, count: Number.POSITIVE_INFINITY }], options, async (_, i, due) => {
    const sample: Sample = [due.epoch, Number.NaN, 0];
    samples.push(sample);
    try {
      await call(i);
      sample[1] = performance.now() - due.perf;
      sample[2] = 200;
    } catch {
      // counted as failed
    }
  });
  return samples;
}

/** Latencies of samples; a failed one (no answer, or not a 200) counts as slower than any. */
export const summarize = (samples: Sample[]): LatencySummary =>
  latencySummary(samples.map(([, ms, status]) => ({ ms, ok: status === 200 })));

/** The ack table of the open-loop suites: one row per condition, with the database probe's. */
export function ackTable(
  rows: Array<{ label: string; acks: LatencySummary; database?: LatencySummary }>,
): string {
  return table(
    [
      'condition',
      'commands',
      'p50',
      'p95',
      'p99',
      'max',
      'failed',
      'over 3 s',
      'database write p50 / p99 (probe)',
    ],
    rows.map(({ label, acks, database }) => [
      label,
      acks.sent,
      fmt(acks.p50),
      fmt(acks.p95),
      fmt(acks.p99),
      fmt(acks.max),
      acks.failed,
      acks.over3s,
      database ? `${fmt(database.p50)} / ${fmt(database.p99)}` : '—',
    ]),
  );
}
