// Contract with Slack: payloads shaped as Slack sends them (test/fixtures/slack, each from Slack's
// recorded payloads) reach the bot through the signed HTTP receiver and through Socket Mode, and
// what the bot answers is what Slack accepts: an ack within 3 s, an ack body Slack can use, and
// every Web API call it makes in reaction accepted by the fake Slack (ok: true).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import { validateOptions } from '../../src/dev/fake-slack/validate.js';
import { STEP_IDS } from '../../src/listeners/functions/steps.js';
import { parseExposition, sumOf } from '../helpers/prometheus.js';
import {
  ADMIN,
  CHANNEL,
  type Harness,
  MEMBER,
  type SignedResult,
  startHarness,
  viewIdOf,
} from './harness.js';

type Json = Record<string, unknown>;

/** A fixture without its `_source`. */
function fixture(name: string): Json {
  const { _source, ...shape } = JSON.parse(
    readFileSync(new URL(`../fixtures/slack/${name}.json`, import.meta.url), 'utf8'),
  ) as Json;
  return shape;
}

/** The test's live values laid over Slack's shape, object by object. */
function over(shape: Json, live: Json): Json {
  const merged: Json = { ...shape };
  for (const [key, value] of Object.entries(live)) {
    const under = shape[key];
    merged[key] = isObject(under) && isObject(value) ? over(under, value) : value;
  }
  return merged;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Slack waits 3 s for an acknowledgement (https://api.slack.com/interactivity/handling#acknowledgment_response). */
function expectAckInTime(answer: SignedResult): void {
  expect(answer.status).toBe(200);
  expect(answer.ms).toBeLessThan(3_000);
}

/** Every Web API call the bot made was accepted, as real Slack would (the fake checks it). */
function expectAllAccepted(h: Harness): void {
  const refused = h.slack.calls.filter((call) => call.response.ok !== true);
  expect(refused.map((c) => `${c.method}: ${JSON.stringify(c.response)}`)).toEqual([]);
}

/**
 * A view_submission's ack as Slack takes it: empty (close), or a response_action whose errors name
 * input blocks of the view, or whose view passes views.update's checks.
 * Source: https://api.slack.com/surfaces/modals#updating_response (response_action errors/update/
 * push/clear).
 */
function expectValidSubmissionAck(h: Harness, viewId: string, body: string): Json | undefined {
  if (body === '') return undefined;
  const ack = JSON.parse(body) as Json;
  switch (ack.response_action) {
    case 'errors': {
      const view = h.slack.views.get(viewId)?.view as { blocks?: Json[] } | undefined;
      const inputs = (view?.blocks ?? []).filter((b) => b.type === 'input').map((b) => b.block_id);
      const errors = ack.errors as Record<string, unknown>;
      expect(Object.keys(errors).length).toBeGreaterThan(0);
      for (const [blockId, text] of Object.entries(errors)) {
        expect(inputs).toContain(blockId);
        expect(typeof text === 'string' && text.length > 0).toBe(true);
      }
      return ack;
    }
    case 'update':
    case 'push':
      expect(h.slack.applyResponseAction(viewId, ack as never)).toMatchObject({ ok: true });
      return ack;
    default:
      expect(ack.response_action).toBe('clear');
      return ack;
  }
}

const form = (fields: Json) =>
  new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
const FORM = 'application/x-www-form-urlencoded';

describe.each([
  { transport: 'the signed HTTP receiver', socket: false },
  { transport: 'Socket Mode', socket: true },
])('Slack-shaped payloads through $transport', ({ socket }) => {
  const start = async () => {
    const h = await startHarness({ login: true, socket });
    return { h, live: new SlackPayloads(h.slack, h.workspaceId) };
  };
  const METRICS_TOKEN = 'contract-metrics-token-6c1d';
  /** A harness with /metrics, and how many deliveries of a type it counted as unhandled. */
  const startCounted = async () => {
    const h = await startHarness({ login: true, socket, env: { METRICS_TOKEN } });
    const unhandled = async (type: string) => {
      const scraped = await fetch(`${h.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const metrics = parseExposition(await scraped.text());
      return sumOf(metrics, 'cdn_chatops_slack_deliveries_unhandled_total', { type });
    };
    return { h, unhandled };
  };
  const interaction = (h: Harness, name: string, live: Json) =>
    h.post(form({ payload: JSON.stringify(over(fixture(name), live)) }), FORM);
  const event = (h: Harness, event: Json, headers?: Record<string, string>, eventId = 'Ev0001') =>
    h.post(
      JSON.stringify(
        over(fixture('event-callback'), { team_id: h.workspaceId, event_id: eventId, event }),
      ),
      'application/json',
      headers ? { headers } : {},
    );

  /** /cdn <text>, as Slack posts it. */
  const command = (h: Harness, live: SlackPayloads, text: string) =>
    h.post(
      form(
        over(
          fixture('slash-command'),
          // The text as Slack sends it: each test writes it already escaped.
          live.slashCommand(text, { user: MEMBER, channel: CHANNEL, raw: true }),
        ),
      ),
      FORM,
    );

  it('a command with escaped text is read as typed', async () => {
    const { h, live } = await start();
    // should_escape (manifest.yml): Slack sends a typed domain as a link, <http://example.com|example.com>
    // (https://api.slack.com/interactivity/slash-commands, "Escaping").
    expectAckInTime(await command(h, live, 'purge <http://example.com|example.com> everything'));
    // The confirmation form opens, or (misread) the bot answers: whichever comes first.
    await Promise.race([
      h.slack.waitForCalls((c) => c.method === 'views.open'),
      h.slack.waitForMessages((m) => m.via === 'response_url'),
    ]);
    expect(h.slack.messages.map((m) => m.text)).toEqual([]);
    expect(JSON.stringify(h.slack.callsTo('views.open')[0]?.args.view)).toContain('example.com');
    expectAllAccepted(h);
  });

  it('a command, a form refused inline then sent, a button: acks Slack accepts', async () => {
    const { h, live } = await start();
    expectAckInTime(await command(h, live, 'purge example.com everything'));
    const viewId = viewIdOf((await h.slack.waitForCalls((c) => c.method === 'views.open'))[0]);

    const values = (typed: string) => ({
      [PURGE_IDS.confirmBlock]: {
        [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: typed },
      },
      [PURGE_IDS.reasonBlock]: {
        [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'A bad deploy' },
      },
    });
    const refused = await interaction(
      h,
      'view-submission',
      live.viewSubmission(viewId, values('example.org'), { user: MEMBER }),
    );
    expectAckInTime(refused);
    expect(expectValidSubmissionAck(h, viewId, refused.body)?.response_action).toBe('errors');

    const sent = await interaction(
      h,
      'view-submission',
      live.viewSubmission(viewId, values('example.com'), { user: MEMBER }),
    );
    expectAckInTime(sent);
    expectValidSubmissionAck(h, viewId, sent.body);
    const [request] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && (m.text?.includes('Approval needed') ?? false),
    );
    if (!request) throw new Error('no approval request');

    const before = h.slack.callsTo('views.open').length;
    expectAckInTime(
      await interaction(
        h,
        'block-actions',
        live.blockAction(request, APPROVAL_IDS.approve, { user: ADMIN }),
      ),
    );
    await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
    expectAllAccepted(h);
  });

  it('view_closed is acknowledged within 3 s', async () => {
    const { h } = await start();
    await h.command('purge example.com everything');
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const view = opened?.response.view as Json;
    const closed = over(fixture('view-closed'), {
      user: { id: MEMBER, team_id: h.workspaceId },
      team: { id: h.workspaceId },
      view: { ...view, id: view.id },
    });
    expectAckInTime(await h.post(form({ payload: JSON.stringify(closed) }), FORM));
    expectAllAccepted(h);
  });

  it('a message shortcut on a message with a link: acked, and its calls accepted', async () => {
    const { h, live } = await start();
    const said = h.slack.postAsUser(CHANNEL, MEMBER, 'stale: <https://example.com/app.css>');
    const shortcut = live.messageShortcut(
      PURGE_IDS.shortcut,
      { channel: CHANNEL, ts: said.ts, text: said.text ?? '', user: MEMBER },
      { user: MEMBER },
    );
    expectAckInTime(await interaction(h, 'message-action', shortcut));
    await h.slack.waitForCalls(
      (c) => c.method === 'views.open' || c.method === 'chat.postEphemeral',
    );
    expectAllAccepted(h);
  });

  it('block_suggestion: the options ack is one Slack can show', async () => {
    const { h, live } = await start();
    const answer = await interaction(
      h,
      'block-suggestion',
      live.blockSuggestion(ZONE_PICKER_IDS.action, 'exa', { user: MEMBER, blockId: 'zone' }),
    );
    expectAckInTime(answer);
    const options = JSON.parse(answer.body) as Json;
    expect(validateOptions(options)).toEqual([]);
    expect(JSON.stringify(options)).toContain('example.com');
  });

  it('app_home_opened publishes the Home once, though Slack retries the event', async () => {
    const { h } = await start();
    const opened = { ...fixture('app-home-opened'), user: MEMBER };
    expectAckInTime(await event(h, opened));
    await h.slack.waitForCalls((c) => c.method === 'views.publish');
    // Slack's retry of the same event: x-slack-retry-num / retry_attempt
    // (https://api.slack.com/apis/events-api#retries; Socket Mode: retry_attempt, retry_reason).
    const retried = await event(h, opened, {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    });
    expectAckInTime(retried);
    await h.logs.waitFor('repeated delivery acknowledged');
    expect(h.slack.callsTo('views.publish')).toHaveLength(1);
    expectAllAccepted(h);
  });

  it('function_executed, as Slack documents it, runs the step and ends it', async () => {
    const { h } = await start();
    const { execution } = h.slack.runStep(STEP_IDS.traffic, {});
    const executed = over(fixture('function-executed'), {
      function: { callback_id: STEP_IDS.traffic, app_id: 'A0FAKE' },
      inputs: { user_id: MEMBER, zone: 'example.com', window: '1h' },
      function_execution_id: execution.id,
      bot_access_token: execution.token,
    });
    expectAckInTime(await event(h, executed));
    await h.slack.waitForCalls((c) => c.method === 'functions.completeSuccess');
    expect(execution.outputs).toMatchObject({ zone: 'example.com' });
    expectAllAccepted(h);
  });

  it.runIf(!socket)('url_verification: the challenge is echoed', async () => {
    // Only over HTTP: Socket Mode has no request URL to verify.
    const { h } = await start();
    const challenge = fixture('url-verification');
    const answer = await h.post(JSON.stringify(challenge), 'application/json');
    expectAckInTime(answer);
    // Slack takes the challenge as plain text, form or JSON (https://api.slack.com/apis/http).
    expect(answer.body).toContain(String(challenge.challenge));
  });

  it.runIf(!socket)(
    'app_rate_limited (no inner event): 200 at once, logged and counted',
    async () => {
      // The docs call it "Events API-only" and show it posted to the request URL; whether Socket Mode
      // carries it, and in which envelope, is not documented, so it is sent over HTTP only.
      const { h, unhandled } = await startCounted();
      const limited = fixture('app-rate-limited');
      const answer = await h.post(
        JSON.stringify({ ...limited, team_id: h.workspaceId }),
        'application/json',
      );
      expectAckInTime(answer);
      expect(answer.body).toBe('');
      expect(await unhandled('app_rate_limited')).toBe(1);
      const line = await h.logs.waitFor('a delivery no listener answered');
      expect(JSON.parse(line)).toMatchObject({ type: 'app_rate_limited', level: 40 });
      // The envelope's token and fields are not logged, only its type.
      expect(h.logs.text()).not.toContain(String(limited.token));
      expect(h.logs.text()).not.toContain(String(limited.minute_rate_limited));
    },
  );

  it('an event no listener takes: acknowledged, logged and counted by its type', async () => {
    const { h, unhandled } = await startCounted();
    const message = { type: 'message', channel: CHANNEL, user: MEMBER, text: 'hi', ts: '1.2' };
    expectAckInTime(await event(h, message));
    await h.logs.waitFor('an event no listener handles');
    expect(await unhandled('event:message')).toBe(1);
    expect(h.logs.text()).not.toContain('"text":"hi"');
  });

  // Over HTTP, test/e2e/uninstall.test.ts covers both events in full.
  it.runIf(socket)('app_uninstalled and tokens_revoked remove the workspace data', async () => {
    const { h } = await start();
    expectAckInTime(
      await event(h, { type: 'tokens_revoked', tokens: { oauth: [], bot: ['UBOT'] } }),
    );
    await h.logs.waitFor('workspace access revoked');
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
    await h.login();
    expectAckInTime(await event(h, { type: 'app_uninstalled' }, undefined, 'Ev0002'));
    await h.logs.waitFor('"keyDeleted":true');
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });
});
