// Purge-everything flows and checks the fault tests share: a request, an approval, the moment
// a purge reaches, and what the world saw of it (Slack, the CDN's request log, the store).

import { expect } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS } from '../../src/blocks/ids.js';
import type { ApiCall, Message } from '../../src/dev/fake-slack/server.js';
import type { Fault, RecordedRequest } from '../../src/dev/sandbox/server.js';
import { RECURRING_JOB } from '../../src/jobs/background.js';
import { ZONE_INDEX_JOB } from '../../src/services/zones/zone-index-builder.js';
import { decodeEntities } from '../../src/text.js';
import { ADMIN, type Bot, CHANNEL, MEMBER, type SignedResult, type World } from './bot-process.js';

/** Generous: two process starts, a lease to run out, on a busy machine. */
export const TEST_TIMEOUT_MS = 90_000;
export const ZONE = 'example.com';
/**
 * The CDN client's per-attempt deadline (CDN_ATTEMPT_TIMEOUT_MS) for a test that waits for it to
 * pass: shorter than the 10 s default, long enough for the sandbox's other answers on a busy machine.
 */
export const CDN_TIMEOUT_MS = 2_000;
/** What lifecycle.ts gives a graceful stop beyond SHUTDOWN_TIMEOUT_MS before exiting anyway. */
export const STOP_MARGIN_MS = 5_000;

export const isEverything = (request: RecordedRequest) =>
  request.method === 'POST' &&
  request.path.endsWith('/purge') &&
  (request.body as { purge_everything?: boolean } | undefined)?.purge_everything === true;

export const everythingCalls = (world: World) => world.sandbox.requests.filter(isEverything);

/** The CDN takes the purge (does the work) and never answers. */
export const HANG_AFTER_PURGE: Fault = {
  kind: 'hang',
  after: true,
  method: 'POST',
  path: /\/purge$/,
};

/** Every text a message shows, flattened and unescaped as Slack renders it. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return decodeEntities(value);
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(textOf).join('\n');
  return '';
}

export function viewIdOf(call: ApiCall | undefined): string {
  const view = call?.response.view as { id?: string } | undefined;
  if (!view?.id) throw new Error(`no view was opened: ${JSON.stringify(call?.response)}`);
  return view.id;
}

/** Rejects once `ms` have passed: for a bug's test, where what should happen never does. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The id of the view the next views.open (after those made so far) opened. */
export async function nextView(world: World, act: () => Promise<SignedResult>): Promise<string> {
  const before = world.slack.callsTo('views.open').length;
  const answer = await act();
  expect(answer.status).toBe(200);
  const calls = await world.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  return viewIdOf(calls[before]);
}

/** MEMBER asks to purge everything on example.com; resolves with the request message. */
export async function requestEverything(world: World, bot: Bot): Promise<Message> {
  const viewId = await nextView(world, () => bot.command(`purge ${ZONE} everything`, MEMBER));
  const submitted = await bot.submit(
    viewId,
    {
      [PURGE_IDS.confirmBlock]: {
        [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: ZONE },
      },
      [PURGE_IDS.reasonBlock]: {
        [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'Bad deploy cached' },
      },
    },
    MEMBER,
  );
  expect(submitted).toEqual({ status: 200, body: '' });
  const [message] = await world.slack.waitForMessages(
    (m) =>
      m.via === 'api' && m.channel === CHANNEL && (m.text?.includes('Approval needed') ?? false),
  );
  if (!message) throw new Error('no request message');
  return message;
}

/** Opens the approve modal as `user` (Approve… on the message). */
export const openApprove = (world: World, bot: Bot, message: Message, user = ADMIN) =>
  nextView(world, () => bot.click(message, APPROVAL_IDS.approve, user));

/** Successful chat.update calls on `message` so far. */
export const updatesOf = (world: World, message: Message) =>
  world.slack.calls.filter(
    (c) => c.method === 'chat.update' && c.args.ts === message.ts && c.response.ok === true,
  );

/** Resolves once `message` says its purge was done (it was edited into the result). */
export const purgedSaid = (world: World, message: Message) =>
  world.slack.waitForMessages((m) => m === message && (m.text?.includes('was purged') ?? false));

/** Resolves once `message` has been updated `count` times in all. */
export const updated = (world: World, message: Message, count: number) =>
  world.slack.waitForCalls(
    (c) => c.method === 'chat.update' && c.args.ts === message.ts && c.response.ok === true,
    count,
  );

export const auditOf = (world: World) =>
  world.inspect((store) => store.audit.recent(world.workspaceId, { limit: 50 }));

export const purgeEntries = async (world: World) =>
  (await auditOf(world)).filter((entry) => entry.action === 'purge.everything');

/** The world's one approval request, as stored. */
export const theApproval = (world: World) =>
  world.inspect(async (store) => {
    const rows = await store.db.selectFrom('approvals').select('id').execute();
    expect(rows).toHaveLength(1);
    return store.approvals.get(rows[0]?.id ?? '');
  });

/**
 * A bot takes MEMBER's request and ADMIN's approval; resolves once `moment` (of the approved
 * purge) has come, with the approve modal (still open in Slack) and the message.
 */
export async function approvedThen(
  world: World,
  moment: () => Promise<unknown>,
  env: Record<string, string> = {},
) {
  const first = await world.spawnBot(env);
  const message = await requestEverything(world, first);
  const viewId = await openApprove(world, first, message);
  expect(await first.submit(viewId, {}, ADMIN)).toEqual({ status: 200, body: '' });
  await moment();
  return { first, message, viewId };
}

/** A job taken over from a dead process is claimed again once its lease has run out. */
export const resumed = (bot: Bot) => bot.waitForLog('job resumed');

/**
 * The stored jobs of the work (there is one per approval): not the rows the recurring entries and
 * the zone indexes are held with.
 */
export const jobsOf = (world: World) =>
  world.inspect((store) =>
    store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', 'not in', [RECURRING_JOB, ZONE_INDEX_JOB])
      .execute(),
  );

/**
 * What the world saw of the purge, read once every bot has stopped (the world is gone once the
 * test that ran the scenario ends).
 */
export async function outcome(world: World) {
  return {
    calls: everythingCalls(world),
    purges: [...world.sandbox.state.purges],
    approval: await theApproval(world),
    entries: await purgeEntries(world),
  };
}

/**
 * Runs a scenario once for the tests that check different things of it (one of them a bug's
 * `it.fails`, which must not hide the others' checks); whichever runs first runs it. A scenario
 * returns what its tests check, not the world (cleaned up after the test that ran it).
 */
export function shared<T>(scenario: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= scenario();
    return result;
  };
}
