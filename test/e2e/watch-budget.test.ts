// The watches' CDN budget (WATCH_CDN_REQUESTS_PER_MINUTE) end to end: a workspace watching more
// zones than the budget asks the sandbox for at most the budget each minute, and the evaluations
// it refused run in the next minute, on each database.
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/store.js';
import { type Harness, startHarness } from './harness.js';

const MINUTE = 60_000;
const BUDGET = 3;
/** Every active demo zone of the sandbox: more than the budget. */
const ZONES = ['example.com', 'static.example.com', 'shop.example.org', 'blog.example.net'];
/** One evaluation a zone every ten minutes: the budget is only short when they come at once. */
const INTERVAL_MS = 10 * MINUTE;

/**
 * Moves the clock on by `ms` and waits for the jobs that can run; with `tick`, queues the zones'
 * intervals due first (otherwise none, so that each round's zones come due at once).
 */
async function after(h: Harness, ms: number, tick = false): Promise<void> {
  h.clock.advance(ms);
  if (tick) await h.deps.watchEvaluation.tick();
  await h.deps.runner.settled();
}

/** The analytics requests the sandbox answered in the minute beginning at `start`. */
const askedIn = (h: Harness, start: number) =>
  h.sandbox.requests.filter(
    (r) => r.path.endsWith('/analytics/traffic') && r.at >= start && r.at < start + MINUTE,
  ).length;

for (const { backend, skip } of BACKENDS)
  describe.skipIf(skip)(`the watches' CDN budget, on ${backend}`, () => {
    it('asks the CDN at most the budget in a minute and evaluates the rest in the next', async () => {
      const h = await startHarness({
        backend,
        login: true,
        env: {
          WATCH_CDN_REQUESTS_PER_MINUTE: String(BUDGET),
          WATCH_INTERVAL_MS: String(INTERVAL_MS),
        },
      });
      for (const zone of ZONES) {
        await h.command(`watch ${zone}`);
        await h.slack.waitForMessages((m) => m.via === 'response_url' && !!m.text?.includes(zone));
      }
      // Five seconds into a minute: past the jitter of the refused evaluations' retry.
      await after(h, 5_000);

      // A whole interval at once: every zone is due, with its first baseline (two requests each).
      const first = h.clock.now() - 5_000 + INTERVAL_MS;
      await after(h, INTERVAL_MS, true);
      const minutes = [askedIn(h, first)];
      for (let i = 1; i < 4; i++) {
        await after(h, MINUTE);
        minutes.push(askedIn(h, first + i * MINUTE));
      }
      expect(minutes).toEqual([3, 3, 2, 0]);

      // The next interval needs one request a zone: the budget's worth, then the rest a minute on.
      const second = first + INTERVAL_MS;
      await after(h, second + 5_000 - h.clock.now(), true);
      expect(askedIn(h, second)).toBe(BUDGET);
      await after(h, MINUTE);
      expect(askedIn(h, second + MINUTE)).toBe(ZONES.length - BUDGET);
      const zoneIds = ZONES.map((name) => h.sandbox.state.byName(name)?.id);
      const evaluated = h.sandbox.requests
        .filter((r) => r.path.endsWith('/analytics/traffic') && r.at >= second)
        .map((r) => r.path.split('/')[2]);
      expect(evaluated.sort()).toEqual(zoneIds.sort());
      // The budget is kept among the rate slots, not as somebody's change counts.
      expect(await h.store.changeCounters.pruneAll(Number.MAX_SAFE_INTEGER, 100)).toBe(0);
    });
  });
