// Benchmark: 1,000 daily reports due at once (200 workspaces × 5 zones) posted through the real
// report jobs (the tick queues them, the job runner posts them), against the sandbox and a fake Slack that enforces one post per second per channel.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebClient } from '@slack/web-api';
import { CdnTransport } from '../src/cdn/transport.js';
import { TrafficChartRenderer } from '../src/charts/traffic-chart.js';
import { systemClock } from '../src/clock.js';
import { parseEncryptionKeys } from '../src/config.js';
import { startFakeSlack } from '../src/dev/fake-slack/server.js';
import { SANDBOX_DEMO_KEY, startSandbox } from '../src/dev/sandbox/server.js';
import { JobRunner } from '../src/jobs/runner.js';
import { createLogger } from '../src/logger.js';
import { CdnAccess } from '../src/services/accounts/cdn-access.js';
import { DailyReportService } from '../src/services/reports/daily-report.js';
import { REPORT_JOB, ReportDelivery } from '../src/services/reports/report-delivery.js';
import { GroupMembersCache } from '../src/slack/directory.js';
import { SlackReportPoster } from '../src/slack/report-poster.js';
import { WorkspaceClients } from '../src/slack/workspace-clients.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore } from '../src/store/index.js';
import { CallPace, LocalSlots } from '../src/throttles/call-pace.js';
import { type Section, table } from './stats.js';

const WORKSPACES = Number(process.env.BENCH_REPORT_WORKSPACES ?? 200);
const ZONES = [
  'example.com',
  'static.example.com',
  'shop.example.org',
  'blog.example.net',
  'api.example.io',
];

export async function reportsBench(): Promise<Section> {
  const sandbox = await startSandbox();
  const slack = await startFakeSlack({ channelRateLimit: true });
  const dir = await mkdtemp(join(tmpdir(), 'bench-reports-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'bot.sqlite') },
    keyring: new Keyring(parseEncryptionKeys(generateKey('k1'))),
  });
  const logger = createLogger({ level: 'silent' });
  const transport = new CdnTransport();
  const now = systemClock.now();
  for (let w = 0; w < WORKSPACES; w++) {
    const workspaceId = `TBENCH${w}`;
    const channelId = `CBENCH${w}`;
    slack.addChannel({ id: channelId, name: `reports-${w}`, botMember: true });
    await store.credentials.set(workspaceId, SANDBOX_DEMO_KEY, { userId: 'U1', validated: true });
    const accountId = (await store.credentials.get(workspaceId))?.accountId ?? '';
    for (const name of ZONES) {
      const zone = sandbox.state.byName(name);
      await store.schedules.create(
        {
          workspaceId,
          accountId,
          zoneId: zone?.id ?? '',
          zoneName: name,
          channelId,
          createdBy: 'U1',
          timeOfDay: '09:00',
          timeZone: 'Europe/Paris',
          nextRunAt: now - 1_000,
        },
        { reports: Number.MAX_SAFE_INTEGER, reportsPerPerson: Number.MAX_SAFE_INTEGER },
      );
    }
  }
  const clients = new WorkspaceClients(new WebClient(undefined, { slackApiUrl: slack.apiUrl }), {
    botToken: slack.botToken,
  });
  const runner = new JobRunner({ jobs: store.jobs, clock: systemClock, logger });
  const delivery = new ReportDelivery({
    store,
    runner,
    reports: new DailyReportService(
      new CdnAccess({
        store,
        transport,
        defaultBaseUrl: sandbox.baseUrl,
        clock: systemClock,
        logger,
      }),
      store,
      new TrafficChartRenderer(),
    ),
    poster: new SlackReportPoster(
      clients,
      new CallPace(new LocalSlots(systemClock), systemClock),
      new GroupMembersCache(systemClock),
    ),
    clock: systemClock,
    logger,
  });

  runner.register(REPORT_JOB, delivery.job);

  // As in the bot: the runner claims each job as soon as the tick has stored it.
  const started = performance.now();
  runner.start();
  const result = await delivery.tick();
  const ticked = performance.now();
  await runner.settled();
  const seconds = (performance.now() - started) / 1000;

  const uploads = slack.callsTo('files.completeUploadExternal').filter((c) => c.response.ok);
  const perChannel = new Map<string, number>();
  for (const upload of uploads) {
    const channel = String(upload.args.channel_id);
    perChannel.set(channel, (perChannel.get(channel) ?? 0) + 1);
  }
  const duplicates = [...perChannel.values()].filter((count) => count !== ZONES.length).length;
  await runner.stop();
  await transport.close();
  await store.close();
  await slack.close();
  await sandbox.close();

  const total = WORKSPACES * ZONES.length;
  return {
    title: 'Daily reports: 1,000 due at once',
    body: [
      `${WORKSPACES} workspaces × ${ZONES.length} zones, every schedule due at the same minute, one process ` +
        '(8 report jobs at once), SQLite. Each report reads two days of hourly analytics from the sandbox, renders the ' +
        'day’s chart and uploads it; the fake Slack refuses a second post in a channel within a second (429, ' +
        'Retry-After: 1), as Slack does. The poster spaces posts to one channel by a second.',
      '',
      table(
        [
          'reports',
          'posted',
          'time to post all',
          'per second',
          '429s seen',
          'channels with ≠ 5 posts',
        ],
        [
          [
            total,
            uploads.length,
            `${seconds.toFixed(1)} s`,
            (uploads.length / seconds).toFixed(1),
            slack.rateLimited,
            duplicates,
          ],
        ],
      ),
      '',
      `Tick: ${result.queued} queued, ${result.skipped} skipped, in ${((ticked - started) / 1000).toFixed(1)} s (the runner already posting beside it); every job ran to its end before the clock stopped.`,
    ].join('\n'),
  };
}
