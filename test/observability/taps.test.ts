// Label values come from fixed sets, whatever the input: CDN operations lose their ids, Slack
// methods and subcommands are checked against their shapes and the registry; the store taps count
// jobs and leases as the runner uses them.
import { describe, expect, it } from 'vitest';
import { RECURRING_JOB, recurringKey } from '../../src/jobs/background.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { BotMetrics } from '../../src/observability/metrics.js';
import { cdnOperation, slackMethod, subcommandOf, tapStore } from '../../src/observability/taps.js';
import { ZONE_INDEX_JOB } from '../../src/services/zones/zone-index-builder.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { parseExposition, sumOf } from '../helpers/prometheus.js';
import { testStore } from '../helpers/store.js';

describe('label values', () => {
  it('names CDN operations without ids or queries', () => {
    expect(cdnOperation('GET /zones')).toBe('GET /zones');
    expect(cdnOperation('GET /zones?status=active&page=2')).toBe('GET /zones');
    expect(cdnOperation('POST /zones/z_8f3a/purge')).toBe('POST /zones/{id}/purge');
    expect(cdnOperation('POST /zones/shop.example.com/settings')).toBe('POST /zones/{id}/settings');
    expect(cdnOperation('GET /zones/z%2F1/analytics/traffic?since=1')).toBe(
      'GET /zones/{id}/analytics/traffic',
    );
    expect(cdnOperation('get https://evil.example/x')).toBe('OTHER {id}//{id}/{id}');
  });

  it('keeps Slack method names and nothing shaped otherwise', () => {
    expect(slackMethod('chat.postMessage')).toBe('chat.postMessage');
    expect(slackMethod('files.completeUploadExternal?x=1')).toBe('files.completeUploadExternal');
    expect(slackMethod('T0123/hooks/abc')).toBe('other');
    expect(slackMethod('')).toBe('other');
  });

  it('names a subcommand from the registry, never what was typed', () => {
    expect(subcommandOf('purge example.com https://example.com/a')).toBe('purge');
    expect(subcommandOf('  ZONES active')).toBe('zones');
    expect(subcommandOf('')).toBe('help');
    expect(subcommandOf('help')).toBe('help');
    expect(subcommandOf('https://example.com/secret')).toBe('unknown');
    expect(subcommandOf(undefined)).toBe('help');
  });
});

describe('tapStore', () => {
  it('counts jobs enqueued, running, finished, resumed, and a lease that expired', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const { store } = await testStore('sqlite', { clock });
    const metrics = new BotMetrics({ processMetrics: false });
    const tapped = tapStore(store, metrics);
    const logs = captureLogs('silent');
    const value = async (name: string, labels: Record<string, string> = {}) =>
      sumOf(parseExposition((await metrics.exposition()).body), name, labels);

    // One attempt that fails (retried later), then succeeds: resumed once.
    let attempts = 0;
    const runner = new JobRunner({ jobs: tapped.jobs, clock, logger: logs.logger, pollMs: 5 });
    runner.register('demo', {
      run: async () => (++attempts === 1 ? { retryInMs: 0, error: 'first try' } : 'done'),
    });
    await runner.enqueue({ workspaceId: 'T1', kind: 'demo', key: 'a', payload: {} });
    await runner.settled();
    expect(attempts).toBe(2);
    expect(await value('cdn_chatops_jobs_enqueued_total', { kind: 'demo' })).toBe(1);
    expect(await value('cdn_chatops_jobs_resumed_total', { kind: 'demo' })).toBe(1);
    expect(
      await value('cdn_chatops_jobs_finished_total', { kind: 'demo', state: 'succeeded' }),
    ).toBe(1);
    expect(await value('cdn_chatops_jobs_running', { kind: 'demo' })).toBe(0);

    // A lease taken away: another owner claims the job once its lease has expired.
    await tapped.jobs.enqueue({ workspaceId: 'T1', kind: 'held', key: 'b', payload: {} });
    const job = await tapped.jobs.claim('me', 1_000, ['held']);
    expect(job).toBeDefined();
    expect(await value('cdn_chatops_jobs_running', { kind: 'held' })).toBe(1);
    clock.advance(2_000);
    await store.jobs.claim('someone-else', 1_000, ['held']);
    expect(await tapped.jobs.renew(job?.id ?? '', 'me', 1_000)).toBe(false);
    expect(await value('cdn_chatops_jobs_lease_expired_total', { kind: 'held' })).toBe(1);
    expect(await value('cdn_chatops_jobs_running', { kind: 'held' })).toBe(0);
    // Counted once, however many writes then fail.
    await tapped.jobs.finish(job?.id ?? '', 'me', { state: 'succeeded' });
    expect(await value('cdn_chatops_jobs_lease_expired_total', { kind: 'held' })).toBe(1);
    expect(await value('cdn_chatops_jobs_in_database', { state: 'running' })).toBe(1);
    await runner.stop();
  });

  it('counts the queue without the rows held for recurring entries and zone indexes', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const { store } = await testStore('sqlite', { clock });
    const metrics = new BotMetrics({ processMetrics: false });
    const tapped = tapStore(store, metrics);
    const value = async (name: string, labels: Record<string, string> = {}) =>
      sumOf(parseExposition((await metrics.exposition()).body), name, labels);
    const runner = new JobRunner({
      jobs: tapped.jobs,
      clock,
      logger: captureLogs('silent').logger,
    });
    // Held rows stay in the database, queued until next due: bookkeeping, not a backlog.
    for (const input of [
      { workspaceId: '', kind: RECURRING_JOB, key: recurringKey('retention'), payload: {} },
      { workspaceId: 'T1', kind: ZONE_INDEX_JOB, key: 'zone-index:T1', payload: {} },
    ]) {
      expect(
        await runner.runHeld(
          input,
          async () => undefined,
          () => clock.now() + 60_000,
        ),
      ).toMatchObject({ ran: true });
    }
    await tapped.jobs.enqueue({ workspaceId: 'T1', kind: 'demo', key: 'waiting', payload: {} });
    expect(await store.jobs.countByState()).toEqual({ queued: 3 });
    expect(await value('cdn_chatops_jobs_in_database', { state: 'queued' })).toBe(1);
    expect(await value('cdn_chatops_jobs_in_database', { state: 'running' })).toBe(0);
  });
});
