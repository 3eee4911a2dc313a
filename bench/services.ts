// The benchmarks' handle on bench/ack-services.ts: the fake Slack and the sandbox, in a process.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

// Served from the measuring process, the bots' Web API calls and response_url posts would slow the
// very event loop that times their acks.

export type ServiceRequest =
  /** A response_url per channel listed (a slash command's, by `user`). */
  | { op: 'mint'; channels: string[]; user: string }
  /** Channels the bot is a member of (it may post there). */
  | { op: 'channels'; ids: string[] }
  | { op: 'summary' }
  /** How many files have been shared so far. */
  | { op: 'posted' }
  /** The sandbox's active zones. */
  | { op: 'zones' };

export interface ServicesSummary {
  /** Web API calls answered 429 so far. */
  rateLimited: number;
  /** 429s by Web API method. */
  rateLimitedBy: Record<string, number>;
  /** Per Web API method: calls answered (not 429), and the most in any 60 s. */
  methods: Record<string, { calls: number; peakPerMinute: number; peakPerWorkspaceMinute: number }>;
  /** Every file shared by files.completeUploadExternal: [when (epoch ms), channel, title, file]. */
  posts: Array<[number, string, string, string]>;
  /** Posts to response_urls, and how many said the charts were busy. */
  responses: { total: number; busy: number };
  sandboxRequests: number;
}

export type ServiceReply = {
  urls?: string[];
  posted?: number;
  summary?: ServicesSummary;
  zones?: Array<{ id: string; name: string }>;
};

export interface Services {
  readonly apiUrl: string;
  readonly teamId: string;
  readonly botToken: string;
  /** CDN_API_BASE_URL */
  readonly baseUrl: string;
  readonly cdnKey: string;
  readonly user: string;
  readonly pid: number;
  mint(channels: string[]): Promise<string[]>;
  addChannels(ids: string[]): Promise<void>;
  summary(): Promise<ServicesSummary>;
  posted(): Promise<number>;
  zones(): Promise<Array<{ id: string; name: string }>>;
  close(): Promise<void>;
}

export interface ServicesOptions {
  /** The fake Slack refuses a second post in a channel within a second (429, Retry-After: 1). */
  channelRateLimit?: boolean;
  /** Every sandbox request is answered this much later (a CDN API across a network). */
  cdnLatencyMs?: number;
  cdnKey?: string;
  user?: string;
  /** The fake Slack holds the file methods to Tier 4 (100 a minute per workspace). */
  tier4?: boolean;
  /** Workspaces installed by OAuth, each with a token of its own (see benchToken). */
  teams?: string[];
}

/** The bot token of a bench workspace installed by OAuth. */
export const benchToken = (teamId: string) => `xoxb-bench-${teamId}`;

export async function startServices(options: ServicesOptions = {}): Promise<Services> {
  const cdnKey = options.cdnKey ?? 'bench-cdn-key';
  const user = options.user ?? 'U1';
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./ack-services.ts', import.meta.url)),
    [],
    {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        BENCH_CDN_KEY: cdnKey,
        BENCH_USER: user,
        BENCH_SLACK_RATE_LIMIT: options.channelRateLimit ? '1' : '0',
        BENCH_CDN_LATENCY_MS: String(options.cdnLatencyMs ?? 0),
        BENCH_SLACK_TIER4: options.tier4 ? '1' : '0',
        BENCH_SLACK_TEAMS: (options.teams ?? []).join(','),
      },
    },
  );
  const exited = once(child, 'exit');
  const died = exited.then(() => {
    throw new Error('bench services exited before they were ready');
  });
  died.catch(() => undefined);
  const [message] = (await Promise.race([once(child, 'message'), died])) as [
    { ready: { apiUrl: string; teamId: string; botToken: string; baseUrl: string } },
  ];
  const { ready } = message;
  let next = 0;
  const waiting = new Map<number, (reply: ServiceReply) => void>();
  child.on('message', (reply: ServiceReply & { id?: number }) => {
    if (reply.id === undefined) return;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const call = (request: ServiceRequest) =>
    new Promise<ServiceReply>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      child.send({ id, ...request });
    });
  let closed: Promise<void> | undefined;
  return {
    ...ready,
    cdnKey,
    user,
    pid: child.pid ?? -1,
    async mint(channels) {
      return (await call({ op: 'mint', channels, user })).urls ?? [];
    },
    async addChannels(ids) {
      await call({ op: 'channels', ids });
    },
    async summary() {
      const { summary } = await call({ op: 'summary' });
      if (!summary) throw new Error('bench services gave no summary');
      return summary;
    },
    async posted() {
      return (await call({ op: 'posted' })).posted ?? 0;
    },
    async zones() {
      return (await call({ op: 'zones' })).zones ?? [];
    },
    close() {
      closed ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.disconnect();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return closed;
    },
  };
}

/**
 * Reports posted twice or more: a report is its channel and its title (zone and day), and each must
 * be shared exactly once. Returns how many occurrences were posted, and the extra files shared.
 */
export function postedOccurrences(posts: ServicesSummary['posts']): {
  occurrences: number;
  duplicates: number;
} {
  const files = new Map<string, Set<string>>();
  for (const [, channel, title, file] of posts) {
    const key = `${channel} ${title}`;
    const set = files.get(key) ?? new Set<string>();
    set.add(file);
    files.set(key, set);
  }
  let duplicates = 0;
  for (const set of files.values()) duplicates += set.size - 1;
  return { occurrences: files.size, duplicates };
}
