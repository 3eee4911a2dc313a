// The environment contract: defaults, modes (never the console in production), and one-line errors.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadStoreConfig, SECRET_VARIABLES } from '../src/config.js';
import { generateKey } from '../src/store/crypto.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const HTTP = {
  SLACK_SIGNING_SECRET: 'signing-secret-value',
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  CDN_API_BASE_URL: 'https://api.cdn.example/v1',
  CDN_EDGE_CNAME_TARGET: 'edge.cdn.example',
};
/** What production needs beyond Slack and the CDN: a database named explicitly, and keys. */
const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://bot@db:5432/cdn',
  ENCRYPTION_KEYS: `k1:${KEY}`,
};

function problem(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('starts the console with no Slack credentials, with documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      mode: 'console',
      port: 3000,
      logLevel: 'info',
      slack: { apiUrl: 'https://slack.com/api/' },
      database: { kind: 'sqlite', path: './data/cdn-bot.sqlite' },
      encryptionKeys: [],
      changesPerMinute: 10,
      verificationsPerMinute: { person: 10, workspace: 30 },
      auditExportsPerHour: { person: 10, workspace: 30 },
    });
    expect(config.cdn).toEqual({ baseUrlAllowlist: [] });
  });

  it('infers socket mode from an app token and http mode from a signing secret', () => {
    expect(loadConfig({ ...HTTP, SLACK_APP_TOKEN: 'xapp-1-x' }).mode).toBe('socket');
    expect(loadConfig(HTTP).mode).toBe('http');
    expect(loadConfig({ ...HTTP, BOT_MODE: 'console' }).mode).toBe('console');
  });

  it('starts the console without credentials outside production only', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).mode).toBe('console');
    expect(loadConfig({ NODE_ENV: 'test', BOT_MODE: 'console' }).mode).toBe('console');
    const production = { ...HTTP, ...PRODUCTION };
    expect(loadConfig(production).mode).toBe('http');
    expect(loadConfig({ ...production, SLACK_APP_TOKEN: 'xapp-1-x' }).mode).toBe('socket');
  });

  it('names every missing Slack variable when NODE_ENV=production has none', () => {
    const error = problem(PRODUCTION);
    expect(error.variable).toBe('SLACK_SIGNING_SECRET or SLACK_APP_TOKEN');
    expect(error.message).toBe(
      'SLACK_SIGNING_SECRET or SLACK_APP_TOKEN: one is required when NODE_ENV=production, and so ' +
        'is SLACK_BOT_TOKEN (or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for ' +
        'OAuth); only the development console runs without them',
    );
    // With a bot token (or OAuth) set, only the mode's variable is missing.
    for (const token of [
      { SLACK_BOT_TOKEN: 'xoxb-1-2-abc' },
      { SLACK_CLIENT_ID: '1.2', SLACK_CLIENT_SECRET: 's', SLACK_STATE_SECRET: 't' },
    ]) {
      const partial = problem({ ...PRODUCTION, ...token });
      expect(partial.variable).toBe('SLACK_SIGNING_SECRET or SLACK_APP_TOKEN');
      expect(partial.message).not.toContain('SLACK_BOT_TOKEN');
    }
  });

  it('refuses BOT_MODE=console when NODE_ENV=production, even with credentials', () => {
    for (const env of [{}, HTTP]) {
      const error = problem({ ...env, ...PRODUCTION, BOT_MODE: 'console' });
      expect(error.message).toBe(
        'BOT_MODE: console is for development and is refused when NODE_ENV=production',
      );
    }
  });

  it('reads .env.example, copied as is, as the console with every default', () => {
    const env = parseEnv(readFileSync('.env.example', 'utf8'));
    // Empty values (BOT_MODE=, SLACK_BOT_TOKEN=, …) mean unset, as the comments say.
    expect(env.BOT_MODE).toBe('');
    expect(loadConfig(env)).toMatchObject({
      mode: 'console',
      port: 3000,
      logLevel: 'info',
      changesPerMinute: 10,
      database: { kind: 'sqlite', path: './data/cdn-bot.sqlite' },
      encryptionKeys: [],
    });
  });

  it('reads the HTTP API settings, with their defaults, and refuses values out of range', () => {
    expect(loadConfig({}).api).toEqual({
      requestsPerMinute: 60,
      approvalTtlMs: 30 * 60_000,
      maxItems: 1_000,
      inFlight: 8,
      queued: 500,
      body: { idleMs: 5_000, totalMs: 20_000 },
    });
    expect(
      loadConfig({
        API_RATE_LIMIT_PER_MINUTE: '0',
        API_APPROVAL_EXPIRY_MINUTES: '90',
        API_MAX_ITEMS: '200',
        API_MAX_IN_FLIGHT: '2',
        API_MAX_QUEUED: '0',
        API_BODY_IDLE_TIMEOUT_MS: '1000',
        API_BODY_TIMEOUT_MS: '3000',
      }).api,
    ).toEqual({
      requestsPerMinute: 0,
      approvalTtlMs: 90 * 60_000,
      maxItems: 200,
      inFlight: 2,
      queued: 0,
      body: { idleMs: 1_000, totalMs: 3_000 },
    });
    const error = problem({
      API_RATE_LIMIT_PER_MINUTE: '-1',
      API_APPROVAL_EXPIRY_MINUTES: '0',
      API_MAX_ITEMS: '20000',
      API_MAX_IN_FLIGHT: '0',
      API_MAX_QUEUED: '-1',
      API_BODY_IDLE_TIMEOUT_MS: '50',
      API_BODY_TIMEOUT_MS: '700000',
    });
    expect(error.problems.map((p) => p.variable).sort()).toEqual([
      'API_APPROVAL_EXPIRY_MINUTES',
      'API_BODY_IDLE_TIMEOUT_MS',
      'API_BODY_TIMEOUT_MS',
      'API_MAX_IN_FLIGHT',
      'API_MAX_ITEMS',
      'API_MAX_QUEUED',
      'API_RATE_LIMIT_PER_MINUTE',
    ]);
  });

  it('reads background work’s share of the event loop, 30% by default, 5 to 100', () => {
    expect(loadConfig({}).jobs.loopShare).toBe(0.3);
    expect(loadConfig({ BACKGROUND_LOOP_PERCENT: '100' }).jobs.loopShare).toBe(1);
    expect(loadConfig({ BACKGROUND_LOOP_PERCENT: '45' }).jobs.loopShare).toBe(0.45);
    for (const value of ['0', '4', '101', '50.5', 'half'])
      expect(problem({ BACKGROUND_LOOP_PERCENT: value }).problems.map((p) => p.variable)).toEqual([
        'BACKGROUND_LOOP_PERCENT',
      ]);
  });

  it('takes empty numbers and choices as unset, not as 0 or a bad value', () => {
    const config = loadConfig({ BOT_MODE: ' ', PORT: '', LOG_LEVEL: '', CHANGE_RATE_LIMIT: '' });
    expect(config).toMatchObject({
      mode: 'console',
      port: 3000,
      logLevel: 'info',
      changesPerMinute: 10,
    });
  });

  it('normalizes URLs and the CNAME target', () => {
    const config = loadConfig({
      ...HTTP,
      CDN_API_BASE_URL: 'https://api.cdn.example/v1/',
      CDN_EDGE_CNAME_TARGET: 'Edge.CDN.example.',
      SLACK_API_URL: 'http://127.0.0.1:9999/api',
      PORT: '8080',
      CDN_BASE_URL_ALLOWLIST: ' CDN.Internal.example , 10.0.0.7,[::1]',
      CHANGE_RATE_LIMIT: '0',
    });
    expect(config.cdn).toEqual({
      baseUrl: 'https://api.cdn.example/v1',
      edgeCnameTarget: 'edge.cdn.example',
      baseUrlAllowlist: ['cdn.internal.example', '10.0.0.7', '[::1]'],
    });
    expect(config.changesPerMinute).toBe(0);
    expect(config.slack.apiUrl).toBe('http://127.0.0.1:9999/api/');
    expect(config.port).toBe(8080);
  });

  it('reads several encryption keys, newest first', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    const { encryptionKeys } = loadConfig({ ENCRYPTION_KEYS: `k2:${other}, k1:${KEY}` });
    expect(encryptionKeys.map((k) => [k.id, k.key.length])).toEqual([
      ['k2', 32],
      ['k1', 32],
    ]);
  });

  it('reads both database forms', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h:5432/db',
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database).toEqual({
      kind: 'sqlite',
      path: ':memory:',
    });
  });

  it('reads the database limits, with defaults', () => {
    expect(loadConfig({}).databaseLimits).toEqual({
      connectTimeoutMs: 2_000,
      queryTimeoutMs: 2_000,
      idleInTransactionTimeoutMs: 10_000,
      keepAliveMs: 10_000,
      startTimeoutMs: 30_000,
      poolSize: 10,
    });
    expect(
      loadConfig({ DATABASE_QUERY_TIMEOUT_MS: '5000', DATABASE_POOL_SIZE: '4' }).databaseLimits,
    ).toMatchObject({ queryTimeoutMs: 5_000, poolSize: 4 });
  });

  it.each([
    [{ DATABASE_QUERY_TIMEOUT_MS: '50' }, 'DATABASE_QUERY_TIMEOUT_MS', 'at least 100'],
    [{ DATABASE_CONNECT_TIMEOUT_MS: 'soon' }, 'DATABASE_CONNECT_TIMEOUT_MS', 'milliseconds'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE', 'at least 1'],
    [{ CHART_WORKERS: '0' }, 'CHART_WORKERS', 'at least 1'],
    [{ CHART_QUEUE: 'many' }, 'CHART_QUEUE', 'number of charts'],
    [{ BOT_MODE: 'lambda' }, 'BOT_MODE', 'must be socket, http or console'],
    [{ PORT: 'eighty' }, 'PORT', 'must be a port number'],
    [{ PORT: '70000' }, 'PORT', 'between 0 and 65535'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', 'must be one of'],
    [{ SLACK_BOT_TOKEN: 'xoxp-user' }, 'SLACK_BOT_TOKEN', 'starting with "xoxb-"'],
    [{ SLACK_APP_TOKEN: 'xoxb-1' }, 'SLACK_APP_TOKEN', 'starting with "xapp-"'],
    [{ SLACK_API_URL: 'slack' }, 'SLACK_API_URL', 'http(s) URL'],
    [{ CDN_API_BASE_URL: 'https://api.cdn.example' }, 'CDN_API_BASE_URL', '/v1'],
    [{ CDN_API_BASE_URL: 'ftp://api.cdn.example/v1' }, 'CDN_API_BASE_URL', 'http(s) URL'],
    [{ CDN_EDGE_CNAME_TARGET: 'https://edge' }, 'CDN_EDGE_CNAME_TARGET', 'hostname'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', 'sqlite:<path> or postgres://'],
    [{ CDN_BASE_URL_ALLOWLIST: 'https://cdn.example/v1' }, 'CDN_BASE_URL_ALLOWLIST', 'host names'],
    [{ CDN_BASE_URL_ALLOWLIST: 'cdn.example:8443' }, 'CDN_BASE_URL_ALLOWLIST', 'host names'],
    [{ CHANGE_RATE_LIMIT: '-1' }, 'CHANGE_RATE_LIMIT', '0 (no limit)'],
    [{ CHANGE_RATE_LIMIT: 'lots' }, 'CHANGE_RATE_LIMIT', 'per user per minute'],
    [{ VERIFY_RATE_LIMIT: '-1' }, 'VERIFY_RATE_LIMIT', '0 (no limit)'],
    [{ VERIFY_RATE_LIMIT_WORKSPACE: '2.5' }, 'VERIFY_RATE_LIMIT_WORKSPACE', 'whole number'],
    [{ AUDIT_EXPORT_RATE_LIMIT: 'many' }, 'AUDIT_EXPORT_RATE_LIMIT', 'per user per hour'],
    [{ AUDIT_EXPORT_RATE_LIMIT_WORKSPACE: '-3' }, 'AUDIT_EXPORT_RATE_LIMIT_WORKSPACE', '0 (no'],
    [{ ENCRYPTION_KEYS: 'nocolon' }, 'ENCRYPTION_KEYS', 'id:base64key'],
    [
      { ENCRYPTION_KEYS: `k1:${Buffer.alloc(16).toString('base64')}` },
      'ENCRYPTION_KEYS',
      '32 bytes',
    ],
    [{ ENCRYPTION_KEYS: `k1:${KEY},k1:${KEY}` }, 'ENCRYPTION_KEYS', 'appears twice'],
    [
      { BOT_MODE: 'http', ...HTTP, SLACK_SIGNING_SECRET: '' },
      'SLACK_SIGNING_SECRET',
      'required in http',
    ],
    [{ BOT_MODE: 'socket', ...HTTP }, 'SLACK_APP_TOKEN', 'required in socket'],
    [{ ...HTTP, SLACK_BOT_TOKEN: undefined }, 'SLACK_BOT_TOKEN', 'OAuth'],
    [{ ...HTTP, SLACK_CLIENT_ID: '1.2' }, 'SLACK_CLIENT_SECRET', 'OAuth'],
    [{ ...HTTP, CDN_API_BASE_URL: undefined }, 'CDN_API_BASE_URL', 'required in http'],
    [{ ...HTTP, CDN_EDGE_CNAME_TARGET: undefined }, 'CDN_EDGE_CNAME_TARGET', 'required in http'],
    [
      { NODE_ENV: 'production' },
      'SLACK_SIGNING_SECRET or SLACK_APP_TOKEN',
      'required when NODE_ENV=production',
    ],
    [{ NODE_ENV: 'production', BOT_MODE: 'console' }, 'BOT_MODE', 'refused'],
    [{ ...HTTP, NODE_ENV: 'production', SLACK_BOT_TOKEN: undefined }, 'SLACK_BOT_TOKEN', 'OAuth'],
  ])('%j → one line naming %s', (env, variable, text) => {
    const error = problem(env as NodeJS.ProcessEnv);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.problems[0]?.problem).toContain(text);
    expect(error.message.split('\n')).toHaveLength(error.problems.length);
  });

  it('never echoes a secret value in its message', () => {
    const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0';
    const error = problem({ ENCRYPTION_KEYS: `k1:${secret}` });
    expect(error.message).not.toContain(secret);
    expect(problem({ SLACK_BOT_TOKEN: 'xoxp-leaked-token' }).message).not.toContain('leaked');
  });
});

describe('the retention settings', () => {
  it('keep finished jobs 7 days and audit rows 365 by default; AUDIT_RETENTION_DAYS=0 keeps them forever', () => {
    const DAY = 86_400_000;
    expect(loadConfig({}).retention).toEqual({
      jobsMs: 7 * DAY,
      auditMs: 365 * DAY,
      uninstalledMs: 30 * DAY,
    });
    expect(loadConfig({ JOBS_RETENTION_DAYS: '30', AUDIT_RETENTION_DAYS: '0' }).retention).toEqual({
      jobsMs: 30 * DAY,
      auditMs: 0,
      uninstalledMs: 30 * DAY,
    });
    expect(loadConfig({ JOBS_RETENTION_DAYS: '' }).retention.jobsMs).toBe(7 * DAY);
    expect(problem({ JOBS_RETENTION_DAYS: '0' }).message).toBe(
      'JOBS_RETENTION_DAYS: must be at least 1',
    );
    expect(problem({ AUDIT_RETENTION_DAYS: '-1' }).message).toBe(
      'AUDIT_RETENTION_DAYS: must be at least 0',
    );
    expect(problem({ AUDIT_RETENTION_DAYS: '1.5' }).message).toBe(
      'AUDIT_RETENTION_DAYS: must be a whole number',
    );
  });

  it("keep an uninstalled workspace's data 30 days by default, at least 1 (UNINSTALLED_DATA_RETENTION_DAYS)", () => {
    const DAY = 86_400_000;
    expect(loadConfig({ UNINSTALLED_DATA_RETENTION_DAYS: '7' }).retention.uninstalledMs).toBe(
      7 * DAY,
    );
    expect(problem({ UNINSTALLED_DATA_RETENTION_DAYS: '0' }).message).toBe(
      'UNINSTALLED_DATA_RETENTION_DAYS: must be at least 1',
    );
    expect(problem({ UNINSTALLED_DATA_RETENTION_DAYS: 'soon' }).message).toBe(
      'UNINSTALLED_DATA_RETENTION_DAYS: must be a number of days',
    );
  });

  it('names every invalid variable at once, a line each', () => {
    const error = problem({ JOBS_RETENTION_DAYS: '0', AUDIT_RETENTION_DAYS: 'never' });
    expect(error.variable).toBe('JOBS_RETENTION_DAYS');
    expect(error.message).toBe(
      'JOBS_RETENTION_DAYS: must be at least 1\nAUDIT_RETENTION_DAYS: must be a number of days',
    );
  });
});

describe('loadStoreConfig (the key CLI)', () => {
  it('reads only what the store needs, so production key rotation needs no Slack variables', () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'postgres://bot@db:5432/cdn' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(loadStoreConfig({ ...env, ENCRYPTION_KEYS: generateKey('k1') })).toMatchObject({
      nodeEnv: 'production',
      database: { kind: 'postgres', url: 'postgres://bot@db:5432/cdn' },
      encryptionKeys: [{ id: 'k1' }],
    });
    expect(() => loadStoreConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/^DATABASE_URL:/);
  });
});

describe('the zone index settings', () => {
  it('default to a 5-minute refresh and 4 pages at a time, and take whole values in range', () => {
    expect(loadConfig({}).zoneIndex).toEqual({ refreshMs: 300_000, concurrency: 4 });
    expect(
      loadConfig({ ZONE_INDEX_REFRESH_MS: '60000', ZONE_INDEX_CONCURRENCY: '8' }).zoneIndex,
    ).toEqual({ refreshMs: 60_000, concurrency: 8 });
    expect(problem({ ZONE_INDEX_REFRESH_MS: '500' }).message).toBe(
      'ZONE_INDEX_REFRESH_MS: must be at least 10000',
    );
    expect(problem({ ZONE_INDEX_CONCURRENCY: '0' }).variable).toBe('ZONE_INDEX_CONCURRENCY');
    expect(problem({ ZONE_INDEX_CONCURRENCY: '17' }).message).toContain('at most 16');
  });
  it('reads METRICS_PORT and METRICS_TOKEN, and serves no metrics without either', () => {
    expect(loadConfig(HTTP).metrics).toEqual({ enabled: false });
    expect(loadConfig({ ...HTTP, METRICS_PORT: '9464' }).metrics).toEqual({
      enabled: true,
      port: 9464,
    });
    expect(loadConfig({ ...HTTP, METRICS_TOKEN: 'a-long-enough-token' }).metrics).toEqual({
      enabled: true,
      token: 'a-long-enough-token',
    });
    expect(loadConfig({ ...HTTP, METRICS_PORT: '', METRICS_TOKEN: '' }).metrics.enabled).toBe(
      false,
    );
    expect(problem({ ...HTTP, METRICS_PORT: 'x' }).message).toBe(
      'METRICS_PORT: must be a port number',
    );
    expect(problem({ ...HTTP, METRICS_PORT: '70000' }).variable).toBe('METRICS_PORT');
    expect(problem({ ...HTTP, PORT: '3000', METRICS_PORT: '3000' }).message).toContain(
      'must differ from PORT',
    );
    const short = problem({ ...HTTP, METRICS_TOKEN: 'short' });
    expect(short.message).toBe(
      'METRICS_TOKEN: must be 16 to 512 printable characters without spaces',
    );
    expect(short.message).not.toContain('short"');
    expect(problem({ ...HTTP, METRICS_TOKEN: 'has a space in it, long' }).variable).toBe(
      'METRICS_TOKEN',
    );
  });
});

describe('the watch interval', () => {
  it('is at least 10 s in production, as before, and from 1 s outside it (for tests)', () => {
    const production = { ...HTTP, ...PRODUCTION };
    expect(loadConfig(production).watch.intervalMs).toBe(60_000);
    expect(loadConfig({ ...production, WATCH_INTERVAL_MS: '10000' }).watch.intervalMs).toBe(10_000);
    expect(problem({ ...production, WATCH_INTERVAL_MS: '9999' }).message).toBe(
      'WATCH_INTERVAL_MS: must be at least 10000',
    );
    expect(problem({ ...production, WATCH_INTERVAL_MS: '1000' }).message).toBe(
      'WATCH_INTERVAL_MS: must be at least 10000',
    );
    expect(loadConfig({ ...HTTP, WATCH_INTERVAL_MS: '1000' }).watch.intervalMs).toBe(1_000);
    expect(problem({ ...HTTP, WATCH_INTERVAL_MS: '999' }).message).toBe(
      'WATCH_INTERVAL_MS: must be at least 1000',
    );
    expect(problem({ ...HTTP, WATCH_INTERVAL_MS: '3600001' }).message).toBe(
      'WATCH_INTERVAL_MS: must be at most 3600000',
    );
  });
});

describe('secrets read from files (<NAME>_FILE)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cdn-chatops-secrets-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  /** A secret file as a container platform mounts it: the value and a newline. */
  const file = (name: string, content: string) => {
    const path = join(folder, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };
  const SECRETS = {
    SLACK_BOT_TOKEN: 'xoxb-from-a-file',
    SLACK_SIGNING_SECRET: 'signing-secret-from-a-file',
    SLACK_APP_TOKEN: 'xapp-from-a-file',
    SLACK_CLIENT_SECRET: 'client-secret-from-a-file',
    SLACK_STATE_SECRET: 'state-secret-from-a-file',
    DATABASE_URL: 'postgres://bot:pw-from-a-file@db:5432/cdn',
    ENCRYPTION_KEYS: `k9:${KEY}`,
    METRICS_TOKEN: 'metrics-token-from-a-file',
  };

  it('reads every secret variable from the file its _FILE names, without the trailing newline', () => {
    expect([...SECRET_VARIABLES].sort()).toEqual(Object.keys(SECRETS).sort());
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'production',
      SLACK_CLIENT_ID: '1.2',
      CDN_API_BASE_URL: 'https://api.cdn.example/v1',
      CDN_EDGE_CNAME_TARGET: 'edge.cdn.example',
    };
    for (const [name, value] of Object.entries(SECRETS)) {
      env[`${name}_FILE`] = file(name, `${value}\n`);
    }
    const config = loadConfig(env);
    expect(config.slack).toMatchObject({
      botToken: SECRETS.SLACK_BOT_TOKEN,
      signingSecret: SECRETS.SLACK_SIGNING_SECRET,
      appToken: SECRETS.SLACK_APP_TOKEN,
      clientSecret: SECRETS.SLACK_CLIENT_SECRET,
      stateSecret: SECRETS.SLACK_STATE_SECRET,
    });
    expect(config.database).toEqual({ kind: 'postgres', url: SECRETS.DATABASE_URL });
    expect(config.encryptionKeys.map((k) => k.id)).toEqual(['k9']);
    expect(config.metrics.token).toBe(SECRETS.METRICS_TOKEN);
    // The key CLI reads its two secrets the same way.
    expect(loadStoreConfig(env)).toMatchObject({
      database: { url: SECRETS.DATABASE_URL },
      encryptionKeys: [{ id: 'k9' }],
    });
  });

  it('keeps a value without a newline as it is, and takes an empty _FILE as unset', () => {
    const path = file('bot-token-no-newline', 'xoxb-no-newline');
    expect(
      loadConfig({ ...HTTP, SLACK_BOT_TOKEN: '', SLACK_BOT_TOKEN_FILE: path }).slack.botToken,
    ).toBe('xoxb-no-newline');
    expect(loadConfig({ ...HTTP, SLACK_BOT_TOKEN_FILE: '' }).slack.botToken).toBe(
      HTTP.SLACK_BOT_TOKEN,
    );
  });

  it('reports both set, an unreadable or empty file, and a bad value, with the other problems, never the content', () => {
    const token = file('bot-token', 'xoxb-set-twice\n');
    const badKeys = file('keys', 'k1:not-a-key-c2VjcmV0\n');
    const empty = file('empty', '\n');
    const error = problem({
      ...HTTP,
      ...PRODUCTION,
      SLACK_BOT_TOKEN_FILE: token,
      SLACK_SIGNING_SECRET: '',
      SLACK_SIGNING_SECRET_FILE: join(folder, 'missing'),
      DATABASE_URL: '',
      DATABASE_URL_FILE: empty,
      ENCRYPTION_KEYS: '',
      ENCRYPTION_KEYS_FILE: badKeys,
      METRICS_TOKEN_FILE: folder,
      PORT: 'x',
    });
    expect(Object.fromEntries(error.problems.map((p) => [p.variable, p.problem]))).toEqual({
      SLACK_BOT_TOKEN_FILE: 'is set together with SLACK_BOT_TOKEN: set only one of them',
      SLACK_SIGNING_SECRET_FILE: `cannot read ${join(folder, 'missing')} (ENOENT)`,
      DATABASE_URL_FILE: `names an empty file (${empty})`,
      METRICS_TOKEN_FILE: `cannot read ${folder} (EISDIR)`,
      ENCRYPTION_KEYS:
        'key "k1" must be 32 bytes encoded as base64 (the value read from ENCRYPTION_KEYS_FILE)',
      PORT: 'must be a port number',
    });
    // A file that cannot be used is its own problem: not also "SLACK_SIGNING_SECRET is required".
    expect(error.message.split('\n')).toHaveLength(6);
    for (const secret of ['xoxb-set-twice', 'not-a-key', 'c2VjcmV0']) {
      expect(error.message).not.toContain(secret);
    }
  });
});
