// Property tests through the real Bolt HTTP stack: arbitrary command text (up to 10,000
// characters, any Unicode), and interaction payloads built from the bot's own ids with hostile
// contents, unknown ids, stale views and missing fields. Whatever arrives: Slack gets a 200 at
// once (or a clear 4xx), the user gets a short answer, and nothing is logged as an error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ANALYTICS_IDS,
  APPROVAL_IDS,
  CREATE_IDS,
  HOME_IDS,
  LOGIN_IDS,
  PURGE_IDS,
  VERIFY_IDS,
  ZONE_PICKER_IDS,
  ZONES_IDS,
} from '../../src/blocks/ids.js';
import { anyText, fc, RUNS } from '../helpers/property.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, OTHER, startHarness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  await h.login();
});

/** Log lines at error level or above: a handler that threw, or a request nobody acknowledged. */
const errorsLogged = () => h.logs.lines.filter((line) => /"level":(50|60)/.test(line));

afterEach(() => {
  expect(errorsLogged()).toEqual([]);
});

const users = fc.constantFrom(ADMIN, MEMBER, OTHER, 'UNOBODY');
const subcommand = fc.constantFrom(
  '',
  'help ',
  'zones ',
  'zones active page ',
  'create ',
  'ratelimit ',
  'ratelimit example.com ',
  'purge ',
  'purge example.com ',
  'purge example.com tag:',
  'analytics ',
  'analytics example.com ',
  'report ',
  'report example.com daily ',
  'report stop ',
  'audit ',
  'config ',
  'config operators ',
  'logout ',
  'use ',
  'purge /',
  'config purge-channels ',
);
const commandText = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(subcommand, anyText(300)).map(([a, b]) => a + b) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(subcommand, fc.string({ minLength: 10_000, maxLength: 10_000 }))
      .map(([a, b]) => a + b),
  },
);

/** Messages, modals and charts: every way the bot answers a command. */
const answers = () =>
  h.slack.messages.length +
  h.slack.callsTo('views.open').length +
  h.slack.callsTo('files.completeUploadExternal').length;

/** Resolves when the bot has answered (a message, or a modal), or rejects after `ms`. */
async function answerAfter(before: number, ms = 10_000): Promise<void> {
  const answered = () => answers() > before;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from the bot')), ms);
    const check = () => {
      if (!answered()) return;
      clearTimeout(timer);
      h.slack.off('response', check);
      h.slack.off('call', check);
      resolve();
    };
    h.slack.on('response', check);
    h.slack.on('call', check);
    check();
  });
}

describe('any /cdn command text', () => {
  it('gets a 200 and one short, valid answer', async () => {
    await fc.assert(
      fc.asyncProperty(commandText, users, async (text, user) => {
        const before = answers();
        const messagesBefore = h.slack.messages.length;
        const { status } = await h.command(text, { user });
        expect(status).toBe(200);
        await answerAfter(before);
        for (const message of h.slack.messages.slice(messagesBefore)) {
          expect((message.text ?? '').length).toBeLessThanOrEqual(4_000);
        }
      }),
      { numRuns: RUNS.e2e },
    );
    // Every run was answered (fast-check also shrinks failures, which adds runs, never removes).
    expect(answers()).toBeGreaterThanOrEqual(RUNS.e2e);
  }, 300_000);
});

const ACTION_IDS = [
  ZONES_IDS.previous,
  ZONES_IDS.next,
  `${ZONES_IDS.analytics}_0`,
  `${ZONES_IDS.analytics}_99`,
  HOME_IDS.login,
  HOME_IDS.listZones,
  HOME_IDS.createZone,
  HOME_IDS.analytics,
  `${HOME_IDS.stopReport}_0`,
  `${PURGE_IDS.retry}_0`,
  `${VERIFY_IDS.verify}_0`,
  VERIFY_IDS.purgeAgain,
  APPROVAL_IDS.approve,
  APPROVAL_IDS.deny,
  APPROVAL_IDS.cancel,
];
const CALLBACK_IDS = [
  LOGIN_IDS.callback,
  CREATE_IDS.callback,
  PURGE_IDS.formCallback,
  PURGE_IDS.everythingCallback,
  ANALYTICS_IDS.callback,
  APPROVAL_IDS.approveCallback,
  APPROVAL_IDS.denyCallback,
];
/** Every input of every form, so submissions reach the handlers' reading of values. */
const INPUTS: Array<[string, string]> = [
  [LOGIN_IDS.keyBlock, LOGIN_IDS.keyInput],
  [LOGIN_IDS.baseUrlBlock, LOGIN_IDS.baseUrlInput],
  [CREATE_IDS.domainBlock, CREATE_IDS.domainInput],
  [CREATE_IDS.planBlock, CREATE_IDS.planInput],
  [PURGE_IDS.verifyBlock, PURGE_IDS.verifyInput],
  [PURGE_IDS.zoneBlock, ZONE_PICKER_IDS.action],
  [PURGE_IDS.modeBlock, PURGE_IDS.modeInput],
  [PURGE_IDS.itemsBlock, PURGE_IDS.itemsInput],
  [PURGE_IDS.confirmBlock, PURGE_IDS.confirmInput],
  [PURGE_IDS.reasonBlock, PURGE_IDS.reasonInput],
  [ANALYTICS_IDS.zoneBlock, ZONE_PICKER_IDS.action],
  [ANALYTICS_IDS.rangeBlock, ANALYTICS_IDS.rangeInput],
  [ANALYTICS_IDS.channelBlock, ANALYTICS_IDS.channelInput],
  [APPROVAL_IDS.denyReasonBlock, APPROVAL_IDS.denyReasonInput],
];

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const hostileValue = fc.oneof(
  anyText(100),
  fc.constantFrom('example.com', 'zone_missing', '24h', 'everything', 'tags', 'pro', CHANNEL),
);
const inputState = fc.record(
  {
    type: fc.constantFrom('plain_text_input', 'static_select', 'external_select', 'radio_buttons'),
    value: maybe(fc.oneof(hostileValue, fc.constant(null))),
    selected_option: maybe(
      fc.oneof(fc.constant(null), fc.record({ value: hostileValue, text: fc.constant({}) })),
    ),
    selected_conversation: maybe(fc.oneof(hostileValue, fc.constant(null))),
  },
  { requiredKeys: [] },
);
const stateValues = fc.oneof(
  fc.constant({}),
  fc
    .subarray(INPUTS, { minLength: 1 })
    .chain((inputs) =>
      fc
        .tuple(...inputs.map(() => inputState))
        .map((states) =>
          Object.fromEntries(inputs.map(([block, action], i) => [block, { [action]: states[i] }])),
        ),
    ),
);
const who = (user: string) => ({
  user: { id: user, team_id: 'T0FAKE', username: user },
  team: { id: 'T0FAKE', domain: 'fake' },
});
const id = (known: readonly string[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, anyText(40));

/** Interaction payloads: known ids with hostile contents, unknown ids, stale and partial views. */
function interaction(): fc.Arbitrary<Record<string, unknown>> {
  const viewFields = {
    id: fc.constantFrom('V404', 'VSTALE', 'V1'),
    hash: anyText(20),
    type: fc.constant('modal'),
    callback_id: id(CALLBACK_IDS),
    private_metadata: fc.oneof(
      anyText(200),
      fc.json(),
      fc.constant(JSON.stringify({ channelId: CHANNEL, zoneId: 'zone_missing' })),
    ),
    state: fc.record({ values: stateValues }),
    blocks: fc.oneof(
      fc.constant([]),
      fc.constant([
        {
          type: 'input',
          block_id: PURGE_IDS.confirmBlock,
          label: { type: 'plain_text', text: 'Type example.com to confirm' },
        },
      ]),
    ),
  };
  // Mostly complete views (so the handlers run), sometimes ones missing what Slack always sends.
  const view = fc.oneof(
    { weight: 4, arbitrary: fc.record(viewFields) },
    { weight: 1, arbitrary: fc.record(viewFields, { requiredKeys: ['id', 'callback_id'] }) },
  );
  const blockActions = fc.record(
    {
      type: fc.constant('block_actions'),
      user: users,
      container: maybe(
        fc.oneof(
          fc.record({
            type: fc.constant('message'),
            message_ts: anyText(20),
            channel_id: fc.constant(CHANNEL),
          }),
          fc.record({ type: fc.constant('view'), view_id: fc.constant('V404') }),
        ),
      ),
      channel: maybe(fc.constant({ id: CHANNEL, name: 'ops' })),
      message: maybe(fc.record({ ts: anyText(20), text: anyText(100), blocks: fc.constant([]) })),
      view: maybe(view),
      response_url: fc.boolean(),
      actions: fc.array(
        fc.record(
          {
            action_id: id(ACTION_IDS),
            block_id: anyText(20),
            type: fc.constantFrom('button', 'static_select', 'overflow'),
            value: maybe(hostileValue),
          },
          { requiredKeys: ['action_id'] },
        ),
        { minLength: 1, maxLength: 2 },
      ),
    },
    { requiredKeys: ['type', 'user', 'actions', 'response_url'] },
  );
  const viewSubmission = fc.record({
    type: fc.constant('view_submission'),
    user: users,
    view,
  });
  const suggestion = fc.record({
    type: fc.constant('block_suggestion'),
    user: users,
    action_id: id([ZONE_PICKER_IDS.action]),
    block_id: anyText(20),
    value: anyText(200),
  });
  const shortcut = fc.record({
    type: fc.constantFrom('message_action', 'shortcut'),
    user: users,
    callback_id: id([PURGE_IDS.shortcut]),
    channel: fc.constant({ id: CHANNEL, name: 'ops' }),
    message: fc.record({ ts: anyText(20), text: anyText(300), user: fc.constant(OTHER) }),
  });
  return fc.oneof(blockActions, viewSubmission, suggestion, shortcut).map((payload) => {
    const {
      user,
      response_url: withResponseUrl,
      ...rest
    } = payload as Record<string, unknown> & {
      user: string;
      response_url?: boolean;
    };
    return {
      ...rest,
      ...who(user),
      api_app_id: 'A0FAKE',
      trigger_id: h.slack.mintTrigger(user),
      ...(withResponseUrl || rest.type !== 'block_actions'
        ? { response_url: h.slack.mintResponseUrl(CHANNEL, user) }
        : {}),
    };
  });
}

describe('any interaction payload', () => {
  it('is acknowledged with a 200, answered briefly, and never crashes a handler', async () => {
    await fc.assert(
      fc.asyncProperty(interaction(), async (payload) => {
        const { status, body } = await h.post(
          new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
          'application/x-www-form-urlencoded',
        );
        expect(status).toBe(200);
        if (body !== '') {
          const answer = JSON.parse(body) as { errors?: Record<string, string> };
          for (const error of Object.values(answer.errors ?? {}))
            expect(error.length).toBeLessThanOrEqual(2_000);
        }
      }),
      { numRuns: RUNS.e2e },
    );
    // Work after the ack finishes before the logs are checked: a last command, answered.
    const before = h.slack.messages.length;
    await h.command('help');
    await answerAfter(before);
  }, 300_000);

  it('that is not a payload at all gets a clear non-200', async () => {
    const answers = await Promise.all(
      [
        ['payload=%7Bnot-json', 'application/x-www-form-urlencoded'],
        ['payload=%5B1%2C2%5D', 'application/x-www-form-urlencoded'],
        ['{"nothing":"here"}', 'application/json'],
        ['\u0000\u0001', 'application/octet-stream'],
      ].map(([body, type]) => h.post(body as string, type as string)),
    );
    for (const { status } of answers) expect(status).toBeGreaterThanOrEqual(400);
    h.logs.lines.splice(0); // Bolt logs the unacknowledged ones as errors, which is right here.
  });
});
