// Watches across replicas: three bot processes (children, see bot-process.ts) on one PostgreSQL
// database evaluate 20 watches (5 zones × 4 channels) every 2 s (a floor only outside production:
// 10 s there; test/config.test.ts). Each zone's interval is one job keyed by zone and interval, so
// it is evaluated once however many replicas tick; each alert is posted exactly once, in its own
// channel.
//
// Once two runs (2 and 3 processes) of 200 watches (40 channels) every 4 s: 90 s of the suite. One
// run proves what both did. Exactly-once rests on keyed writes that replicas race for: a zone's
// interval taken with its schedule (replicas skip a zone another is taking), a job's claim, an
// alert's post keyed by the alert. Two replicas are three with one losing every race: each race
// two can run, three run too, with more claimers at once. The watches per zone multiply the
// alerts and their posts, not the evaluations (one a zone and interval, whatever its watches): 4
// channels still queue 20 posts at once, more than the three replicas' 12 post slots, so the post
// jobs are raced for as with 200; what 200 added was 180 more charts to draw, one at a time in
// each bot's chart thread (the chart pool under load is test/charts/render-pool.test.ts's and
// test/e2e/charts-busy.test.ts's). A 2 s interval sees as many intervals in half the time.
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/dev/sandbox/server.js';
import { WATCH_EVAL_JOB } from '../../src/services/watch-evaluation.js';
import { WATCH_POST_JOB } from '../../src/services/watch-posting.js';
import { BACKENDS } from '../helpers/store.js';
import { REPLICA_ENV, startWorld, type World } from './bot-process.js';
import { within } from './flows.js';

const ZONES = [
  'example.com',
  'static.example.com',
  'shop.example.org',
  'blog.example.net',
  'api.example.io',
];
const CHANNELS = Array.from({ length: 4 }, (_, i) => `CW${String(i).padStart(3, '0')}`);
const WATCHES = ZONES.length * CHANNELS.length;
const REPLICAS = 3;
const INTERVAL_MS = 2_000;
/**
 * How long three more evaluations of every zone may take after the alerts: five intervals when
 * idle, but on a busy machine the bots' ticks (every second) and jobs may be starved for longer; a
 * bound for a bug where evaluations stop, not a measure.
 */
const MORE_EVALUATIONS_MS = Math.max(5 * INTERVAL_MS, 30_000);
const postgres = BACKENDS.find((b) => b.backend === 'postgres');

const isMinuteRead = (r: RecordedRequest) =>
  Date.parse(r.query.until ?? '') - Date.parse(r.query.since ?? '') === 60_000;

/** What a run observed, printed when FAULT_REPORT is set. */
function report(what: string, numbers: Record<string, unknown>): void {
  if (process.env.FAULT_REPORT)
    process.stderr.write(`[fault report] ${what}: ${JSON.stringify(numbers)}\n`);
}

/** Resolves once no watch post job is queued or running (the jobs table, read every 200 ms). */
async function postsDone(world: World): Promise<void> {
  for (;;) {
    const open = await world.inspect((store) =>
      store.db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', WATCH_POST_JOB)
        .where('state', 'in', ['queued', 'running'])
        .execute(),
    );
    if (open.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('watches on several replicas', () => {
  it.skipIf(postgres?.skip ?? true)(
    `${REPLICAS} processes on PostgreSQL evaluate ${WATCHES} watches: every alert posted exactly once`,
    async () => {
      const world = await startWorld({
        backend: 'postgres',
        // What is tested is exactly-once across replicas. Under Slack's tiers many charts in one
        // workspace take minutes (two files.* calls each; files.* are 100 a minute, and the bot
        // keeps 80 of them: src/slack/pacer.ts); reports-scale measures that. Slack's
        // processing of each chart (fileReadyMs) is off too: its waits add retries that, on a
        // busy machine, pushed the alerts past the budget; test/e2e/chart-delivery.test.ts
        // covers it.
        slack: { rateLimits: false, fileReadyMs: 0 },
        env: {
          ...REPLICA_ENV,
          WATCH_INTERVAL_MS: String(INTERVAL_MS),
          // Fires at the first interval that sees traffic above one request a minute.
          WATCH_HOLD_INTERVALS: '1',
        },
      });
      for (const id of CHANNELS)
        world.slack.addChannel({ id, name: id.toLowerCase(), botMember: true });
      await world.inspect(async (store) => {
        for (const name of ZONES) {
          const zone = world.sandbox.state.byName(name);
          if (!zone) throw new Error(`no zone ${name}`);
          for (const channelId of CHANNELS)
            await store.watches.upsert(
              {
                workspaceId: world.workspaceId,
                zoneId: zone.id,
                zoneName: name,
                channelId,
                createdBy: 'UADMIN',
                rules: ['requests>1/1m'],
              },
              { status: 'active', firstRunAt: Date.now() },
              // More watches than one person may make by default: set up as a whole.
              { watches: 1_000, watchesPerPerson: 1_000 },
            );
        }
      });
      const bots = await Promise.all(Array.from({ length: REPLICAS }, () => world.spawnBot()));
      /** A one-minute traffic read of the zone (one evaluation of an interval), after `since`. */
      const readOf =
        (name: string, since = 0) =>
        (r: RecordedRequest) =>
          r.path === `/zones/${world.sandbox.state.byName(name)?.id}/analytics/traffic` &&
          r.at > since &&
          isMinuteRead(r);
      const isAlert = (m: { via: string; threadTs?: string; text?: string }) =>
        m.via === 'api' && !m.threadTs && (m.text?.startsWith('Alert:') ?? false);
      await within(100_000, `${WATCHES} alerts`, world.slack.waitForMessages(isAlert, WATCHES));
      const alerted = Date.now();
      // Two more intervals of every zone: nothing is posted again. Waited for on the CDN's
      // request log, not the clock: once a zone is read a third time after the alerts, its two
      // evaluations before had a whole interval each to post anything.
      await within(
        MORE_EVALUATIONS_MS,
        'three more evaluations of every zone',
        Promise.all(ZONES.map((name) => world.sandbox.waitFor(readOf(name, alerted), 3))),
      );
      // And every post those evaluations queued has run (a chart may still be rendering): a second
      // alert would be in Slack by now.
      await within(MORE_EVALUATIONS_MS, 'every watch post to finish', postsDone(world));
      const alerts = world.slack.messages.filter(isAlert);
      expect(alerts).toHaveLength(WATCHES);
      const where = new Set(alerts.map((m) => `${m.channel} ${m.text}`));
      expect(where.size).toBe(WATCHES);
      // Each zone's interval was evaluated once, and read once. An interval evaluated is a job
      // keyed by zone and interval (its payload's dueAt), kept an hour once finished: the reads
      // are counted first, so each read's job is among those listed after. (Once counted against
      // the span of the reads' times: the reads are late by however long the bots wait for CPU,
      // which on a busy machine shifted the span by more than an interval without any evaluation
      // running twice.)
      const reads = new Map(
        ZONES.map((name) => [name, world.sandbox.requests.filter(readOf(name)).length]),
      );
      const evaluations = await world.inspect((store) =>
        store.db
          .selectFrom('jobs')
          .select(['payload', 'attempts'])
          .where('kind', '=', WATCH_EVAL_JOB)
          .execute(),
      );
      for (const name of ZONES) {
        const zoneId = world.sandbox.state.byName(name)?.id;
        const due = evaluations
          .map((job) => JSON.parse(job.payload) as { zoneId: string; dueAt: number })
          .filter((payload) => payload.zoneId === zoneId)
          .map((payload) => payload.dueAt)
          .sort((a, b) => a - b);
        report(name, { reads: reads.get(name), due });
        expect(reads.get(name)).toBeGreaterThanOrEqual(2);
        // One job an interval: each a whole number of intervals after the one before.
        for (const [i, at] of due.slice(1).entries()) {
          const after = at - (due[i] ?? 0);
          expect(after).toBeGreaterThan(0);
          expect(after % INTERVAL_MS).toBe(0);
        }
        // No interval read twice: no more reads than intervals evaluated.
        expect(reads.get(name)).toBeLessThanOrEqual(due.length);
      }
      // The replicas shared the work: evaluations ran on more than one of them.
      const working = bots.filter((bot) =>
        bot.logs().some((line) => line.kind === 'watch_eval' && line.msg === 'job finished'),
      );
      expect(working.length).toBeGreaterThan(1);
    },
    150_000,
  );
});
