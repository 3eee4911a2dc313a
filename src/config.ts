// The environment contract (names fixed by DEVELOPERS.md), validated once at start-up.
// One idea, kept whole on purpose: every variable, its schema and its cross-checks in one place,
// so that one start reports every problem at once.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { checkBaseUrl } from './cdn/base-url.js';
import { checkHostname } from './cdn/hostname.js';
import { type CdnLimits, DEFAULT_CDN_LIMITS } from './cdn/limits.js';
import { defined } from './objects.js';

export type BotMode = 'socket' | 'http' | 'console';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** How long the store waits on PostgreSQL before it says storage is unavailable (see db.ts). */
export interface DatabaseLimits {
  /** Opening a connection, and waiting for a free one from the pool. */
  connectTimeoutMs: number;
  /** One statement: the client gives up (and drops the connection), the server cancels it. */
  queryTimeoutMs: number;
  /** A transaction left open without a statement is ended by the server. */
  idleInTransactionTimeoutMs: number;
  /** TCP keepalive on every connection, after this much silence. */
  keepAliveMs: number;
  /** At start, how long to keep trying to reach the database before giving up. */
  startTimeoutMs: number;
  poolSize: number;
}

export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = {
  connectTimeoutMs: 2_000,
  queryTimeoutMs: 2_000,
  idleInTransactionTimeoutMs: 10_000,
  keepAliveMs: 10_000,
  startTimeoutMs: 30_000,
  poolSize: 10,
};

export interface Config {
  mode: BotMode;
  port: number;
  nodeEnv: string;
  logLevel: string;
  slack: {
    botToken?: string;
    signingSecret?: string;
    appToken?: string;
    clientId?: string;
    clientSecret?: string;
    stateSecret?: string;
    apiUrl: string;
    /** Where Slack's response URLs are, when not where SLACK_API_URL says (a proxy for the Web API). */
    responseUrlBase?: string;
  };
  cdn: {
    /** Absent only in console mode, where the embedded sandbox supplies it. */
    baseUrl?: string;
    edgeCnameTarget?: string;
    /** Hosts a workspace's base-URL override may name without the public-address checks. */
    baseUrlAllowlist: string[];
  };
  /**
   * What one CDN operation may take: pages per listing, bytes per response, time in all
   * (CDN_MAX_PAGES, CDN_MAX_RESPONSE_BYTES, CDN_OPERATION_TIMEOUT_MS, CDN_ATTEMPT_TIMEOUT_MS). The
   * CdnTransport takes them.
   */
  cdnLimits: CdnLimits;
  /** Changing commands (purge, create, ratelimit) one user may run per minute; 0: no limit. */
  changesPerMinute: number;
  /**
   * The HTTP API: requests per token per minute (API_RATE_LIMIT_PER_MINUTE, 0: no
   * limit), how long a purge of everything waits for approval (API_APPROVAL_EXPIRY_MINUTES), URLs
   * or tags per request (API_MAX_ITEMS).
   */
  api: {
    requestsPerMinute: number;
    approvalTtlMs: number;
    maxItems: number;
    /** API requests worked on at once per process (API_MAX_IN_FLIGHT) and queued (API_MAX_QUEUED). */
    inFlight: number;
    queued: number;
    /**
     * How long a request body may take to arrive, read before the request waits for a turn: the
     * longest pause between its bytes (API_BODY_IDLE_TIMEOUT_MS) and in all (API_BODY_TIMEOUT_MS).
     */
    body: { idleMs: number; totalMs: number };
  };
  /**
   * CDN reads made for people (zone lists, charts, rate-limit state) per minute, per person
   * (CDN_READ_RATE_LIMIT) and per workspace (CDN_READ_RATE_LIMIT_WORKSPACE); 0: no bound.
   */
  cdnReadsPerMinute: { person: number; workspace: number };
  /**
   * Edge checks of purged URLs (Verify) per minute, per person (VERIFY_RATE_LIMIT) and per
   * workspace (VERIFY_RATE_LIMIT_WORKSPACE); 0: no bound.
   */
  verificationsPerMinute: { person: number; workspace: number };
  /**
   * Audit exports per hour, per person (AUDIT_EXPORT_RATE_LIMIT) and per workspace
   * (AUDIT_EXPORT_RATE_LIMIT_WORKSPACE); 0: no bound.
   */
  auditExportsPerHour: { person: number; workspace: number };
  /** The chart worker pool: threads, and charts that may wait for one (unset: from the cores). */
  charts: { threads?: number; queue?: number; nice: number };
  /** Each workspace's zone index (ZONE_INDEX_REFRESH_MS, ZONE_INDEX_CONCURRENCY). */
  zoneIndex: {
    /** Past this age an index is refreshed in the background (readers keep using it meanwhile). */
    refreshMs: number;
    /** Page requests in flight at once while an index is built. */
    concurrency: number;
  };
  jobs: {
    /** How long a job's claim lasts without a heartbeat: a crashed replica's work waits this long. */
    leaseMs: number;
    /** How long a graceful stop lets running steps finish before releasing their jobs. */
    shutdownMs: number;
    /**
     * Background work's share of the event loop (BACKGROUND_LOOP_PERCENT / 100): past it, purge
     * jobs' claims and batches, and the HTTP API's turns, wait for the loop to be less busy, so
     * that Slack's acks find it free. 1: never wait.
     */
    loopShare: number;
  };
  /**
   * How long rows are kept (JOBS_RETENTION_DAYS, AUDIT_RETENTION_DAYS): finished jobs, and audit
   * rows (0: forever). Seen-request keys go once expired, alerts that are over after 30 days.
   * A workspace the app was uninstalled from keeps its data UNINSTALLED_DATA_RETENTION_DAYS (its
   * keys go at once), then all of it is deleted.
   */
  retention: { jobsMs: number; auditMs: number; uninstalledMs: number };
  database: DatabaseConfig;
  /** PostgreSQL's timeouts, keepalive and pool (SQLite ignores them). */
  databaseLimits: DatabaseLimits;
  /** How long Slack Web API calls (and response_url posts) may take, and how often they are tried. */
  slackApi: SlackApiSettings;
  /** Newest first: the first encrypts, all decrypt. Empty when ENCRYPTION_KEYS is unset. */
  encryptionKeys: EncryptionKey[];
  /** Watched zones (WATCH_*): how often they are evaluated, and what fires an alert. */
  watch: WatchSettings;
  /**
   * GET /metrics (Prometheus): on a port of its own (METRICS_PORT), or on PORT when only a token is
   * set; with METRICS_TOKEN every scrape must carry it. Neither set: not served.
   */
  metrics: MetricsConfig;
  /** Who answers people's questions (SUPPORT_CONTACT), named on /support and /privacy. */
  supportContact?: SupportContact;
}

/** `/cdn watch`: the evaluation cadence, the alert rules' defaults, and the CDN request budget. */
export interface WatchSettings {
  intervalMs: number;
  holdIntervals: number;
  clearIntervals: number;
  minHistoryDays: number;
  minRequestsPerMinute: number;
  /** CDN requests the watches of one workspace (one API key) may make per minute. */
  cdnRequestsPerMinute: number;
}

export interface MetricsConfig {
  enabled: boolean;
  port?: number;
  token?: string;
}

export interface SlackApiSettings {
  /** One try of a call made while a user waits (a command's follow-up, views.open, respond). */
  timeoutMs: number;
  /** Every try of such a call together: past it the user is told, not kept waiting. */
  budgetMs: number;
  /** One try of a call made by background work (a job's message, a report, an approval notice). */
  backgroundTimeoutMs: number;
  /** Tries after the first for background calls; then the job fails the attempt and retries later. */
  backgroundRetries: number;
}

/** One configuration problem: a variable (or a choice between variables, named as `A or B`). */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * Configuration problems, found together and printed one line each at start-up: the first names
 * `variable`, `more` holds the others.
 */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  readonly problems: readonly ConfigProblem[];
  constructor(
    readonly variable: string,
    problem: string,
    more: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ variable, problem }, ...more];
    super(problems.map((p) => `${p.variable}: ${p.problem}`).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Collects problems, the first for each variable, so one start reports them all. */
class Problems {
  readonly #found = new Map<string, string>();
  /** Variables whose value was read from a file: their problems say which `_FILE` it came from. */
  readonly #fromFile = new Set<string>();
  /** Variables whose `_FILE` could not be used: that problem is reported, not their absence. */
  readonly #covered = new Set<string>();

  add(variable: string, problem: string): void {
    if (this.#covered.has(variable) || this.#found.has(variable)) return;
    const from = this.#fromFile.has(variable) ? ` (the value read from ${variable}_FILE)` : '';
    this.#found.set(variable, `${problem}${from}`);
  }

  /** `variable` was read from its `_FILE`. */
  readFromFile(variable: string): void {
    this.#fromFile.add(variable);
  }

  /** Whether `variable` was given by a `_FILE` that could not be used (it is meant to be set). */
  covers(variable: string): boolean {
    return this.#covered.has(variable);
  }

  /** A problem with `variable`'s `_FILE`, which stands for any problem of `variable` itself. */
  addForFile(variable: string, problem: string): void {
    this.add(`${variable}_FILE`, problem);
    this.#covered.add(variable);
  }

  /** Runs `parse`; a ConfigError it throws is kept (and `fallback` returned) instead. */
  take<T>(parse: () => T, fallback: T): T {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const { variable, problem } of error.problems) this.add(variable, problem);
      return fallback;
    }
  }

  throwIfAny(): void {
    const [first, ...more] = [...this.#found].map(([variable, problem]) => ({ variable, problem }));
    if (first) throw new ConfigError(first.variable, first.problem, more);
  }
}

const DEFAULT_DATABASE_URL = 'sqlite:./data/cdn-bot.sqlite';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** An empty value (as in a copy of .env.example) means unset, so the default applies. */
const blankIsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    schema,
  );

/** A duration in milliseconds, from `min` to 10 minutes; blank means `fallback`. */
const milliseconds = (min: number, fallback: number) =>
  blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of milliseconds' })
      .int('must be a whole number')
      .min(min, `must be at least ${min}`)
      .max(600_000, 'must be at most 600000 (10 min)')
      .default(fallback),
  );

const DAY_MS = 86_400_000;
/** The shortest watch interval in production: each interval reads every watched zone's traffic. */
const WATCH_INTERVAL_FLOOR_MS = 10_000;
/** The shortest outside production (tests of several intervals). */
const DEV_WATCH_INTERVAL_FLOOR_MS = 1_000;

/** A whole number from `min` to `max`; blank means `fallback`. */
const wholeNumber = (what: string, min: number, max: number, fallback: number) =>
  blankIsUnset(
    z.coerce
      .number({ message: `must be a number of ${what}` })
      .int('must be a whole number')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`)
      .default(fallback),
  );

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const prefixedToken = (prefix: string, what: string) =>
  optionalText.refine((value) => value === undefined || value.startsWith(prefix), {
    message: `must be ${what} starting with "${prefix}"`,
  });

const httpUrl = (what: string) =>
  optionalText.refine(
    (value) => {
      if (value === undefined) return true;
      const url = URL.parse(value);
      return url !== null && (url.protocol === 'https:' || url.protocol === 'http:');
    },
    { message: `must be an http(s) URL ${what}` },
  );

/** A way to reach whoever runs the bot: an e-mail address, or an https page. */
export interface SupportContact {
  href: string;
  label: string;
}

function supportContact(value: string): SupportContact | undefined {
  if (z.email().safeParse(value).success) return { href: `mailto:${value}`, label: value };
  const url = URL.parse(value);
  return url?.protocol === 'https:' ? { href: url.href, label: url.href } : undefined;
}

// Every field is parsed on its own so that an error names exactly one variable.
const envSchema = z.object({
  BOT_MODE: blankIsUnset(
    z
      .enum(['socket', 'http', 'console'], { message: 'must be socket, http or console' })
      .optional(),
  ),
  PORT: blankIsUnset(
    z.coerce
      .number({ message: 'must be a port number' })
      .int('must be a whole number')
      .min(0, 'must be between 0 and 65535')
      .max(65535, 'must be between 0 and 65535')
      .default(3000),
  ),
  NODE_ENV: optionalText,
  LOG_LEVEL: blankIsUnset(
    z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
  SLACK_BOT_TOKEN: prefixedToken('xoxb-', 'a bot token'),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: prefixedToken('xapp-', 'an app-level token'),
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: optionalText,
  SLACK_API_URL: httpUrl('(the Slack Web API base)'),
  SLACK_RESPONSE_URL_BASE: httpUrl("(where Slack's response URLs are)"),
  CDN_API_BASE_URL: optionalText.superRefine((value, context) => {
    const check = value === undefined ? undefined : checkBaseUrl(value);
    if (check && !check.ok) context.addIssue({ code: 'custom', message: check.reason });
  }),
  CDN_EDGE_CNAME_TARGET: optionalText.refine(
    (value) => value === undefined || checkHostname(value).ok,
    { message: 'must be a hostname, e.g. edge.cdn.example' },
  ),
  CDN_BASE_URL_ALLOWLIST: optionalText.superRefine((value, context) => {
    const bad = value === undefined ? undefined : allowlistHosts(value).find((h) => !isHost(h));
    if (bad !== undefined)
      context.addIssue({
        code: 'custom',
        message: 'must be host names or IP addresses, comma-separated',
      });
  }),
  CHANGE_RATE_LIMIT: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of changes per user per minute' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(10),
  ),
  CDN_READ_RATE_LIMIT: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of CDN reads per user per minute' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(30),
  ),
  CDN_READ_RATE_LIMIT_WORKSPACE: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of CDN reads per workspace per minute' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(120),
  ),
  VERIFY_RATE_LIMIT: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of edge checks per user per minute' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(10),
  ),
  VERIFY_RATE_LIMIT_WORKSPACE: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of edge checks per workspace per minute' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(30),
  ),
  AUDIT_EXPORT_RATE_LIMIT: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of audit exports per user per hour' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(10),
  ),
  AUDIT_EXPORT_RATE_LIMIT_WORKSPACE: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of audit exports per workspace per hour' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no limit) or more')
      .default(30),
  ),
  CHART_WORKERS: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of worker threads' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(64, 'must be at most 64')
      .optional(),
  ),
  CHART_QUEUE: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of charts' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10_000, 'must be at most 10000')
      .optional(),
  ),
  CHART_WORKER_NICE: wholeNumber('nice value', 0, 19, 10),
  CDN_MAX_PAGES: wholeNumber('pages', 1, 10_000, DEFAULT_CDN_LIMITS.maxPages),
  CDN_MAX_RESPONSE_BYTES: wholeNumber(
    'bytes',
    64 * 1024,
    1024 ** 3,
    DEFAULT_CDN_LIMITS.maxResponseBytes,
  ),
  CDN_OPERATION_TIMEOUT_MS: milliseconds(1_000, DEFAULT_CDN_LIMITS.operationTimeoutMs),
  CDN_ATTEMPT_TIMEOUT_MS: milliseconds(100, DEFAULT_CDN_LIMITS.attemptTimeoutMs),
  ZONE_INDEX_REFRESH_MS: wholeNumber('milliseconds', 10_000, 86_400_000, 300_000),
  ZONE_INDEX_CONCURRENCY: wholeNumber('requests', 1, 16, 4),
  JOB_LEASE_MS: milliseconds(1_000, 15_000),
  BACKGROUND_LOOP_PERCENT: wholeNumber('percent', 5, 100, 30),
  SHUTDOWN_TIMEOUT_MS: milliseconds(0, 20_000),
  JOBS_RETENTION_DAYS: wholeNumber('days', 1, 3_650, 7),
  API_RATE_LIMIT_PER_MINUTE: wholeNumber(
    'requests per token per minute (0: no limit)',
    0,
    100_000,
    60,
  ),
  API_APPROVAL_EXPIRY_MINUTES: wholeNumber('minutes', 1, 1_440, 30),
  API_MAX_ITEMS: wholeNumber('URLs or tags', 1, 10_000, 1_000),
  API_MAX_IN_FLIGHT: wholeNumber('requests', 1, 1_000, 8),
  API_MAX_QUEUED: wholeNumber('requests', 0, 100_000, 500),
  API_BODY_IDLE_TIMEOUT_MS: milliseconds(100, 5_000),
  API_BODY_TIMEOUT_MS: milliseconds(100, 20_000),
  AUDIT_RETENTION_DAYS: wholeNumber('days', 0, 36_500, 365),
  UNINSTALLED_DATA_RETENTION_DAYS: wholeNumber('days', 1, 3_650, 30),
  SUPPORT_CONTACT: optionalText.refine(
    (value) => value === undefined || supportContact(value) !== undefined,
    { message: 'must be an e-mail address or an https URL' },
  ),
  SLACK_TIMEOUT_MS: milliseconds(100, 3_000),
  SLACK_REQUEST_BUDGET_MS: milliseconds(100, 10_000),
  SLACK_BACKGROUND_TIMEOUT_MS: milliseconds(100, 10_000),
  SLACK_BACKGROUND_RETRIES: blankIsUnset(
    z.coerce
      .number({ message: 'must be a number of retries' })
      .int('must be a whole number')
      .min(0, 'must be between 0 and 10')
      .max(10, 'must be between 0 and 10')
      // None by default: background posts are retried by their jobs, which first ask Slack
      // whether a post already landed; a client's own retry of a post would not ask.
      .default(0),
  ),
  DATABASE_URL: optionalText,
  DATABASE_CONNECT_TIMEOUT_MS: milliseconds(100, DEFAULT_DATABASE_LIMITS.connectTimeoutMs),
  DATABASE_QUERY_TIMEOUT_MS: milliseconds(100, DEFAULT_DATABASE_LIMITS.queryTimeoutMs),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: milliseconds(
    1_000,
    DEFAULT_DATABASE_LIMITS.idleInTransactionTimeoutMs,
  ),
  DATABASE_KEEPALIVE_MS: milliseconds(1_000, DEFAULT_DATABASE_LIMITS.keepAliveMs),
  DATABASE_START_TIMEOUT_MS: milliseconds(0, DEFAULT_DATABASE_LIMITS.startTimeoutMs),
  DATABASE_POOL_SIZE: wholeNumber('connections', 1, 1_000, DEFAULT_DATABASE_LIMITS.poolSize),
  ENCRYPTION_KEYS: optionalText,
  // 10 s in production (checked in loadConfig); from 1 s elsewhere, so that tests of watches
  // across replicas see several intervals in seconds, not minutes.
  WATCH_INTERVAL_MS: wholeNumber('milliseconds', DEV_WATCH_INTERVAL_FLOOR_MS, 3_600_000, 60_000),
  WATCH_HOLD_INTERVALS: wholeNumber('intervals', 1, 60, 3),
  WATCH_CLEAR_INTERVALS: wholeNumber('intervals', 1, 60, 3),
  WATCH_MIN_HISTORY_DAYS: wholeNumber('days', 1, 7, 3),
  WATCH_MIN_REQUESTS_PER_MINUTE: wholeNumber('requests', 0, 1_000_000_000, 10),
  WATCH_CDN_REQUESTS_PER_MINUTE: wholeNumber('requests', 1, 100_000, 600),
  METRICS_PORT: blankIsUnset(
    z.coerce
      .number({ message: 'must be a port number' })
      .int('must be a whole number')
      .min(1, 'must be between 1 and 65535')
      .max(65535, 'must be between 1 and 65535')
      .optional(),
  ),
  METRICS_TOKEN: optionalText.refine(
    (value) => value === undefined || /^[\x21-\x7e]{16,512}$/.test(value),
    { message: 'must be 16 to 512 printable characters without spaces' },
  ),
});

function allowlistHosts(value: string): string[] {
  return value
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
}

/** A host name (letters, digits, dots, hyphens) or an IP address, with no scheme, port or path. */
function isHost(value: string): boolean {
  const url = URL.parse(`https://${value}/`);
  return url !== null && url.port === '' && url.hostname === value;
}

type Env = z.infer<typeof envSchema>;

/**
 * The variables that hold secrets. Each may be given instead as a file, `<NAME>_FILE=<path>`, as
 * Docker and Kubernetes mount secrets: the file's content is the value, its trailing newline
 * removed. Setting both is a problem, and so is a file that cannot be read or is empty; neither
 * ever shows the content.
 */
export const SECRET_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'DATABASE_URL',
  'ENCRYPTION_KEYS',
  'METRICS_TOKEN',
] as const;

/** `source` with each of `names` given by its `_FILE` read in; what goes wrong is in `problems`. */
function readSecretFiles(
  source: NodeJS.ProcessEnv,
  names: readonly string[],
  problems: Problems,
): NodeJS.ProcessEnv {
  const env = { ...source };
  for (const name of names) {
    const fileVariable = `${name}_FILE`;
    const path = source[fileVariable]?.trim();
    delete env[fileVariable];
    if (!path) continue;
    if (source[name]?.trim()) {
      problems.addForFile(name, `is set together with ${name}: set only one of them`);
      continue;
    }
    let content: string;
    try {
      content = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'an error';
      problems.addForFile(name, `cannot read ${path} (${code})`);
      continue;
    }
    const value = content.replace(/\r?\n$/, '');
    if (value.trim() === '') {
      problems.addForFile(name, `names an empty file (${path})`);
      continue;
    }
    env[name] = value;
    problems.readFromFile(name);
  }
  return env;
}

/** What the store alone needs (the key CLI): no Slack, no CDN, whatever the mode. */
export type StoreConfig = Pick<
  Config,
  'nodeEnv' | 'logLevel' | 'database' | 'databaseLimits' | 'encryptionKeys'
>;

export function loadStoreConfig(source: NodeJS.ProcessEnv = process.env): StoreConfig {
  const schema = envSchema.pick({
    NODE_ENV: true,
    LOG_LEVEL: true,
    DATABASE_URL: true,
    DATABASE_CONNECT_TIMEOUT_MS: true,
    DATABASE_QUERY_TIMEOUT_MS: true,
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: true,
    DATABASE_KEEPALIVE_MS: true,
    DATABASE_START_TIMEOUT_MS: true,
    DATABASE_POOL_SIZE: true,
    ENCRYPTION_KEYS: true,
  });
  const problems = new Problems();
  const env = parseEnv(
    schema,
    readSecretFiles(source, ['DATABASE_URL', 'ENCRYPTION_KEYS'], problems),
    problems,
  );
  const config = {
    nodeEnv: env.NODE_ENV ?? 'development',
    logLevel: env.LOG_LEVEL,
    database: database(env, problems),
    databaseLimits: databaseLimits(env),
    encryptionKeys: encryptionKeys(env, problems),
  };
  problems.throwIfAny();
  return config;
}

/**
 * Parses `source` with `schema`. Each variable's first problem is kept in `problems`; the others
 * are parsed without the bad ones, so checks across variables still run. Values are never
 * echoed: several of these variables are secrets.
 */
function parseEnv<T extends z.ZodType>(
  schema: T,
  source: NodeJS.ProcessEnv,
  problems: Problems,
): z.infer<T> {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const rest = { ...source };
  for (const issue of parsed.error.issues) {
    const variable = String(issue.path[0] ?? 'environment');
    problems.add(variable, issue.message);
    delete rest[variable];
  }
  return schema.parse(rest);
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const problems = new Problems();
  const env = parseEnv(envSchema, readSecretFiles(source, SECRET_VARIABLES, problems), problems);
  const mode = env.BOT_MODE ?? inferMode(env, problems);
  if (env.SLACK_REQUEST_BUDGET_MS < env.SLACK_TIMEOUT_MS) {
    problems.add(
      'SLACK_REQUEST_BUDGET_MS',
      'must be at least SLACK_TIMEOUT_MS (the budget holds every try of a call)',
    );
  }
  if (env.CDN_ATTEMPT_TIMEOUT_MS > env.CDN_OPERATION_TIMEOUT_MS) {
    problems.add(
      'CDN_ATTEMPT_TIMEOUT_MS',
      'must be at most CDN_OPERATION_TIMEOUT_MS (the operation holds every attempt)',
    );
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    problems.add('METRICS_PORT', 'must differ from PORT (unset it to serve /metrics on PORT)');
  }
  if (env.NODE_ENV === 'production' && env.WATCH_INTERVAL_MS < WATCH_INTERVAL_FLOOR_MS) {
    problems.add('WATCH_INTERVAL_MS', `must be at least ${WATCH_INTERVAL_FLOOR_MS}`);
  }
  if (env.NODE_ENV === 'production') refuseConsole(env, mode, problems);
  else if (mode === 'console') refusePartialSlack(env, problems);
  requireForMode(env, mode, problems);
  const config = {
    mode,
    port: env.PORT,
    nodeEnv: env.NODE_ENV ?? 'development',
    logLevel: env.LOG_LEVEL,
    slack: {
      ...defined('botToken', env.SLACK_BOT_TOKEN),
      ...defined('signingSecret', env.SLACK_SIGNING_SECRET),
      ...defined('appToken', env.SLACK_APP_TOKEN),
      ...defined('clientId', env.SLACK_CLIENT_ID),
      ...defined('clientSecret', env.SLACK_CLIENT_SECRET),
      ...defined('stateSecret', env.SLACK_STATE_SECRET),
      // The Web API client joins method names onto this base, so it must end with a slash.
      apiUrl: withTrailingSlash(env.SLACK_API_URL ?? 'https://slack.com/api/'),
      ...defined('responseUrlBase', env.SLACK_RESPONSE_URL_BASE),
    },
    cdn: {
      ...defined('baseUrl', env.CDN_API_BASE_URL?.replace(/\/+$/, '')),
      ...defined('edgeCnameTarget', env.CDN_EDGE_CNAME_TARGET?.toLowerCase().replace(/\.$/, '')),
      baseUrlAllowlist: env.CDN_BASE_URL_ALLOWLIST
        ? allowlistHosts(env.CDN_BASE_URL_ALLOWLIST)
        : [],
    },
    cdnLimits: {
      maxPages: env.CDN_MAX_PAGES,
      maxResponseBytes: env.CDN_MAX_RESPONSE_BYTES,
      operationTimeoutMs: env.CDN_OPERATION_TIMEOUT_MS,
      attemptTimeoutMs: env.CDN_ATTEMPT_TIMEOUT_MS,
    },
    changesPerMinute: env.CHANGE_RATE_LIMIT,
    api: {
      requestsPerMinute: env.API_RATE_LIMIT_PER_MINUTE,
      approvalTtlMs: env.API_APPROVAL_EXPIRY_MINUTES * 60_000,
      maxItems: env.API_MAX_ITEMS,
      inFlight: env.API_MAX_IN_FLIGHT,
      queued: env.API_MAX_QUEUED,
      body: { idleMs: env.API_BODY_IDLE_TIMEOUT_MS, totalMs: env.API_BODY_TIMEOUT_MS },
    },
    cdnReadsPerMinute: {
      person: env.CDN_READ_RATE_LIMIT,
      workspace: env.CDN_READ_RATE_LIMIT_WORKSPACE,
    },
    verificationsPerMinute: {
      person: env.VERIFY_RATE_LIMIT,
      workspace: env.VERIFY_RATE_LIMIT_WORKSPACE,
    },
    auditExportsPerHour: {
      person: env.AUDIT_EXPORT_RATE_LIMIT,
      workspace: env.AUDIT_EXPORT_RATE_LIMIT_WORKSPACE,
    },
    charts: {
      ...defined('threads', env.CHART_WORKERS),
      ...defined('queue', env.CHART_QUEUE),
      nice: env.CHART_WORKER_NICE,
    },
    zoneIndex: { refreshMs: env.ZONE_INDEX_REFRESH_MS, concurrency: env.ZONE_INDEX_CONCURRENCY },
    jobs: {
      leaseMs: env.JOB_LEASE_MS,
      shutdownMs: env.SHUTDOWN_TIMEOUT_MS,
      loopShare: env.BACKGROUND_LOOP_PERCENT / 100,
    },
    retention: {
      jobsMs: env.JOBS_RETENTION_DAYS * DAY_MS,
      auditMs: env.AUDIT_RETENTION_DAYS * DAY_MS,
      uninstalledMs: env.UNINSTALLED_DATA_RETENTION_DAYS * DAY_MS,
    },
    database: database(env, problems),
    databaseLimits: databaseLimits(env),
    slackApi: {
      timeoutMs: env.SLACK_TIMEOUT_MS,
      budgetMs: env.SLACK_REQUEST_BUDGET_MS,
      backgroundTimeoutMs: env.SLACK_BACKGROUND_TIMEOUT_MS,
      backgroundRetries: env.SLACK_BACKGROUND_RETRIES,
    },
    encryptionKeys: encryptionKeys(env, problems),
    watch: {
      intervalMs: env.WATCH_INTERVAL_MS,
      holdIntervals: env.WATCH_HOLD_INTERVALS,
      clearIntervals: env.WATCH_CLEAR_INTERVALS,
      minHistoryDays: env.WATCH_MIN_HISTORY_DAYS,
      minRequestsPerMinute: env.WATCH_MIN_REQUESTS_PER_MINUTE,
      cdnRequestsPerMinute: env.WATCH_CDN_REQUESTS_PER_MINUTE,
    },
    metrics: {
      enabled: env.METRICS_PORT !== undefined || env.METRICS_TOKEN !== undefined,
      ...defined('port', env.METRICS_PORT),
      ...defined('token', env.METRICS_TOKEN),
    },
    ...defined(
      'supportContact',
      env.SUPPORT_CONTACT === undefined ? undefined : supportContact(env.SUPPORT_CONTACT),
    ),
  };
  problems.throwIfAny();
  return config;
}

/** DATABASE_URL; production names its database itself (one SQLite file serves one replica). */
function database(env: Pick<Env, 'DATABASE_URL' | 'NODE_ENV'>, problems: Problems): DatabaseConfig {
  const fallback = parseDatabaseUrl(DEFAULT_DATABASE_URL);
  if (env.DATABASE_URL === undefined && env.NODE_ENV === 'production') {
    problems.add(
      'DATABASE_URL',
      'is required when NODE_ENV=production: postgres://user:password@host:5432/db, ' +
        'or sqlite:<path> for a single replica',
    );
    return fallback;
  }
  return problems.take(() => parseDatabaseUrl(env.DATABASE_URL ?? DEFAULT_DATABASE_URL), fallback);
}

/** ENCRYPTION_KEYS; production has no generated development key to fall back on. */
function encryptionKeys(
  env: Pick<Env, 'ENCRYPTION_KEYS' | 'NODE_ENV'>,
  problems: Problems,
): EncryptionKey[] {
  const value = env.ENCRYPTION_KEYS;
  if (value === undefined && env.NODE_ENV === 'production') {
    problems.add(
      'ENCRYPTION_KEYS',
      'is required when NODE_ENV=production: id:base64key of a 32-byte key, newest first ' +
        '(npm run -s keys:generate makes one)',
    );
  }
  return value === undefined ? [] : problems.take(() => parseEncryptionKeys(value), []);
}

function databaseLimits(
  env: Pick<
    Env,
    | 'DATABASE_CONNECT_TIMEOUT_MS'
    | 'DATABASE_QUERY_TIMEOUT_MS'
    | 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'
    | 'DATABASE_KEEPALIVE_MS'
    | 'DATABASE_START_TIMEOUT_MS'
    | 'DATABASE_POOL_SIZE'
  >,
): DatabaseLimits {
  return {
    connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: env.DATABASE_QUERY_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    keepAliveMs: env.DATABASE_KEEPALIVE_MS,
    startTimeoutMs: env.DATABASE_START_TIMEOUT_MS,
    poolSize: env.DATABASE_POOL_SIZE,
  };
}

/** From the credentials given (a `_FILE` that could not be read still says which mode is meant). */
function inferMode(env: Env, problems: Problems): BotMode {
  if (env.SLACK_APP_TOKEN || problems.covers('SLACK_APP_TOKEN')) return 'socket';
  if (env.SLACK_SIGNING_SECRET || problems.covers('SLACK_SIGNING_SECRET')) return 'http';
  return 'console';
}

const OAUTH_TRIO = 'SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET';

const TRANSPORT = 'SLACK_SIGNING_SECRET or SLACK_APP_TOKEN';

/** With NODE_ENV=production the bot talks to Slack: never the console, asked for or inferred. */
function refuseConsole(env: Env, mode: BotMode, problems: Problems): void {
  if (mode !== 'console') return;
  if (env.BOT_MODE === 'console') {
    problems.add('BOT_MODE', 'console is for development and is refused when NODE_ENV=production');
    return;
  }
  // Inferred: neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set.
  problems.add(
    TRANSPORT,
    `one is required when NODE_ENV=production${
      hasBotAuth(env) ? '' : `, and so is SLACK_BOT_TOKEN (or ${OAUTH_TRIO} for OAuth)`
    }; only the development console runs without them`,
  );
}

/** A bot token (or some of OAuth's variables): the bot means to talk to Slack as an app. */
function hasBotAuth(env: Env): boolean {
  return [env.SLACK_BOT_TOKEN, env.SLACK_CLIENT_ID, env.SLACK_CLIENT_SECRET].some(
    (value) => value !== undefined,
  );
}

/**
 * The console with half of Slack's credentials (a token without its signing secret or app token,
 * or the other way round) is a mistake, not a choice: it is refused rather than run silently.
 */
function refusePartialSlack(env: Env, problems: Problems): void {
  const bot = hasBotAuth(env);
  const transport = env.SLACK_SIGNING_SECRET !== undefined || env.SLACK_APP_TOKEN !== undefined;
  if (bot && !transport) {
    problems.add(
      TRANSPORT,
      'one is required with SLACK_BOT_TOKEN (the signing secret for http mode, an xapp- ' +
        'app-level token for socket mode); unset the Slack variables to run the development console',
    );
  }
  if (transport && !bot) {
    problems.add(
      'SLACK_BOT_TOKEN',
      `is required with ${TRANSPORT}: an xoxb- bot token (or ${OAUTH_TRIO} for OAuth); ` +
        'unset the Slack variables to run the development console',
    );
  }
}

function requireForMode(env: Env, mode: BotMode, problems: Problems): void {
  if (mode === 'console') return;
  if (mode === 'socket' && !env.SLACK_APP_TOKEN) {
    problems.add('SLACK_APP_TOKEN', 'is required in socket mode (an xapp- app-level token)');
  }
  if (mode === 'http' && !env.SLACK_SIGNING_SECRET) {
    problems.add(
      'SLACK_SIGNING_SECRET',
      "is required in http mode (the app's signing secret, from its Basic Information page)",
    );
  }
  const oauth = [
    ['SLACK_CLIENT_ID', env.SLACK_CLIENT_ID],
    ['SLACK_CLIENT_SECRET', env.SLACK_CLIENT_SECRET],
    ['SLACK_STATE_SECRET', env.SLACK_STATE_SECRET],
  ] as const;
  const oauthSet = oauth.filter(([, value]) => value !== undefined);
  if (oauthSet.length > 0) {
    for (const [variable, value] of oauth) {
      if (value === undefined) {
        problems.add(variable, 'is required with the other SLACK_CLIENT_* OAuth variables');
      }
    }
  } else if (!env.SLACK_BOT_TOKEN) {
    problems.add('SLACK_BOT_TOKEN', `is required: an xoxb- bot token (or ${OAUTH_TRIO} for OAuth)`);
  }
  if (!env.CDN_API_BASE_URL) {
    problems.add(
      'CDN_API_BASE_URL',
      `is required in ${mode} mode: the CDN API base, e.g. https://api.cdn.example/v1`,
    );
  }
  if (!env.CDN_EDGE_CNAME_TARGET) {
    problems.add(
      'CDN_EDGE_CNAME_TARGET',
      `is required in ${mode} mode: a hostname, e.g. edge.cdn.example`,
    );
  }
}

export function parseDatabaseUrl(value: string): DatabaseConfig {
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path');
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(value) && URL.canParse(value)) {
    return { kind: 'postgres', url: value };
  }
  throw new ConfigError('DATABASE_URL', 'must be sqlite:<path> or postgres://user@host:port/db');
}

const KEY_ID = /^[A-Za-z0-9_.-]{1,32}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseEncryptionKeys(value: string): EncryptionKey[] {
  const keys: EncryptionKey[] = [];
  for (const [index, entry] of value.split(',').entries()) {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator).trim();
    const encoded = entry.slice(separator + 1).trim();
    const where = `entry ${index + 1}`;
    if (separator < 0 || !KEY_ID.test(id)) {
      throw new ConfigError(
        'ENCRYPTION_KEYS',
        `${where} must be id:base64key with an id of letters, digits, . _ or -`,
      );
    }
    const key = Buffer.from(encoded, 'base64');
    if (!BASE64.test(encoded) || key.length !== 32) {
      throw new ConfigError('ENCRYPTION_KEYS', `key "${id}" must be 32 bytes encoded as base64`);
    }
    if (keys.some((existing) => existing.id === id)) {
      throw new ConfigError('ENCRYPTION_KEYS', `key id "${id}" appears twice`);
    }
    keys.push({ id, key });
  }
  return keys;
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
