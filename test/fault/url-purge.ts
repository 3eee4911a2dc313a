// A purge of 3,000 URLs for the fault tests (purge.fault.test.ts): sent through the purge form,
// interrupted at a moment chosen by counting the requests the sandbox answered (never by the
// clock), and what the world saw of it. The sandbox answers the first third at once and holds
// every purge request after it until the bot is killed or stopped, so the signal lands with the
// next batches in flight, and the purge cannot run ahead of it however late the test process is
// on a busy machine. (Once the sandbox answered every purge request 200 ms late for the same end:
// 5 s of waiting per purge, for a moment it could still miss under load.) The next process gets
// its answers at once. A bot whose requests are held runs with HELD_ENV: a hold must never
// outlast its CDN attempts.
import { expect } from 'vitest';
import { PURGE_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import type { RecordedRequest } from '../../src/dev/sandbox/server.js';
import { type Bot, CHANNEL, MEMBER, type World } from './bot-process.js';
import { auditOf, jobsOf, nextView, TEST_TIMEOUT_MS, textOf, ZONE } from './flows.js';

export const URL_COUNT = 3_000;
/** URLs per CDN request (the sandbox's limit, which the client's batches follow). */
export const BATCH_SIZE = 30;
export const BATCHES = URL_COUNT / BATCH_SIZE;
/** Batches a purge has in flight at once (the CDN client's purge concurrency). */
export const IN_FLIGHT = 4;
/** About a third of the batches answered: the moment the first process is killed or stopped. */
export const KILL_AFTER = Math.ceil(BATCHES / 3);
export const SHUTDOWN_MS = 5_000;
export const FINAL = `Purged ${URL_COUNT} items on ${ZONE}`;

/**
 * The environment of a bot whose purge requests the sandbox holds (holdAfter): its CDN attempts
 * wait for as long as a test may. With the default attempt (10 s) a hold that outlasted it ended
 * the held batches as timed out, a result like any other: recorded, never sent again, and the
 * purge said "Purge on example.com: 120 of 3000 failed" (the race test, two replicas taking 11 s
 * to start at load 15, then waiting 90 s for a FINAL that could not come).
 */
export const HELD_ENV = {
  CDN_ATTEMPT_TIMEOUT_MS: String(TEST_TIMEOUT_MS),
  CDN_OPERATION_TIMEOUT_MS: String(TEST_TIMEOUT_MS),
};

const URLS = Array.from(
  { length: URL_COUNT },
  (_, i) => `https://${ZONE}/assets/${String(i).padStart(4, '0')}.js`,
);

/** The numbers a run observed, printed when FAULT_REPORT is set (for the report on the tests). */
export function report(what: string, numbers: Record<string, unknown>): void {
  if (process.env.FAULT_REPORT)
    process.stderr.write(`[fault report] ${what}: ${JSON.stringify(numbers)}\n`);
}

export const filesOf = (request: RecordedRequest): string[] | undefined => {
  const files = (request.body as { files?: unknown } | undefined)?.files;
  return Array.isArray(files) ? (files as string[]) : undefined;
};

export const isUrlPurge = (request: RecordedRequest) =>
  request.method === 'POST' && request.path.endsWith('/purge') && filesOf(request) !== undefined;

export const urlPurges = (world: World) => world.sandbox.requests.filter(isUrlPurge);

const PURGE_PATH = /\/purge$/;

/** Purge requests the sandbox holds (see holdAfter). */
export interface Held {
  /** Lets every held request through, and the ones after it. */
  release(): void;
  /** Resolves once `count` requests are being held. */
  holding(count: number): Promise<void>;
}

/**
 * From now on the sandbox answers purge requests at once until `answered` of them (counting those
 * answered already) have been, and holds every one after until `release` (then answers it as
 * usual, doing the work even for a bot that has died meanwhile).
 */
export function holdAfter(world: World, answered: number): Held {
  let release!: () => void;
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const onHeld = () => {
    held += 1;
    for (const waiter of waiting.filter((w) => w.count <= held)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  world.sandbox.clearFaults();
  const before = urlPurges(world).length;
  if (answered > before)
    world.sandbox.inject({
      kind: 'latency',
      ms: 0,
      method: 'POST',
      path: PURGE_PATH,
      times: answered - before,
    });
  world.sandbox.inject({
    kind: 'hold',
    until,
    onHeld,
    method: 'POST',
    path: PURGE_PATH,
    times: Number.POSITIVE_INFINITY,
  });
  return {
    release,
    holding: (count) =>
      count <= held
        ? Promise.resolve()
        : new Promise((resolve) => {
            waiting.push({ count, resolve });
          }),
  };
}

/**
 * Signals `bot` with its batches held (see holdAfter), lets them through (SIGTERM: once it is
 * stopping, so that they end within its stop; SIGKILL: once it is dead, so the CDN does the work
 * and the answers are lost), and resolves with its exit and how long the stop took. The sandbox
 * answers at once from then on.
 */
export async function signal(world: World, bot: Bot, held: Held, name: 'SIGKILL' | 'SIGTERM') {
  const signalled = performance.now();
  const exiting = bot.kill(name);
  if (name === 'SIGTERM') await bot.waitForLog('shutting down');
  else await exiting;
  world.sandbox.clearFaults();
  held.release();
  const exit = await exiting;
  return { exit, signalled, stopTook: performance.now() - signalled };
}

/** The purge form's values: `items` (one a line) in URL mode, on `zone`. */
function formValues(world: World, items: string[]) {
  const zone = world.sandbox.state.byName(ZONE);
  if (!zone) throw new Error(`no ${ZONE} in the sandbox`);
  return {
    [PURGE_IDS.zoneBlock]: {
      [ZONE_PICKER_IDS.action]: {
        type: 'external_select',
        selected_option: { value: zone.id, text: { type: 'plain_text', text: ZONE } },
      },
    },
    [PURGE_IDS.modeBlock]: {
      [PURGE_IDS.modeInput]: { type: 'radio_buttons', selected_option: { value: 'urls' } },
    },
    [PURGE_IDS.itemsBlock]: {
      [PURGE_IDS.itemsInput]: { type: 'plain_text_input', value: items.join('\n') },
    },
  };
}

/** MEMBER purges the 3,000 URLs from the form, in the channel; resolves once it is acknowledged. */
export async function purgeFromForm(world: World, bot: Bot): Promise<void> {
  const viewId = await nextView(world, () => bot.command(`purge ${ZONE}`, MEMBER));
  expect(await bot.submit(viewId, formValues(world, URLS), MEMBER)).toEqual({
    status: 200,
    body: '',
  });
}

/** The purge's messages in the channel (progress, pause and result all start so). */
export const purgeMessages = (world: World) =>
  world.slack.messages.filter(
    (m) => m.channel === CHANNEL && !m.deleted && /^Purg/.test(m.text ?? ''),
  );

/** "Purging: …" and "Purging (paused for a restart): …" (src/blocks/purge.ts). */
const isProgress = (message: Message) => /^Purging\b/.test(message.text ?? '');

/**
 * The purge's message once it has its final state (its result, whatever it is), which must be
 * FINAL: a purge that ended otherwise fails here, saying how, rather than at the test's timeout.
 */
export const finalMessage = async (world: World): Promise<Message> => {
  const [message] = await world.slack.waitForMessages(
    (m) => m.channel === CHANNEL && !m.deleted && /^Purg/.test(m.text ?? '') && !isProgress(m),
  );
  if (!message) throw new Error('no final message');
  expect(message.text).toBe(FINAL);
  return message;
};

/** Steps of the purge job with a result (batches recorded as done). */
export const stepsDone = (world: World) =>
  world.inspect(async (store) => {
    const rows = await store.db
      .selectFrom('job_steps')
      .select(['idx', 'result'])
      .where('result', 'is not', null)
      .execute();
    return rows.length;
  });

/** What the CDN saw of the purge: per URL and per batch, how often it was sent. */
export function sent(world: World) {
  const requests = urlPurges(world);
  const perUrl = new Map<string, number>();
  const perBatch = new Map<string, number>();
  for (const request of requests) {
    const files = filesOf(request) ?? [];
    perBatch.set(files.join('\n'), (perBatch.get(files.join('\n')) ?? 0) + 1);
    for (const url of files) perUrl.set(url, (perUrl.get(url) ?? 0) + 1);
  }
  return {
    requests: requests.length,
    refused: requests.filter((r) => r.status !== 200).length,
    missing: URLS.filter((url) => !perUrl.has(url)).length,
    maxPerUrl: Math.max(0, ...perUrl.values()),
    urlsTwice: [...perUrl.values()].filter((n) => n > 1).length,
    batches: perBatch.size,
    batchesTwice: [...perBatch.values()].filter((n) => n > 1).length,
    maxPerBatch: Math.max(0, ...perBatch.values()),
  };
}

export const urlAudits = async (world: World) =>
  (await auditOf(world)).filter((entry) => entry.action === 'purge.urls');

/** What every purge of the 3,000 URLs must end with, however the first process ended. */
export async function expectPurgedOnce(world: World) {
  const seen = sent(world);
  expect(seen).toMatchObject({ refused: 0, missing: 0, batches: BATCHES });
  expect(seen.maxPerUrl).toBeLessThanOrEqual(2);
  expect(seen.batchesTwice).toBeLessThanOrEqual(IN_FLIGHT);

  // One message in the channel, in its final state (no second post left saying "Purging…").
  const messages = purgeMessages(world);
  expect(messages.map((m) => m.text)).toEqual([FINAL]);
  expect(textOf(messages[0]?.blocks)).toContain(`purged ${URL_COUNT.toLocaleString('en')} URLs`);
  expect(JSON.stringify(messages[0]?.blocks)).not.toContain(PURGE_IDS.retry);

  expect(await urlAudits(world)).toEqual([
    expect.objectContaining({
      actorId: MEMBER,
      outcome: 'ok',
      zoneName: ZONE,
      detail: expect.objectContaining({ files: URL_COUNT, failed: 0, requests: BATCHES }),
    }),
  ]);
  expect(await jobsOf(world)).toEqual([
    expect.objectContaining({ kind: 'purge', state: 'succeeded', lease_owner: null }),
  ]);
  expect(await stepsDone(world)).toBe(BATCHES);
  return seen;
}

/**
 * A purge of 3,000 URLs in a first bot, which gets `name` once about a third of the batches were
 * answered. Resolves with the first bot, how it ended, and what the world held then.
 */
export async function interrupted(world: World, name: 'SIGKILL' | 'SIGTERM') {
  const held = holdAfter(world, KILL_AFTER);
  const first = await world.spawnBot({ ...HELD_ENV, SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS) });
  await purgeFromForm(world, first);
  await world.sandbox.waitFor(isUrlPurge, KILL_AFTER);
  const answeredAtSignal = urlPurges(world).length;
  const sandboxInFlight = world.sandbox.load.inFlight;
  const { exit, signalled, stopTook } = await signal(world, first, held, name);
  return {
    first,
    exit,
    signalled,
    stopTook,
    answeredAtSignal,
    sandboxInFlight,
    jobs: await jobsOf(world),
    done: await stepsDone(world),
  };
}
