// A child process for the benchmarks that run bots: the fake Slack (which receives the bots' Web
// API calls and response_url posts) and the CDN sandbox, so that the process measuring latency does
// nothing else. Started by bench/services.ts; talks over IPC: sends { ready } once, then answers
// each request { id, op } with { id, ... }. Keeps what the benchmarks count (posts, 429s, calls per
// method over time) and drops each chart's bytes once its post is complete (10,000 PNGs add up).
import { TIER_4_FILE_METHODS } from '../src/dev/fake-slack/rate-limit.js';
import { startFakeSlack } from '../src/dev/fake-slack/server.js';
import { startSandbox } from '../src/dev/sandbox/server.js';
import {
  benchToken,
  type ServiceReply,
  type ServiceRequest,
  type ServicesSummary,
} from './services.js';
import { peakInWindow } from './stats.js';

const env = process.env;
// Workspaces of their own (OAuth installs), each with its own bot token: xoxb-bench-<team>.
const teams = (env.BENCH_SLACK_TEAMS ?? '').split(',').filter(Boolean);
const slack = await startFakeSlack({
  channelRateLimit: env.BENCH_SLACK_RATE_LIMIT === '1',
  ...(env.BENCH_SLACK_TIER4 === '1' ? { methodRateLimits: TIER_4_FILE_METHODS } : {}),
  tokens: Object.fromEntries(
    teams.map((teamId) => [benchToken(teamId), { teamId, botUserId: `UBOT${teamId}` }]),
  ),
});
slack.addUser({ id: env.BENCH_USER ?? 'U1', name: 'bench', tz: 'Europe/Paris' });
const sandbox = await startSandbox({ apiKeys: [env.BENCH_CDN_KEY ?? ''] });
const latencyMs = Number(env.BENCH_CDN_LATENCY_MS ?? 0);
if (latencyMs > 0)
  sandbox.inject({ kind: 'latency', ms: latencyMs, times: Number.POSITIVE_INFINITY });

/** Completed posts of a file in a channel: [when, channel, title, file id]. */
const posts: ServicesSummary['posts'] = [];
/** When each Web API method was called (answered, not refused with a 429). */
const callTimes = new Map<string, number[]>();
const responses = { total: 0, busy: 0 };

/** The same, per workspace: `${method} ${team}`. */
const teamCallTimes = new Map<string, number[]>();

function remember(map: Map<string, number[]>, key: string, now: number): void {
  const times = map.get(key) ?? [];
  if (times.length === 0) map.set(key, times);
  times.push(now);
}

slack.on('call', (call) => {
  const now = Date.now();
  remember(callTimes, call.method, now);
  if (call.teamId) remember(teamCallTimes, `${call.method} ${call.teamId}`, now);
  if (call.method !== 'files.completeUploadExternal' || call.response.ok !== true) return;
  const channel = String(call.args.channel_id ?? '');
  for (const entry of (call.response.files ?? []) as Array<{ id: string; title?: string }>) {
    posts.push([now, channel, entry.title ?? '', entry.id]);
    // Kept non-empty: a repeated completeUploadExternal must still find the file.
    const file = slack.files.get(entry.id);
    if (file) file.bytes = Buffer.alloc(1);
  }
});
slack.on('response', (message) => {
  if (message.via !== 'response_url') return;
  responses.total += 1;
  if (message.text?.includes('drawing a lot of charts')) responses.busy += 1;
});

/** The most calls in any 60 s, per method: in all, and in any one workspace. */
function peaksPerMinute(): ServicesSummary['methods'] {
  const result: ServicesSummary['methods'] = {};
  for (const [method, times] of callTimes) {
    result[method] = {
      calls: times.length,
      peakPerMinute: peakInWindow(times, 60_000),
      peakPerWorkspaceMinute: 0,
    };
  }
  for (const [key, times] of teamCallTimes) {
    const entry = result[key.slice(0, key.indexOf(' '))];
    if (entry)
      entry.peakPerWorkspaceMinute = Math.max(
        entry.peakPerWorkspaceMinute,
        peakInWindow(times, 60_000),
      );
  }
  return result;
}

function answer(request: ServiceRequest): ServiceReply {
  switch (request.op) {
    case 'mint':
      return {
        urls: request.channels.map((channel) => slack.mintResponseUrl(channel, request.user)),
      };
    case 'channels':
      for (const id of request.ids)
        slack.addChannel({ id, name: id.toLowerCase(), botMember: true });
      return {};
    case 'posted':
      return { posted: posts.length };
    case 'zones':
      return { zones: sandbox.state.list('active').map(({ id, name }) => ({ id, name })) };
    case 'summary':
      return {
        summary: {
          rateLimited: slack.rateLimited,
          rateLimitedBy: { ...slack.rateLimitedBy },
          methods: peaksPerMinute(),
          posts,
          responses: { ...responses },
          sandboxRequests: sandbox.requests.length,
        },
      };
  }
}

process.on('message', (request: ServiceRequest & { id: number }) => {
  process.send?.({ id: request.id, ...answer(request) });
});
process.on('disconnect', () => {
  void Promise.all([slack.close(), sandbox.close()]).then(() => process.exit(0));
});
process.send?.({
  ready: {
    apiUrl: slack.apiUrl,
    teamId: slack.teamId,
    botToken: slack.botToken,
    baseUrl: sandbox.baseUrl,
  },
});
