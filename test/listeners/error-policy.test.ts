// The error policy's branches, driven directly: the real middleware (requestContext, then
// errorPolicy, then a tracked listener, in the order src/listeners/index.ts registers them) with
// recorders for everything Bolt would hand them. Each answer is asserted call by call.
import { describe, expect, it, vi } from 'vitest';
import { CdnError } from '../../src/cdn/errors.js';
import { AppError } from '../../src/errors.js';
import { requestContext, tracked } from '../../src/listeners/context.js';
import { errorPolicy } from '../../src/listeners/error-policy.js';
import { payloadGuard } from '../../src/listeners/payload-guard.js';
import { GroupMembersCache } from '../../src/slack/directory.js';
import { SecretError } from '../../src/store/crypto.js';
import { InstantClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import {
  type Built,
  blockSuggestion,
  buildArguments,
  CHANNEL,
  entries,
  eventCallback,
  globalShortcut,
  homeButton,
  LEVEL,
  type ListenerArgs,
  messageButton,
  runChain,
  slashCommand,
  TRIGGER,
  USER,
  viewSubmission,
} from './helpers.js';

const ZONE_NOT_FOUND = 'No zone `exampel.com` in this workspace. Did you mean `example.com`?';
const NOT_ADMIN = 'Only workspace admins and owners can set the CDN API key.';
const TOOK_TOO_LONG = 'This took too long — run the command again.';
const SLACK_SLOW = 'Slack did not answer in time, so I stopped waiting. Try again in a minute.';
const REF =
  /^Something went wrong on our side \(ref `([0-9a-f]{6})`\)\. It has been logged; please try again, and quote the ref if it keeps happening\.$/;

const zoneNotFound = () =>
  new AppError({ code: 'zone_not_found', query: 'exampel.com', suggestions: ['example.com'] });

/** The warning message every answer in a conversation is: the sentence, and one section. */
function warning(text: string) {
  return {
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:warning: ${text}` } }],
  };
}

/** The ephemeral reply through a response_url: the warning, beside the conversation's messages. */
function ephemeral(text: string) {
  return { response_type: 'ephemeral', replace_original: false, ...warning(text) };
}

/** What @slack/web-api throws for Slack's `ok: false` answer `error` (and its `code`, when given). */
function platformError(error: string, code?: string) {
  return Object.assign(new Error(`An API error occurred: ${error}`), {
    ...(code === undefined ? {} : { code }),
    data: { ok: false, error },
  });
}

/** A respond() whose response_url refuses every answer with `error`. */
function refusingRespond(error: Error = new Error('response_url expired')) {
  return vi.fn(async (_message: unknown) => {
    throw error;
  });
}

/** The notice modal the App Home, shortcuts and unacknowledged submissions get. */
function notice(text: string) {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Not possible' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

type Listener = (args: ListenerArgs) => Promise<void>;

/** A listener that acknowledges (as every listener does first; with `response` when given), then throws `error`. */
const acksThenThrows =
  (error: unknown, response?: unknown): Listener =>
  async ({ ack }) => {
    await (response === undefined ? ack() : ack(response));
    throw error;
  };

/** A listener that throws before it acknowledges. */
const throws =
  (error: unknown): Listener =>
  async () => {
    throw error;
  };

/**
 * Runs `listener` for `built` behind the global middleware, as registered: requestContext, then
 * errorPolicy; the listener is wrapped in `tracked` as every acknowledging listener is (events'
 * listeners are not: they have no ack). Returns what escaped the chain, if anything.
 */
async function run(built: Built, listener: Listener, options: { tracked?: boolean } = {}) {
  const logs = captureLogs('trace');
  const groups = new GroupMembersCache(new InstantClock());
  const wrapped = options.tracked === false ? listener : tracked(listener);
  let reached = false;
  let thrown: unknown;
  await runChain(built.args, [requestContext(groups), errorPolicy(logs.logger)], async (args) => {
    reached = true;
    await wrapped(args);
  }).catch((error: unknown) => {
    thrown = error;
  });
  expect(reached, 'the listener ran').toBe(true);
  return { thrown, logs, log: entries(logs.lines) };
}

/** The text of the (first) ephemeral reply. */
function repliedText(built: Built): string {
  const [reply] = built.respond.mock.calls[0] ?? [];
  const text = (reply as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string') throw new Error('no reply');
  return text;
}

/** The six hex digits of the ref in a sentence shown to the user. */
function refIn(text: unknown): string {
  const match = typeof text === 'string' ? REF.exec(text) : null;
  if (!match?.[1]) throw new Error(`no ref in ${JSON.stringify(text)}`);
  return match[1];
}

describe('the fixtures', () => {
  it.each([
    ['a slash command', slashCommand()],
    ['a message button', messageButton('zones_next')],
    ['an App Home button', homeButton('home_login')],
    ['a modal submission', viewSubmission('create_modal')],
    ['a select asking for options', blockSuggestion('zone_picker', 'exa')],
    ['a global shortcut', globalShortcut('purge_everything')],
    ['an event', eventCallback({ type: 'app_home_opened', user: USER, tab: 'home' })],
  ])('%s is a payload the guard lets through', async (_name, body) => {
    const built = buildArguments({ body });
    await payloadGuard(captureLogs().logger, (url) => url.startsWith('https://hooks.slack.test/'))(
      built.args,
    );
    expect(built.next).toHaveBeenCalledOnce();
    expect(built.ack).not.toHaveBeenCalled();
  });

  it.each([
    ['a slash command', slashCommand()],
    ['a message button', messageButton('zones_next')],
  ])(
    '%s naming a response_url that is not Slack’s is acknowledged and dropped',
    async (_name, body) => {
      const built = buildArguments({ body: { ...body, response_url: 'http://127.0.0.1:9/x' } });
      await payloadGuard(captureLogs().logger, (url) =>
        url.startsWith('https://hooks.slack.test/'),
      )(built.args);
      expect(built.next).not.toHaveBeenCalled();
      expect(built.ack).toHaveBeenCalledOnce();
    },
  );
});

describe('errorPolicy', () => {
  it('lets a request whose listener succeeds through untouched', async () => {
    const built = buildArguments({ body: slashCommand() });
    const { thrown, log } = await run(built, async ({ ack }) => {
      await ack();
    });
    expect(thrown).toBeUndefined();
    expect(built.ack).toHaveBeenCalledExactlyOnceWith();
    expect(built.respond).not.toHaveBeenCalled();
    expect(built.client.chat.postMessage).not.toHaveBeenCalled();
    expect(built.client.views.open).not.toHaveBeenCalled();
    expect(log).toEqual([]);
  });

  describe('a slash command (a response_url)', () => {
    it('answers an AppError with one ephemeral reply in the problem’s words, logged below warn', async () => {
      const built = buildArguments({ body: slashCommand() });
      const { thrown, log } = await run(built, acksThenThrows(zoneNotFound()));

      expect(thrown).toBeUndefined();
      expect(built.respond).toHaveBeenCalledExactlyOnceWith(ephemeral(ZONE_NOT_FOUND));
      // The listener's ack was the only one.
      expect(built.ack).toHaveBeenCalledExactlyOnceWith();
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(built.client.views.open).not.toHaveBeenCalled();
      expect(log).toEqual([
        expect.objectContaining({
          level: LEVEL.debug,
          msg: 'refused',
          code: 'zone_not_found',
          where: 'command /cdn',
        }),
      ]);
    });

    it('acknowledges for a listener that threw before it could, then replies', async () => {
      const built = buildArguments({ body: slashCommand() });
      await run(built, throws(zoneNotFound()));
      expect(built.ack).toHaveBeenCalledExactlyOnceWith();
      expect(built.respond).toHaveBeenCalledExactlyOnceWith(ephemeral(ZONE_NOT_FOUND));
      expect(built.ack.mock.invocationCallOrder[0]).toBeLessThan(
        built.respond.mock.invocationCallOrder[0] ?? 0,
      );
    });

    it('answers an unexpected error with a ref, the same ref the one error line carries', async () => {
      const built = buildArguments({ body: slashCommand() });
      const { thrown, log } = await run(built, acksThenThrows(new Error('boom: pool exhausted')));

      expect(thrown).toBeUndefined();
      expect(built.respond).toHaveBeenCalledOnce();
      const [reply] = built.respond.mock.calls[0] ?? [];
      const { text } = reply as { text: string };
      const ref = refIn(text);
      expect(reply).toEqual(ephemeral(text));
      // The user reads the ref, never the internals.
      expect(text).not.toContain('boom');

      const errors = log.filter((entry) => entry.level >= LEVEL.error);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        level: LEVEL.error,
        msg: 'unexpected error',
        ref,
        where: 'command /cdn',
        err: { type: 'Error', message: 'boom: pool exhausted' },
      });
      expect(log).toHaveLength(1);
    });

    it('gives every unexpected failure its own ref', async () => {
      const refs = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const built = buildArguments({ body: slashCommand() });
        const { log } = await run(built, acksThenThrows(new Error('boom')));
        const text = repliedText(built);
        expect(log[0]?.ref).toBe(refIn(text));
        refs.add(refIn(text));
      }
      expect(refs.size).toBe(5);
    });

    // Each: one ephemeral reply in the problem's words, one log line (a loop keeps whole titles).
    for (const { title, error, reply, logged } of [
      {
        title: 'logs a CdnError at info and answers with the CDN’s sentence',
        error: new CdnError('rate_limited', 'slow down', {
          status: 429,
          requestId: 'req-42',
          retryAfterMs: 30_000,
        }),
        reply:
          'The CDN API is rate limiting requests right now. Try again in 30 s. (CDN request id `req-42`)',
        logged: {
          level: LEVEL.info,
          msg: 'the CDN API failed a request',
          where: 'command /cdn',
          err: expect.objectContaining({ type: 'CdnError', code: 'rate_limited' }),
        },
      },
      {
        title: 'logs a SecretError at warn and tells the user an admin can set the key again',
        error: new SecretError('secret_key_unknown', 'key "k9" is not held'),
        reply:
          "This workspace's stored CDN key can't be read with the bot's current encryption keys. A workspace admin can set it again with `/cdn login`.",
        logged: {
          level: LEVEL.warn,
          msg: 'a stored secret cannot be read with the current keys',
          where: 'command /cdn',
        },
      },
      {
        title: 'says "took too long" for a spent trigger, at debug (it is no failure of ours)',
        error: platformError('expired_trigger_id', 'slack_webapi_platform_error'),
        reply: TOOK_TOO_LONG,
        logged: { level: LEVEL.debug, code: 'trigger_expired' },
      },
    ]) {
      it(title, async () => {
        const built = buildArguments({ body: slashCommand() });
        const { log } = await run(built, acksThenThrows(error));
        expect(built.respond).toHaveBeenCalledExactlyOnceWith(ephemeral(reply));
        expect(log).toEqual([expect.objectContaining(logged)]);
      });
    }

    it('answers in the channel, ephemerally, when the response_url refuses (spent or expired)', async () => {
      const respond = refusingRespond(
        Object.assign(new Error('Failed to respond to the response_url: 404'), {
          code: 'slack_bolt_respond_error',
          statusCode: 404,
        }),
      );
      const built = buildArguments({ body: slashCommand(), respond });
      const { thrown, log } = await run(built, acksThenThrows(zoneNotFound()));

      expect(thrown).toBeUndefined();
      expect(respond).toHaveBeenCalledOnce();
      expect(built.client.chat.postEphemeral).toHaveBeenCalledExactlyOnceWith({
        channel: CHANNEL,
        user: USER,
        ...warning(ZONE_NOT_FOUND),
      });
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(log.map((entry) => entry.level)).toEqual([LEVEL.debug]);
    });

    it('sends a DM when neither the response_url nor the channel takes the answer', async () => {
      const respond = refusingRespond();
      const built = buildArguments({ body: slashCommand(), respond });
      built.client.chat.postEphemeral.mockRejectedValueOnce(platformError('not_in_channel'));
      await run(built, acksThenThrows(zoneNotFound()));
      expect(built.client.chat.postMessage).toHaveBeenCalledExactlyOnceWith({
        channel: USER,
        ...warning(ZONE_NOT_FOUND),
      });
    });

    it('logs a warning, and does not throw, when every way to answer fails', async () => {
      const respond = refusingRespond();
      const built = buildArguments({ body: slashCommand(), respond });
      built.client.chat.postEphemeral.mockRejectedValueOnce(new Error('channel refused'));
      built.client.chat.postMessage.mockRejectedValueOnce(new Error('dm refused'));
      const { thrown, log } = await run(built, acksThenThrows(new Error('boom')));

      expect(thrown).toBeUndefined();
      expect(respond).toHaveBeenCalledOnce();
      expect(log.map((entry) => [entry.level, entry.msg])).toEqual([
        [LEVEL.error, 'unexpected error'],
        [LEVEL.info, 'answer refused in the channel; sent as a DM'],
        [LEVEL.warn, 'could not tell the user about a failure'],
      ]);
      expect(log[1]?.reason).toBe('channel refused');
      expect(log[2]?.err).toMatchObject({ message: 'dm refused' });
    });

    it.each([
      ['a timeout', { code: 'slack_webapi_request_error' }, SLACK_SLOW],
      ['a 5xx', { code: 'slack_webapi_http_error', statusCode: 503 }, SLACK_SLOW],
      [
        'a rate limit',
        { code: 'slack_webapi_rate_limited_error', retryAfter: 30 },
        'Slack is limiting how fast I may call it right now. Try again in 30 s.',
      ],
    ])(
      'says Slack did not answer for %s, logged at warn without a ref',
      async (_name, fields, text) => {
        const built = buildArguments({ body: slashCommand() });
        const { log } = await run(built, acksThenThrows(Object.assign(new Error('slack'), fields)));
        expect(repliedText(built)).toBe(text);
        expect(log.map((entry) => [entry.level, entry.msg])).toEqual([
          [LEVEL.warn, 'Slack did not answer in time; the user is told'],
          [LEVEL.debug, 'refused'],
        ]);
      },
    );
  });

  describe('a button in a message', () => {
    it('replies ephemerally through the response_url and names the action in the log', async () => {
      const built = buildArguments({ body: messageButton('approval_approve') });
      const { log } = await run(built, acksThenThrows(new Error('boom')));
      const text = repliedText(built);
      expect(built.respond).toHaveBeenCalledExactlyOnceWith(ephemeral(text));
      expect(log).toEqual([
        expect.objectContaining({
          level: LEVEL.error,
          ref: refIn(text),
          where: 'block_actions approval_approve',
        }),
      ]);
      expect(built.client.views.open).not.toHaveBeenCalled();
    });
  });

  describe('a modal submission', () => {
    it('turns the modal itself into the answer when the listener had not acknowledged', async () => {
      const built = buildArguments({ body: viewSubmission('create_modal') });
      const { log } = await run(built, throws(zoneNotFound()));

      expect(built.ack).toHaveBeenCalledExactlyOnceWith({
        response_action: 'update',
        view: notice(ZONE_NOT_FOUND),
      });
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(built.client.views.open).not.toHaveBeenCalled();
      expect(log).toEqual([
        expect.objectContaining({
          level: LEVEL.debug,
          msg: 'refused',
          where: 'view_submission create_modal',
        }),
      ]);
    });

    it('sends a DM, and no second ack, when the listener had acknowledged', async () => {
      const built = buildArguments({ body: viewSubmission('create_modal') });
      await run(built, acksThenThrows(zoneNotFound(), { response_action: 'clear' }));

      expect(built.ack).toHaveBeenCalledExactlyOnceWith({ response_action: 'clear' });
      expect(built.client.chat.postMessage).toHaveBeenCalledExactlyOnceWith({
        channel: USER,
        ...warning(ZONE_NOT_FOUND),
      });
      expect(built.client.views.open).not.toHaveBeenCalled();
    });

    it('answers ephemerally in the channel the modal was opened from, once acknowledged', async () => {
      const body = viewSubmission('purge_form');
      const view = body.view as Record<string, unknown>;
      view.private_metadata = JSON.stringify({ channelId: CHANNEL, responseUrl: 'https://x' });
      const built = buildArguments({ body });
      await run(built, acksThenThrows(zoneNotFound()));
      expect(built.client.chat.postEphemeral).toHaveBeenCalledExactlyOnceWith({
        channel: CHANNEL,
        user: USER,
        ...warning(ZONE_NOT_FOUND),
      });
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
    });

    it('needs `tracked`: an ack it did not see makes its own ack a second one, and nothing reaches the user', async () => {
      // An untracked listener that acks leaves context.acked unset: the policy then acks again,
      // which Bolt's HTTP receiver refuses (ReceiverMultipleAckError), and the user hears nothing.
      const ack = vi.fn(async (_response?: unknown) => {
        if (ack.mock.calls.length > 1) throw new Error('ReceiverMultipleAckError');
      });
      const built = buildArguments({ body: viewSubmission('create_modal'), ack });
      const { log } = await run(built, acksThenThrows(zoneNotFound()), { tracked: false });

      expect(ack).toHaveBeenCalledTimes(2);
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(log.at(-1)).toMatchObject({
        level: LEVEL.warn,
        msg: 'could not tell the user about a failure',
      });
    });
  });

  describe('an App Home button (no response_url, a trigger_id)', () => {
    it('opens a notice modal with the trigger', async () => {
      const built = buildArguments({ body: homeButton('home_login') });
      const { log } = await run(
        built,
        acksThenThrows(new AppError({ code: 'not_admin', action: 'set_key' })),
      );

      expect(built.ack).toHaveBeenCalledExactlyOnceWith();
      expect(built.client.views.open).toHaveBeenCalledExactlyOnceWith({
        trigger_id: TRIGGER,
        view: notice(NOT_ADMIN),
      });
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(built.respond).not.toHaveBeenCalled();
      expect(log).toEqual([
        expect.objectContaining({ level: LEVEL.debug, where: 'block_actions home_login' }),
      ]);
    });

    it('falls back to a DM when the trigger has expired', async () => {
      const client = buildArguments().client;
      client.views.open.mockRejectedValueOnce(platformError('expired_trigger_id'));
      const built = buildArguments({ body: homeButton('home_login'), client });
      const { log } = await run(
        built,
        acksThenThrows(new AppError({ code: 'not_admin', action: 'set_key' })),
      );

      expect(client.views.open).toHaveBeenCalledOnce();
      expect(client.chat.postMessage).toHaveBeenCalledExactlyOnceWith({
        channel: USER,
        ...warning(NOT_ADMIN),
      });
      // The fallback is the plan, not a failure: nothing is logged about it.
      expect(log.map((entry) => entry.level)).toEqual([LEVEL.debug]);
    });

    it('sends "took too long" as a DM, without reusing the trigger, when its own modal’s trigger expired', async () => {
      const built = buildArguments({ body: homeButton('home_login') });
      await run(built, acksThenThrows(platformError('expired_trigger_id')));
      expect(built.client.views.open).not.toHaveBeenCalled();
      expect(built.client.chat.postEphemeral).not.toHaveBeenCalled();
      expect(built.client.chat.postMessage).toHaveBeenCalledExactlyOnceWith({
        channel: USER,
        ...warning(TOOK_TOO_LONG),
      });
    });

    it('acknowledges for a listener that threw before it could', async () => {
      const built = buildArguments({ body: homeButton('home_login') });
      await run(built, throws(new Error('boom')));
      expect(built.ack).toHaveBeenCalledExactlyOnceWith();
      expect(built.client.views.open).toHaveBeenCalledOnce();
      expect(built.ack.mock.invocationCallOrder[0]).toBeLessThan(
        built.client.views.open.mock.invocationCallOrder[0] ?? 0,
      );
    });
  });

  describe('a global shortcut', () => {
    it('opens a notice modal and names the shortcut in the log', async () => {
      const built = buildArguments({ body: globalShortcut('purge_everything') });
      const { log } = await run(built, acksThenThrows(new Error('boom')));
      const view = built.client.views.open.mock.calls[0]?.[0]?.view as { blocks: unknown[] };
      const text = (view.blocks[0] as { text: { text: string } }).text.text;
      expect(built.client.views.open).toHaveBeenCalledExactlyOnceWith({
        trigger_id: TRIGGER,
        view: notice(text),
      });
      expect(log).toEqual([
        expect.objectContaining({
          level: LEVEL.error,
          ref: refIn(text),
          where: 'shortcut purge_everything',
        }),
      ]);
    });
  });

  describe('a select asking for options', () => {
    it('answers with no options when the listener had not acknowledged', async () => {
      const built = buildArguments({ body: blockSuggestion('zone_picker', 'exa') });
      const { log } = await run(built, throws(new Error('boom')));
      expect(built.ack).toHaveBeenCalledExactlyOnceWith({ options: [] });
      expect(built.respond).not.toHaveBeenCalled();
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(built.client.views.open).not.toHaveBeenCalled();
      expect(log).toEqual([
        expect.objectContaining({ level: LEVEL.error, where: 'block_suggestion zone_picker' }),
      ]);
    });

    it('adds nothing when the listener had acknowledged', async () => {
      const built = buildArguments({ body: blockSuggestion('zone_picker', 'exa') });
      await run(
        built,
        acksThenThrows(new Error('boom'), {
          options: [{ text: { type: 'plain_text', text: 'a' }, value: 'a' }],
        }),
      );
      expect(built.ack).toHaveBeenCalledOnce();
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
    });
  });

  describe('an event', () => {
    it('sends nothing (nobody asked) and logs the failure', async () => {
      const built = buildArguments({
        body: eventCallback({ type: 'app_home_opened', user: USER, tab: 'home' }),
      });
      expect('ack' in built.args, 'Bolt acks events itself').toBe(false);
      const { thrown, log } = await run(built, throws(new Error('boom')), { tracked: false });

      expect(thrown).toBeUndefined();
      expect(built.ack).not.toHaveBeenCalled();
      expect(built.respond).not.toHaveBeenCalled();
      expect(built.client.chat.postMessage).not.toHaveBeenCalled();
      expect(built.client.views.open).not.toHaveBeenCalled();
      expect(log).toEqual([
        expect.objectContaining({
          level: LEVEL.error,
          msg: 'unexpected error',
          ref: expect.stringMatching(/^[0-9a-f]{6}$/),
          where: 'event_callback',
        }),
      ]);
    });
  });

  describe('what the log line names', () => {
    // A modal's callback_id is body.view.callback_id; only shortcuts carry one at the top level.
    it('names the modal whose submission failed (view.callback_id)', async () => {
      const built = buildArguments({ body: viewSubmission('create_modal') });
      const { log } = await run(built, throws(new Error('boom')));
      expect(log[0]?.where).toBe('view_submission create_modal');
    });

    // Options requests carry their action_id at the top level, not in body.actions.
    it('names the select whose options failed (action_id)', async () => {
      const built = buildArguments({ body: blockSuggestion('zone_picker', 'exa') });
      const { log } = await run(built, throws(new Error('boom')));
      expect(log[0]?.where).toBe('block_suggestion zone_picker');
    });
  });
});
