// Slack misbehaving under a real bot process: a Web API method that never answers, or answers 500.
// A call made while the user waits gives up within SLACK_REQUEST_BUDGET_MS and the user is told; a
// background post gives up within its tries, its job records the failed attempt and is retried by
// the runner, and the purge's message still reaches its final state. Bounds are measured from the
// moment the fake Slack took the call it never answers (its fault hit), never by sleeping.
//
// Each scenario runs on one database (backends.ts): what it proves is the Slack client's bounds
// and retries; the job's failed attempt and its retry are the runner's release and claim, run on
// both databases by test/jobs/runner.test.ts. The two retried posts are one on each.
import { describe, expect, it } from 'vitest';
import { POSTGRES, SQLITE } from './backends.js';
import { CHANNEL, MEMBER, startWorld, type World } from './bot-process.js';
import { jobsOf, TEST_TIMEOUT_MS, textOf, ZONE } from './flows.js';

/** Small bounds, so a scenario takes seconds: a try 1 s, 3 s in all; background 1 s × 2 tries. */
const BOUNDS = {
  SLACK_TIMEOUT_MS: '1000',
  SLACK_REQUEST_BUDGET_MS: '3000',
  SLACK_BACKGROUND_TIMEOUT_MS: '1000',
  SLACK_BACKGROUND_RETRIES: '1',
};
/** What a busy 2-core machine (and a child process logging) may add to a bound. */
const MARGIN_MS = 3_000;
const SLACK_SLOW = 'Slack did not answer in time, so I stopped waiting. Try again in a minute.';

/** Resolves with the wall time `predicate` first held for a message. */
async function seenAt(world: World, predicate: MessagePredicate) {
  const [message] = await world.slack.waitForMessages(predicate);
  return { message, at: Date.now() };
}

type MessagePredicate = Parameters<World['slack']['waitForMessages']>[0];

/** The purge's final message, posted by the bot in the channel. */
const purgedInChannel: MessagePredicate = (m) =>
  m.via === 'api' && m.channel === CHANNEL && (m.text?.startsWith('Purged') ?? false);

/** A bot on `backend` whose commands' response_url is spent: a purge's message has to be a bot message. */
async function spentResponseUrl(backend: typeof SQLITE.backend) {
  const world = await startWorld({ backend });
  const bot = await world.spawnBot(BOUNDS);
  world.slack.inject({
    method: 'response_url',
    kind: 'status',
    status: 404,
    body: 'expired_url',
    times: 1_000,
  });
  return { world, bot };
}

/** The one job, a purge, succeeded at its second attempt. */
async function expectSucceededOnRetry(world: World) {
  expect(await jobsOf(world)).toEqual([
    expect.objectContaining({ kind: 'purge', state: 'succeeded', attempts: 2 }),
  ]);
}

describe('Slack misbehaves', () => {
  it(
    'views.open never answers: the user is told within the budget, and the bot serves the next command (sqlite)',
    async () => {
      const world = await startWorld({ backend: SQLITE.backend });
      const bot = await world.spawnBot(BOUNDS);
      world.slack.inject({ method: 'views.open', kind: 'hang', times: 10 });

      expect((await bot.command(`purge ${ZONE}`, MEMBER)).status).toBe(200);
      const [hang] = await world.slack.waitForFaults((hit) => hit.method === 'views.open');
      const told = await seenAt(
        world,
        (m) => m.ephemeralTo === MEMBER && (m.text?.includes(SLACK_SLOW) ?? false),
      );
      const waited = told.at - (hang?.at ?? 0);
      // At least one whole try (it did wait for Slack), at most the budget.
      expect(waited).toBeGreaterThanOrEqual(Number(BOUNDS.SLACK_TIMEOUT_MS) - 100);
      expect(waited).toBeLessThan(Number(BOUNDS.SLACK_REQUEST_BUDGET_MS) + MARGIN_MS);
      expect(told.message?.via).toBe('response_url');
      await bot.waitForLog('Slack did not answer in time; the user is told');

      // Nothing is stuck: the next command is served, and the form opens once Slack answers.
      world.slack.clearFaults();
      await bot.command(`purge ${ZONE}`, MEMBER);
      const [opened] = await world.slack.waitForCalls(
        (c) => c.method === 'views.open' && c.response.ok === true,
      );
      expect(opened?.args.view).toMatchObject({ callback_id: 'purge_form' });
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(POSTGRES.skip)(
    'chat.postMessage hangs during a purge: the job gives its try up within the bound, is retried, and its message lands (postgres)',
    async () => {
      const { world, bot } = await spentResponseUrl(POSTGRES.backend);
      // Both tries of the first attempt's post hang.
      world.slack.inject({ method: 'chat.postMessage', kind: 'hang', times: 2 });

      const url = `https://${ZONE}/slack-was-down.css`;
      await bot.command(`purge ${ZONE} ${url}`, MEMBER);
      const [hang] = await world.slack.waitForFaults((hit) => hit.method === 'chat.postMessage');
      await bot.waitForLog('job attempt failed');
      const gaveUp = Date.now() - (hang?.at ?? 0);
      const tries = Number(BOUNDS.SLACK_BACKGROUND_RETRIES) + 1;
      const tryMs = Number(BOUNDS.SLACK_BACKGROUND_TIMEOUT_MS);
      expect(world.slack.faultHits.filter((hit) => hit.method === 'chat.postMessage')).toHaveLength(
        tries,
      );
      expect(gaveUp).toBeGreaterThanOrEqual(tries * tryMs - 100);
      // The tries, the pause between them (500 ms, randomized up to twice that), the margin.
      expect(gaveUp).toBeLessThan(tries * tryMs + 1_000 + MARGIN_MS);

      // The runner took the job again (after its backoff) and finished it: one message, final.
      const final = await seenAt(world, purgedInChannel);
      expect(textOf(final.message?.blocks)).toContain(`<@${MEMBER}> purged 1 URL on *${ZONE}*`);
      await bot.waitForLog('job finished');
      const posted = world.slack.messages.filter((m) => m.via === 'api' && m.channel === CHANNEL);
      expect(posted.map((m) => m.text)).toEqual([final.message?.text]);
      await expectSucceededOnRetry(world);
      // The batch was recorded in the first attempt: the CDN got it once.
      const purges = world.sandbox.requests.filter((r) => r.path.endsWith('/purge'));
      expect(purges.map((r) => r.body)).toEqual([{ files: [url] }]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'chat.postMessage answers 500: retried within the try budget, then by the job, and the message lands (sqlite)',
    async () => {
      const { world, bot } = await spentResponseUrl(SQLITE.backend);
      world.slack.inject({ method: 'chat.postMessage', kind: 'status', status: 500, times: 2 });
      await bot.command(`purge ${ZONE} https://${ZONE}/a.css`, MEMBER);
      await bot.waitForLog('job attempt failed');
      await world.slack.waitForMessages(purgedInChannel);
      await bot.waitForLog('job finished');
      await expectSucceededOnRetry(world);
    },
    TEST_TIMEOUT_MS,
  );
});
