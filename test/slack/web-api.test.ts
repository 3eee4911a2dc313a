// The Web API client as the bot builds it (webApiOptions, SlackRateLimits) against a fake Slack
// that hangs, fails or rate-limits: each call gives up within its bound, and a 429 holds back only
// its own method and channel.
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type SlackApiSettings } from '../../src/config.js';
import { type FakeSlack, startFakeSlack } from '../../src/dev/fake-slack/server.js';
import { boltLogger } from '../../src/slack/bolt-logger.js';
import { SlackRateLimits } from '../../src/slack/rate-limits.js';
import { asSlackProblem, isTransientSlackError } from '../../src/slack/web-api-errors.js';
import { webApiOptions } from '../../src/slack/web-api-options.js';
import { InstantClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

/** Small bounds, so a test takes a second: one try 300 ms, 1 s in all; background 200 ms × 2. */
const SETTINGS: SlackApiSettings = {
  timeoutMs: 300,
  budgetMs: 1_000,
  backgroundTimeoutMs: 200,
  backgroundRetries: 1,
};
/** What a busy 2-core machine may add to a bound. */
const MARGIN_MS = 1_500;

async function world(settings = SETTINGS) {
  const clock = new InstantClock();
  const fake = await startFakeSlack({ clock });
  slack = fake;
  fake.addChannel({ id: 'C1', name: 'ops', botMember: true });
  fake.addChannel({ id: 'C2', name: 'other', botMember: true });
  const logs = captureLogs('debug');
  const limits = new SlackRateLimits({ apiUrl: fake.apiUrl, clock, logger: logs.logger });
  const options = webApiOptions(settings, limits);
  const client = (which: WebClientOptions) =>
    new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      logger: boltLogger(logs.logger, 'web-api'),
      ...which,
    });
  return {
    fake,
    clock,
    logs,
    limits,
    interactive: client(options.interactive),
    background: client(options.background),
  };
}

/** How long `call` took to settle, and what it threw. */
async function timed(call: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { ms: performance.now() - started, error };
}

const post = (client: WebClient, channel = 'C1') =>
  client.chat.postMessage({ channel, text: 'hi' });

describe('the settings', () => {
  it('default to 3 s a try, 10 s in all; background 10 s a try, retried by its job only', () => {
    expect(loadConfig({}).slackApi).toEqual({
      timeoutMs: 3_000,
      budgetMs: 10_000,
      backgroundTimeoutMs: 10_000,
      backgroundRetries: 0,
    });
  });

  it('are read from the environment, and checked', () => {
    expect(
      loadConfig({
        SLACK_TIMEOUT_MS: '2000',
        SLACK_REQUEST_BUDGET_MS: '8000',
        SLACK_BACKGROUND_TIMEOUT_MS: '15000',
        SLACK_BACKGROUND_RETRIES: '0',
      }).slackApi,
    ).toEqual({
      timeoutMs: 2_000,
      budgetMs: 8_000,
      backgroundTimeoutMs: 15_000,
      backgroundRetries: 0,
    });
    expect(() => loadConfig({ SLACK_TIMEOUT_MS: 'soon' })).toThrow(
      'SLACK_TIMEOUT_MS: must be a number of milliseconds',
    );
    expect(() => loadConfig({ SLACK_BACKGROUND_RETRIES: '11' })).toThrow(
      'SLACK_BACKGROUND_RETRIES: must be between 0 and 10',
    );
    expect(() => loadConfig({ SLACK_TIMEOUT_MS: '5000', SLACK_REQUEST_BUDGET_MS: '4000' })).toThrow(
      'SLACK_REQUEST_BUDGET_MS: must be at least SLACK_TIMEOUT_MS',
    );
  });

  it('are explicit Web API client options: a timeout, bounded retries, 429s not waited on by the client', () => {
    const limits = new SlackRateLimits({
      apiUrl: 'https://slack.test/api/',
      clock: new InstantClock(),
      logger: captureLogs().logger,
    });
    const { interactive, background } = webApiOptions(loadConfig({}).slackApi, limits);
    expect(interactive).toMatchObject({
      timeout: 3_000,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 2, maxTimeout: 1_000, maxRetryTime: 6_000 },
    });
    expect(background).toMatchObject({
      timeout: 10_000,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0, maxTimeout: 5_000 },
    });
    expect(interactive.fetch).toBeTypeOf('function');
  });
});

describe('a call made while a user waits', () => {
  it('gives up on a Slack that never answers within the budget, as "Slack did not answer"', async () => {
    const { fake, interactive } = await world();
    fake.inject({ method: 'chat.postMessage', kind: 'hang', times: 10 });
    const { ms, error } = await timed(post(interactive));
    expect(ms).toBeGreaterThanOrEqual(SETTINGS.timeoutMs - 50);
    expect(ms).toBeLessThan(SETTINGS.budgetMs + MARGIN_MS);
    expect(isTransientSlackError(error)).toBe(true);
    expect(asSlackProblem(error)).toMatchObject({ code: 'slack_unavailable' });
    const tries = fake.faultHits.length;
    expect(tries).toBeGreaterThanOrEqual(1);
    expect(tries).toBeLessThanOrEqual(3);
    // Every try was abandoned by the client: nothing is left hanging.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!fake.faultHits.every((hit) => hit.abandonedAt !== undefined)) return;
        fake.off('abandoned', check);
        resolve();
      };
      fake.on('abandoned', check);
      check();
    });
  });

  it('tries a 5xx again within the budget, and succeeds when Slack recovers', async () => {
    const { fake, interactive } = await world();
    fake.inject({ method: 'chat.postMessage', kind: 'status', status: 503, times: 2 });
    expect(await post(interactive)).toMatchObject({ ok: true });
    expect(fake.faultHits.map((hit) => hit.kind)).toEqual(['status', 'status']);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('does not retry a refusal (a platform error)', async () => {
    const { fake, interactive } = await world();
    const { error } = await timed(post(interactive, 'CNOPE'));
    expect((error as { data?: { error?: string } }).data?.error).toBe('channel_not_found');
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });
});

describe('a call made by background work', () => {
  it('gives up after its tries, so the job can record it and retry later', async () => {
    const { fake, background } = await world();
    fake.inject({ method: 'chat.postMessage', kind: 'hang', times: 10 });
    const { ms, error } = await timed(post(background));
    const tries = SETTINGS.backgroundRetries + 1;
    expect(fake.faultHits).toHaveLength(tries);
    expect(ms).toBeGreaterThanOrEqual(tries * SETTINGS.backgroundTimeoutMs - 50);
    // Tries, plus at most the longest pause between them (500 ms, randomized up to twice that).
    expect(ms).toBeLessThan(tries * SETTINGS.backgroundTimeoutMs + 1_000 + MARGIN_MS);
    expect(isTransientSlackError(error)).toBe(true);
  });
});

describe('a 429', () => {
  const RATE_LIMITED = {
    kind: 'status' as const,
    status: 429,
    headers: { 'retry-after': '30' },
    body: '{"ok":false,"error":"ratelimited"}',
  };

  it('holds back that method and channel, and only those, until Retry-After has passed', async () => {
    const { fake, clock, interactive, limits, logs } = await world();
    fake.inject({ method: 'chat.postMessage', ...RATE_LIMITED });
    const first = await timed(post(interactive));
    expect(first.error).toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 30 });
    expect(asSlackProblem(first.error)).toMatchObject({
      problem: { code: 'slack_unavailable', retryInSeconds: 30 },
    });
    expect(
      limits.closedUntil({ token: fake.botToken, method: 'chat.postMessage', channel: 'C1' }),
    ).toBe(clock.now() + 30_000);

    // The same method and channel: refused here, without asking Slack again.
    const again = await timed(post(interactive));
    expect(again.error).toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect(fake.faultHits).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);

    // Another channel, and another method in the same channel, are not held back.
    expect(await post(interactive, 'C2')).toMatchObject({ ok: true });
    const posted = fake.callsTo('chat.postMessage')[0]?.response.ts as string;
    expect(
      await interactive.chat.update({ channel: 'C2', ts: posted, text: 'edited' }),
    ).toMatchObject({
      ok: true,
    });

    clock.advance(30_000);
    expect(await post(interactive)).toMatchObject({ ok: true });
    expect(logs.lines.join('\n')).not.toContain(fake.botToken);
  });

  it('is waited out when Retry-After fits in the try, then sent again', async () => {
    const { fake, clock, background } = await world({ ...SETTINGS, backgroundTimeoutMs: 4_000 });
    fake.inject({ method: 'chat.postMessage', ...RATE_LIMITED, headers: { 'retry-after': '1' } });
    expect(await post(background)).toMatchObject({ ok: true });
    expect(clock.sleeps).toEqual([1_000]);
    expect(fake.faultHits).toHaveLength(1);
  });

  it('is per workspace: another token’s calls go on', async () => {
    const clock = new InstantClock();
    const fake = await startFakeSlack({
      clock,
      tokens: { 'xoxb-other-team': { teamId: 'T0OTHER', botUserId: 'UB2' } },
    });
    slack = fake;
    fake.addChannel({ id: 'C1', name: 'ops', botMember: true });
    const limits = new SlackRateLimits({
      apiUrl: fake.apiUrl,
      clock,
      logger: captureLogs().logger,
    });
    const { interactive } = webApiOptions(SETTINGS, limits);
    const client = new WebClient(undefined, {
      slackApiUrl: fake.apiUrl,
      logger: boltLogger(captureLogs().logger),
      ...interactive,
    });
    fake.inject({ method: 'chat.postMessage', ...RATE_LIMITED });
    const limited = await timed(
      client.chat.postMessage({ token: fake.botToken, channel: 'C1', text: 'a' }),
    );
    expect(limited.error).toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect(
      await client.chat.postMessage({ token: 'xoxb-other-team', channel: 'C1', text: 'b' }),
    ).toMatchObject({ ok: true });
  });
});

describe('a response_url post through the client’s fetch (Bolt’s respond)', () => {
  it('is bounded too', async () => {
    const { fake, limits } = await world();
    fake.inject({ method: 'response_url', kind: 'hang' });
    const fetch = limits.fetchFor({ maxWaitMs: 0, otherTimeoutMs: 300 });
    const url = fake.mintResponseUrl('C1', 'U1');
    const { ms, error } = await timed(
      fetch(url, {
        method: 'POST',
        body: '{"text":"hi"}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect((error as Error).name).toBe('TimeoutError');
    expect(ms).toBeLessThan(300 + MARGIN_MS);
  });
});
