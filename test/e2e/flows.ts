// Multi-step flows several e2e tests share.
import { expect } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS, TOKENS_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import type { InstallGrant } from '../../src/dev/fake-slack/auth.js';
import type { ApiCall, FunctionExecution, Message } from '../../src/dev/fake-slack/server.js';
import type { FakeView } from '../../src/dev/fake-slack/types.js';
import type { TrafficShape } from '../../src/dev/sandbox/traffic.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, viewIdOf } from './harness.js';

const MINUTE = 60_000;

/** The app's OAuth client, known to the fake Slack (`slack: { oauth: OAUTH }`) and the bot. */
export const OAUTH = { clientId: '1111.2222', clientSecret: 'oauth-client-secret' };
/** The bot's settings for OAuth installs (`env: OAUTH_ENV`). */
export const OAUTH_ENV = {
  SLACK_CLIENT_ID: OAUTH.clientId,
  SLACK_CLIENT_SECRET: OAUTH.clientSecret,
  SLACK_STATE_SECRET: 'state-secret-for-tests',
};

/**
 * A browser going through the install: the app's install page, Slack's authorize page (where
 * `grant` approves, or cancels with `deny`), then back to the app's redirect URL with the state
 * cookie the install page set. Resolves with the last page: its status and HTML.
 */
export async function installThroughBrowser(
  h: Harness,
  grant: InstallGrant | 'deny',
): Promise<{ status: number; html: string }> {
  h.slack.setOAuthRedirect(`${h.url}/slack/oauth_redirect`);
  h.slack.signInForInstall(grant);
  const install = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  expect(install.status).toBe(302);
  const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = await fetch(install.headers.get('location') ?? '', { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const back = await fetch(authorize.headers.get('location') ?? '', { headers: { cookie } });
  return { status: back.status, html: await back.text() };
}

/** Installs the app into `teamId` as Slack's OAuth flow does, over HTTP, by ADMIN. */
export async function installOverOAuth(h: Harness, teamId = h.workspaceId): Promise<void> {
  const done = await installThroughBrowser(h, { teamId, userId: ADMIN });
  expect(done.status).toBe(200);
}

export const everythingRequests = (h: Harness) =>
  h.sandbox.requests.filter(
    (r) =>
      r.path.endsWith('/purge') &&
      (r.body as { purge_everything?: boolean }).purge_everything === true,
  );

/**
 * Runs `/cdn <text>` (as MEMBER in CHANNEL unless told); resolves with the answer it gets next
 * by response_url (answers to earlier commands are not taken for it).
 */
export async function commandReply(
  h: Harness,
  text: string,
  options?: Parameters<Harness['command']>[1],
): Promise<Message> {
  const byUrl = (m: Message) => m.via === 'response_url';
  const before = h.slack.messages.filter(byUrl).length;
  await h.command(text, options);
  const reply = (await h.slack.waitForMessages(byUrl, before + 1))[before];
  if (!reply) throw new Error(`no answer to /cdn ${text}`);
  return reply;
}

/** The next message shown only to `user` after `act`: its text ('' when it has none). */
export async function answerTo(
  h: Harness,
  user: string,
  act: () => Promise<unknown>,
): Promise<string> {
  const mine = (m: { ephemeralTo?: string }) => m.ephemeralTo === user;
  const before = h.slack.messages.filter(mine).length;
  await act();
  const all = await h.slack.waitForMessages(mine, before + 1);
  return all[before]?.text ?? '';
}

/** `user` opens the App Home (from `channel`, their DM with the app); resolves with the view published. */
export async function openHome(h: Harness, user: string, channel = 'D1'): Promise<FakeView> {
  const before = h.slack.callsTo('views.publish').length;
  await h.event({ type: 'app_home_opened', user, channel, tab: 'home' });
  await h.slack.waitForCalls((c) => c.method === 'views.publish', before + 1);
  const home = h.slack.homes.get(user);
  if (!home) throw new Error(`no App Home published for ${user}`);
  return home;
}

/** Runs `act` (a command, a click); resolves with the id of the modal it opens (the next one). */
export async function modalOpenedBy(h: Harness, act: () => Promise<unknown>): Promise<string> {
  const before = h.slack.callsTo('views.open').length;
  await act();
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  return viewIdOf(calls[before]);
}

/** Runs `/cdn <text>` (as MEMBER in CHANNEL unless told); resolves with the id of the modal it opens. */
export function openForm(
  h: Harness,
  text: string,
  options?: Parameters<Harness['command']>[1],
): Promise<string> {
  return modalOpenedBy(h, () => h.command(text, options));
}

/** The purge form's values: `items` (URLs, one a line) on example.com. */
export function purgeFormValues(h: Harness, items: string) {
  const zone = h.sandbox.state.byName('example.com');
  return {
    [PURGE_IDS.zoneBlock]: {
      [ZONE_PICKER_IDS.action]: {
        type: 'external_select',
        selected_option: { value: zone?.id, text: { type: 'plain_text', text: 'example.com' } },
      },
    },
    [PURGE_IDS.modeBlock]: {
      [PURGE_IDS.modeInput]: { type: 'radio_buttons', selected_option: { value: 'urls' } },
    },
    [PURGE_IDS.itemsBlock]: { [PURGE_IDS.itemsInput]: { type: 'plain_text_input', value: items } },
  };
}

/** MEMBER asks to purge everything on example.com; resolves with the request message in the channel. */
export async function requestEverything(
  h: Harness,
  reason = 'Bad deploy cached a broken bundle',
): Promise<Message> {
  const viewId = await openForm(h, 'purge example.com everything', { user: MEMBER });
  const values = (typed: string, why: string) => ({
    [PURGE_IDS.confirmBlock]: {
      [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: typed },
    },
    [PURGE_IDS.reasonBlock]: { [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: why } },
  });
  const wrongName = JSON.parse(
    (await h.submit(viewId, values('example.org', reason), { user: MEMBER })).body,
  );
  expect(wrongName.errors[PURGE_IDS.confirmBlock]).toBe('Type example.com exactly to confirm.');
  const noReason = JSON.parse(
    (await h.submit(viewId, values('example.com', '  '), { user: MEMBER })).body,
  );
  expect(noReason.errors[PURGE_IDS.reasonBlock]).toContain('Say why');
  expect((await h.submit(viewId, values('Example.com', reason), { user: MEMBER })).body).toBe('');
  const [message] = await h.slack.waitForMessages(
    (m) =>
      m.via === 'api' &&
      m.channel === CHANNEL &&
      !m.deleted &&
      (m.text?.includes('Approval needed') ?? false),
  );
  if (!message) throw new Error('no request message');
  return message;
}

/** The workspace's requests still pending, read from the table (the bot never lists them). */
export function pendingApprovals(h: Harness) {
  return h.store.db
    .selectFrom('approvals')
    .select('id')
    .where('workspace_id', '=', h.workspaceId)
    .where('status', '=', 'pending')
    .execute();
}

export function openApprove(h: Harness, message: Message, user: string): Promise<string> {
  return modalOpenedBy(h, () => h.click(message, APPROVAL_IDS.approve, { user }));
}

/** One interval passes: the tick queues what is due, and the runner runs it all. */
export async function interval(h: Harness, times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    h.clock.advance(MINUTE);
    await h.deps.watchEvaluation.tick();
    await h.deps.runner.settled();
  }
}

export const alerts = (h: Harness) =>
  h.slack.messages.filter(
    (m) => m.via === 'api' && m.channel === CHANNEL && !m.threadTs && m.text?.includes('·'),
  );
export const thread = (h: Harness, alert: Message) =>
  h.slack.messages.filter((m) => m.threadTs === alert.ts).map((m) => m.text ?? '');

export async function watching(h: Harness, zone: string, extra = ''): Promise<string> {
  await h.login();
  await h.command(`watch ${zone}${extra}`);
  const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
  const found = h.sandbox.state.byName(zone);
  if (!found) throw new Error(`no zone ${zone}`);
  expect(reply?.text).toContain('Watching');
  // The first interval reads the baseline; nothing unusual yet.
  await interval(h, 2);
  expect(alerts(h)).toEqual([]);
  return found.id;
}

/** A shape starting at the next whole minute, for `minutes`. */
export function shape(
  h: Harness,
  zoneId: string,
  minutes: number,
  kind: TrafficShape['kind'],
  factor?: number,
) {
  const from = Math.ceil(h.clock.now() / MINUTE) * MINUTE - MINUTE;
  const to = from + minutes * MINUTE;
  h.sandbox.state.shape(zoneId, {
    kind,
    from,
    to,
    ...(factor === undefined ? {} : { factor }),
  } as TrafficShape);
}

/**
 * The form's values: a name, its CDN account (the select's value: an account's id, or every
 * account's), zones picked (by id, as the zone picker gives them, or `<account>/<id>` as given),
 * "all zones", kinds, a channel.
 */
export function tokenFormValues(
  h: Harness,
  options: {
    name: string;
    account: string;
    zones: string[];
    allZones?: boolean;
    kinds: string[];
    channel?: string;
  },
) {
  const ids = options.zones.map((name) =>
    name.includes('/') ? name : (h.sandbox.state.byName(name)?.id ?? name),
  );
  return {
    [TOKENS_IDS.nameBlock]: {
      [TOKENS_IDS.nameInput]: { type: 'plain_text_input', value: options.name },
    },
    [TOKENS_IDS.accountBlock]: {
      [TOKENS_IDS.accountInput]: {
        type: 'static_select',
        selected_option: { value: options.account, text: { type: 'plain_text', text: 'x' } },
      },
    },
    [TOKENS_IDS.zonesBlock]: {
      [ZONE_PICKER_IDS.action]: {
        type: 'multi_external_select',
        selected_options: ids.map((value) => ({
          value,
          text: { type: 'plain_text', text: value },
        })),
      },
    },
    [TOKENS_IDS.allZonesBlock]: {
      [TOKENS_IDS.allZonesInput]: {
        type: 'checkboxes',
        selected_options: options.allZones ? [{ value: 'all' }] : [],
      },
    },
    [TOKENS_IDS.kindsBlock]: {
      [TOKENS_IDS.kindsInput]: {
        type: 'checkboxes',
        selected_options: options.kinds.map((value) => ({ value })),
      },
    },
    [TOKENS_IDS.channelBlock]: {
      [TOKENS_IDS.channelInput]: {
        type: 'conversations_select',
        selected_conversation: options.channel ?? null,
      },
    },
  };
}

/** The token form's CDN account select, as views.open was given it. */
export function accountSelectOf(call: { args: Record<string, unknown> } | undefined) {
  const view = call?.args.view as { blocks: Array<{ block_id?: string; element?: unknown }> };
  const block = view.blocks.find((b) => b.block_id === TOKENS_IDS.accountBlock);
  return block?.element as {
    options: Array<{ value: string; text: { text: string } }>;
    initial_option?: { value: string };
  };
}

/**
 * The step's end as Slack took it (functions.completeSuccess or completeError). A waiting step
 * looks at its purge or approval again every 2 s of the bot's clock: the clock moves meanwhile.
 */
export async function stepEnd(h: Harness, execution: FunctionExecution): Promise<ApiCall> {
  const ended = h.slack.waitForCalls(
    (call) =>
      call.method.startsWith('functions.complete') &&
      call.args.function_execution_id === execution.id &&
      call.response.ok === true,
  );
  const tick = setInterval(() => h.clock.advance(2_000), 100);
  try {
    const [call] = await ended;
    if (!call) throw new Error('no end');
    return call;
  } finally {
    clearInterval(tick);
  }
}

/** A workflow runs the app's step `callbackId`: its execution, once the event was delivered. */
export async function runStep(h: Harness, callbackId: string, inputs: Record<string, unknown>) {
  const { execution, event } = h.slack.runStep(callbackId, inputs);
  expect((await h.event(event)).status).toBe(200);
  return execution;
}
