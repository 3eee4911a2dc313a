// Purge-everything against real crashes: the bot runs as a child process, is killed (SIGKILL)
// at a chosen moment of an approved purge, or the CDN never answers, and a new process takes over
// on the same database. What must hold whatever the moment: the CDN gets at most one
// purge_everything per approval, the request message ends in a final state that tells the truth,
// and the audit log has exactly one purge.everything entry.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { BACKENDS } from '../helpers/store.js';
import { POSTGRES, SQLITE } from './backends.js';
import { ADMIN, type Backend, OTHER, startWorld, type World } from './bot-process.js';
import {
  approvedThen,
  CDN_TIMEOUT_MS,
  everythingCalls,
  HANG_AFTER_PURGE,
  isEverything,
  jobsOf,
  openApprove,
  outcome,
  purgedSaid,
  purgeEntries,
  requestEverything,
  resumed,
  shared,
  TEST_TIMEOUT_MS,
  textOf,
  theApproval,
  updated,
  updatesOf,
  within,
  ZONE,
} from './flows.js';

/**
 * The CDN does the purge and never answers; the first bot is killed (-9) while it waits, and a
 * second takes the job over once the lease has run out. Resolves once the second has finished
 * the job (its update of the message) and stopped.
 */
async function killedInTheCall(backend: Backend) {
  const world = await startWorld({ backend });
  world.sandbox.inject(HANG_AFTER_PURGE);
  const { first, message } = await approvedThen(world, () => world.sandbox.waitFor(isEverything));
  expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  const jobsAtCrash = await jobsOf(world);
  const before = updatesOf(world, message).length;
  const second = await world.spawnBot();
  await resumed(second);
  await updated(world, message, before + 1);
  expect(await second.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  return { message, jobsAtCrash, ...(await outcome(world)) };
}

/**
 * The request is approved and the first bot is killed (-9) while `held` (a Slack call the job
 * makes) is held; the call is then let go. Resolves with the request message.
 */
async function killedWhileHeld(
  world: World,
  held: ReturnType<World['holdSlack']>,
): Promise<Message> {
  const { first, message } = await approvedThen(world, () => held.reached);
  expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  held.release();
  return message;
}

/** A second bot takes the job over and finishes it (the message says purged), then stops. */
async function secondFinishes(world: World, message: Message) {
  const second = await world.spawnBot();
  await resumed(second);
  await purgedSaid(world, message);
  expect(await second.kill('SIGTERM')).toEqual({ code: 0, signal: null });
}

/** What the request message must say once the CDN did not confirm a purge-everything. */
function expectUnknownOutcomeShown(message: Message) {
  const text = textOf(message.blocks);
  expect(text).not.toContain('Purging everything…');
  expect(text).toMatch(/did not confirm/i);
  expect(text).toMatch(/may (already )?have purged/i);
  expect(JSON.stringify(message.blocks)).not.toContain(APPROVAL_IDS.approve);
}

describe.each(BACKENDS)(
  'purge everything, killed and restarted ($backend)',
  ({ backend, skip }) => {
    const midCall = shared(() => killedInTheCall(backend));

    it.skipIf(skip)(
      'kill -9 before the CDN call: the next process purges, once',
      async () => {
        const world = await startWorld({ backend });
        // The job marks the message "Purging everything…" just before it records the attempt and
        // calls the CDN: held there, the process dies with the call neither made nor recorded.
        const purging = world.holdSlack(
          (call) =>
            call.method === 'chat.update' &&
            String(call.args.text).startsWith('Purging everything'),
        );
        const message = await killedWhileHeld(world, purging);
        expect(everythingCalls(world)).toEqual([]);
        // Claimed, the attempt not recorded yet.
        const [job] = await jobsOf(world);
        expect(job).toMatchObject({ state: 'running', attempts: 1, checkpoint: null });

        await secondFinishes(world, message);

        expect(everythingCalls(world)).toHaveLength(1);
        expect(world.sandbox.state.purges).toHaveLength(1);
        const purgeId = world.sandbox.state.purges[0]?.id;
        expect(textOf(message.blocks)).toContain(
          `Approved by <@${ADMIN}>; everything on *${ZONE}* was purged (purge id \`${purgeId}\`)`,
        );
        expect(JSON.stringify(message.blocks)).not.toContain(APPROVAL_IDS.approve);
        expect(await purgeEntries(world)).toEqual([
          expect.objectContaining({ actorId: ADMIN, outcome: 'ok' }),
        ]);
      },
      TEST_TIMEOUT_MS,
    );

    it.skipIf(skip)(
      'kill -9 in the CDN call: the next process calls no more and records the outcome as unknown',
      async () => {
        const { message, jobsAtCrash, calls, purges, approval, entries } = await midCall();
        // The attempt was recorded before the call the process died in.
        expect(jobsAtCrash).toEqual([expect.objectContaining({ state: 'running', attempts: 1 })]);
        expect(JSON.parse(jobsAtCrash[0]?.checkpoint ?? '{}')).toEqual({ calling: true });
        // The CDN did the work once; the answer never came, and nobody asked again.
        expect(calls).toHaveLength(1);
        expect(purges).toHaveLength(1);
        expect(approval).toMatchObject({ status: 'approved', outcome: 'unknown', purgeId: null });
        expect(entries).toEqual([expect.objectContaining({ actorId: ADMIN, outcome: 'unknown' })]);
        expect(JSON.stringify(message.blocks)).not.toContain(APPROVAL_IDS.approve);
      },
      TEST_TIMEOUT_MS,
    );

    it.skipIf(skip)(
      'kill -9 after the CDN answered, before the message said so: one call, one audit entry',
      async () => {
        const world = await startWorld({ backend });
        // The job records the outcome, audits it, then updates the message: held there.
        const final = world.holdSlack(
          (call) => call.method === 'chat.update' && String(call.args.text).includes('was purged'),
        );
        const message = await killedWhileHeld(world, final);
        expect(message.text).toContain('Purging everything');
        expect(await purgeEntries(world)).toHaveLength(1);

        await secondFinishes(world, message);
        expect(everythingCalls(world)).toHaveLength(1);
        expect(await theApproval(world)).toMatchObject({ outcome: 'succeeded' });
        expect(await jobsOf(world)).toEqual([
          expect.objectContaining({ state: 'succeeded', attempts: 2 }),
        ]);
        // The second process audits again under the same key: still one entry.
        expect(await purgeEntries(world)).toEqual([
          expect.objectContaining({ actorId: ADMIN, outcome: 'ok' }),
        ]);
      },
      TEST_TIMEOUT_MS,
    );

    // BUG (src/blocks/approval.ts, approvalMessage): an approved request whose outcome is
    // 'unknown' falls through to the "approved, not finished" branch, so the message keeps saying
    // "Approved by …. Purging everything…" for ever: the channel is never told the CDN did not
    // confirm and may already have purged. The store and the audit log have it right.
    it.skipIf(skip)(
      'kill -9 in the CDN call: the message says the CDN did not confirm',
      async () => {
        const { message } = await midCall();
        expectUnknownOutcomeShown(message);
      },
      TEST_TIMEOUT_MS,
    );
  },
);

// The CDN not answering, with no crash: what is proven is the client's deadline and what the
// message says; the unknown outcome is the same store writes as the second process's above, on
// both databases. One scenario on each (backends.ts).
describe('purge everything, the CDN does not confirm', () => {
  it(
    'CDN past its deadline: one call, outcome unknown, and the request cannot be approved again (sqlite)',
    async () => {
      const world = await startWorld({
        backend: SQLITE.backend,
        env: { CDN_ATTEMPT_TIMEOUT_MS: String(CDN_TIMEOUT_MS) },
      });
      world.sandbox.inject(HANG_AFTER_PURGE);
      const {
        first: bot,
        message,
        viewId,
      } = await approvedThen(world, () => world.sandbox.waitFor(isEverything));
      const shownPending = message.history[0]?.blocks;
      // "Purging everything…", then the outcome once the client gives up on the call.
      const [, last] = await within(
        CDN_TIMEOUT_MS + 40_000,
        'the job gave up on the call',
        updated(world, message, 2),
      );
      expect(String(last?.args.text)).not.toContain('was purged');
      expect(await theApproval(world)).toMatchObject({ status: 'approved', outcome: 'unknown' });

      // Approve… on the message as it was first shown (a stale client), by someone else.
      await bot.click(message, APPROVAL_IDS.approve, OTHER, { blocks: shownPending ?? [] });
      const [refusal] = await world.slack.waitForMessages(
        (m) => m.text?.includes('This request was already approved.') ?? false,
      );
      expect(refusal).toMatchObject({ via: 'response_url', ephemeralTo: OTHER });
      // The approve modal, still open, submitted a second time (a new press, so a new
      // delivery): it is told the request was already approved, and runs nothing.
      const again = await bot.submit(viewId, {}, ADMIN);
      expect(again.status).toBe(200);
      expect(JSON.parse(again.body)).toMatchObject({ response_action: 'update' });
      expect(again.body).toContain('This request was already approved.');

      expect(await bot.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(everythingCalls(world)).toHaveLength(1);
      expect(world.sandbox.state.purges).toHaveLength(1);
      expect(await purgeEntries(world)).toEqual([
        expect.objectContaining({
          actorId: ADMIN,
          outcome: 'unknown',
          detail: expect.objectContaining({ error: expect.stringContaining('did not answer') }),
        }),
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  // BUG (src/blocks/approval.ts), as above: after a timeout the message still says "Purging
  // everything…". A 504 after the CDN did the work (no client deadline to wait for) is the same
  // unknown outcome.
  it.skipIf(POSTGRES.skip)(
    'CDN answer lost (504 after the work): the message says the CDN did not confirm (postgres)',
    async () => {
      const world = await startWorld({ backend: POSTGRES.backend });
      world.sandbox.inject({ kind: 'status', status: 504, after: true, path: /\/purge$/ });
      const { first: bot, message } = await approvedThen(world, () =>
        world.sandbox.waitFor(isEverything),
      );
      await updated(world, message, 2);
      expect(await bot.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(everythingCalls(world)).toHaveLength(1);
      expect(await purgeEntries(world)).toEqual([expect.objectContaining({ outcome: 'unknown' })]);
      expectUnknownOutcomeShown(message);
    },
    TEST_TIMEOUT_MS,
  );
});

/**
 * How soon a bot that is up purges an approval whose job a crash never stored: its approval
 * sweeper runs at start (then only every 30 s), and its runner claims the job it stores at once.
 */
const AFTER_RESTART_MS = 6_000;

// Needs a moment between the approval's acknowledgement and the storing of its job that a test
// can hold the bot in: PostgreSQL's table lock gives it; SQLite has no way to hold one table.
describe.each(BACKENDS.filter((b) => b.backend === 'postgres'))(
  'purge everything, killed between the approval and its job ($backend)',
  ({ backend, skip }) => {
    // The approval is committed, then its job stored (then the submission acknowledged). A process
    // that dies between the two leaves an approved request with no job: the approval sweeper of
    // the next process (it runs at start, then every 30 s) stores the job, keyed by the approval.
    it.skipIf(skip)(
      'kill -9 between the approval and its job: the next process still purges, once',
      async () => {
        const world = await startWorld({ backend });
        const first = await world.spawnBot();
        const message = await requestEverything(world, first);
        const viewId = await openApprove(world, first, message);
        // Holds every write to the jobs table: storing the approved purge's job waits here.
        const locker = new pg.Client({ connectionString: world.databaseUrl });
        await locker.connect();
        try {
          await locker.query('begin');
          await locker.query('lock table jobs in access exclusive mode');
          // Not acknowledged while its job cannot be stored: the answer is not awaited.
          void first.submit(viewId, {}, ADMIN).catch(() => undefined);
          await within(
            10_000,
            'the approval committed',
            (async () => {
              // The decision is a row in the database: read until it is there.
              while ((await theApproval(world))?.status !== 'approved')
                await new Promise((resolve) => setTimeout(resolve, 50));
            })(),
          );
          expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
        } finally {
          await locker.query('rollback');
          await locker.end();
        }
        expect(await theApproval(world)).toMatchObject({ status: 'approved', outcome: null });

        const second = await world.spawnBot();
        // A stored job would be claimed at start (queued) or at the next poll (its lease ran out
        // while the bot restarted).
        await within(AFTER_RESTART_MS, 'the purge after a restart', purgedSaid(world, message));
        expect(await second.kill('SIGTERM')).toEqual({ code: 0, signal: null });
        expect(everythingCalls(world)).toHaveLength(1);
        expect(await purgeEntries(world)).toEqual([expect.objectContaining({ outcome: 'ok' })]);
      },
      TEST_TIMEOUT_MS,
    );
  },
);
