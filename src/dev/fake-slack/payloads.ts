// The payloads Slack sends an app (slash commands, interactions, events), built the way Slack
// builds them, with trigger ids and response_urls minted by the fake Slack. The e2e harness signs
// and POSTs them; the local console hands them to the app directly.
import { escapeTyped } from './escape.js';
import type { FakeSlack, Message } from './server.js';

type Json = Record<string, unknown>;

/** The button (or other element) with this action id, and its block's id. */
export function findAction(
  blocks: unknown[],
  actionId: string,
): { blockId: string; element: Json } {
  for (const block of blocks as Json[]) {
    const elements = [
      ...((block.elements as Json[] | undefined) ?? []),
      ...(block.accessory ? [block.accessory as Json] : []),
    ];
    const element = elements.find((e) => e.action_id === actionId);
    if (element) return { blockId: String(block.block_id ?? 'b'), element };
  }
  throw new Error(`no ${actionId} element here`);
}

/**
 * Their fields are those of Slack's recorded payloads (slackapi/java-slack-sdk json-logs/samples/
 * app-backend: slash-commands/SlashCommandPayload.json, interactive-components/
 * BlockActionPayload.json, views/ViewSubmissionPayload.json, message-actions/
 * MessageActionPayload.json; events/*Payload.json), reduced to what the bot reads: the contract
 * tests (test/e2e/contract.test.ts) send the whole recorded shapes (test/fixtures/slack).
 */
export class SlackPayloads {
  constructor(
    private readonly slack: FakeSlack,
    private readonly teamId: string,
  ) {}

  /**
   * Who acted: `user.team_id` is the person's own workspace, which for someone of another
   * organization in a Slack Connect channel is theirs, not the app's ("Details for the user that
   * initiated the interaction": https://docs.slack.dev/reference/interaction-payloads/block_actions-payload;
   * slackapi/bolt-python#767: a shared channel's people of other workspaces reach the app with
   * their own team). `team` stays the app's workspace here: Bolt then authorizes the request as
   * the app's, the case where the bot must check the person itself. In a workspace of a Grid
   * organization, `team.enterprise_id` and `enterprise` name the workspace's organization and
   * `is_enterprise_install` is false for a workspace install (the fields of BlockActionPayload.json;
   * slackapi/bolt-python tests/slack_bolt/request/test_internals.py: `team: {"id": "T111",
   * "enterprise_id": "E111"}`, `enterprise: {"id": "E111"}`, `"is_enterprise_install": False`).
   */
  #who(user: string) {
    const teamId = this.slack.users.get(user)?.teamId ?? this.teamId;
    const org = this.slack.enterpriseId;
    // Installed for the whole organization: `team` is null, `enterprise` and
    // `is_enterprise_install: true` say which install it is (the org-level app's payload of
    // slackapi/bolt-python#23: `'team': None`, `'is_enterprise_install': True`, `'user': {'id':
    // 'Wxxx', 'team_id': 'Txxx'}`; bolt-js buildSource: "When the app is installed using org-wide
    // deployment, team property will be null").
    if (org && this.slack.orgWideInstall)
      return {
        user: { id: user, team_id: teamId, username: user },
        team: null,
        enterprise: { id: org, name: 'Fake Org' },
        is_enterprise_install: true,
      };
    return {
      user: { id: user, team_id: teamId, username: user },
      team: { id: this.teamId, domain: 'fake', ...(org ? { enterprise_id: org } : {}) },
      ...(org ? { enterprise: { id: org, name: 'Fake Org' }, is_enterprise_install: false } : {}),
    };
  }

  /** An org-wide install's mark on a command: the string "true" (Bolt's isBodyWithTypeEnterpriseInstall). */
  #commandInstall(): Record<string, string> {
    return this.slack.enterpriseId && this.slack.orgWideInstall
      ? { is_enterprise_install: 'true' }
      : {};
  }

  #actionTs(): string {
    return String(Date.now() / 1000);
  }

  /**
   * The form fields of a slash command. `text` is what the person typed: it arrives escaped as
   * the manifest's `should_escape: true` makes Slack send it (see escape.ts), unless `raw` (a test
   * of text Slack itself could never send).
   */
  slashCommand(
    text: string,
    options: { user: string; channel: string; team?: string; command?: string; raw?: boolean },
  ): Record<string, string> {
    return {
      token: 'legacy-unused',
      team_id: options.team ?? this.teamId,
      team_domain: 'fake',
      // A command from a Grid workspace names its organization (the command of test_internals.py).
      ...(this.slack.enterpriseId ? { enterprise_id: this.slack.enterpriseId } : {}),
      ...this.#commandInstall(),
      channel_id: options.channel,
      channel_name: options.channel,
      user_id: options.user,
      user_name: options.user,
      command: options.command ?? '/cdn',
      text: options.raw ? text : escapeTyped(text, this.slack),
      api_app_id: 'A0FAKE',
      response_url: this.slack.mintResponseUrl(options.channel, options.user, { kind: 'command' }),
      trigger_id: this.slack.mintTrigger(options.user),
    };
  }

  /**
   * A click on a button of a message: `container.type: "message"`, the message, a trigger and a
   * response_url tied to the message (BlockActionPayload.json; an action's response_url may
   * replace or delete that message: response-urls.ts).
   */
  blockAction(message: Message, actionId: string, options: { user: string }): Json {
    const action = findAction(message.blocks ?? [], actionId);
    return {
      type: 'block_actions',
      ...this.#who(options.user),
      api_app_id: 'A0FAKE',
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: !!message.ephemeralTo,
      },
      channel: { id: message.channel, name: message.channel },
      message: { ts: message.ts, text: message.text, blocks: message.blocks },
      trigger_id: this.slack.mintTrigger(options.user),
      response_url: this.slack.mintResponseUrl(message.channel, options.user, {
        kind: 'action',
        message,
      }),
      actions: [{ ...action.element, block_id: action.blockId, action_ts: this.#actionTs() }],
    };
  }

  /** A click on a button of a view (a modal or the App Home): `container.type: "view"`, no response_url (BlockActionPayload.json). */
  viewAction(viewId: string, actionId: string, options: { user: string; value?: string }): Json {
    const view =
      this.slack.views.get(viewId) ??
      [...this.slack.homes.values()].find((home) => home.id === viewId);
    if (!view) throw new Error(`no view ${viewId}`);
    const action = findAction((view.view.blocks as unknown[]) ?? [], actionId);
    return {
      type: 'block_actions',
      ...this.#who(options.user),
      api_app_id: 'A0FAKE',
      container: { type: 'view', view_id: viewId },
      view: { ...view.view, id: viewId, hash: view.hash },
      trigger_id: this.slack.mintTrigger(options.user),
      actions: [
        {
          ...action.element,
          ...(options.value ? { value: options.value } : {}),
          block_id: action.blockId,
          action_ts: this.#actionTs(),
        },
      ],
    };
  }

  /**
   * A modal submitted with `values[block_id][action_id]` (view.state.values), a new trigger_id for
   * each press (ViewSubmissionPayload.json; https://api.slack.com/reference/interaction-payloads/views).
   */
  viewSubmission(
    viewId: string,
    values: Record<string, Record<string, unknown>>,
    options: { user: string },
  ): Json {
    const view = this.slack.views.get(viewId);
    if (!view) throw new Error(`no view ${viewId}`);
    return {
      type: 'view_submission',
      ...this.#who(options.user),
      api_app_id: 'A0FAKE',
      trigger_id: this.slack.mintTrigger(options.user),
      view: { ...view.view, id: viewId, hash: view.hash, state: { values } },
    };
  }

  /**
   * A modal the person closed, for one opened with `notify_on_close`
   * (json-logs/samples/app-backend/views/ViewClosedPayload.json: the view as it stood, and
   * `is_cleared`, true when the whole stack was closed).
   */
  viewClosed(viewId: string, options: { user: string }): Json {
    const view = this.slack.views.get(viewId);
    if (!view) throw new Error(`no view ${viewId}`);
    return {
      type: 'view_closed',
      ...this.#who(options.user),
      api_app_id: 'A0FAKE',
      view: { ...view.view, id: viewId, hash: view.hash, state: { values: {} } },
      is_cleared: false,
    };
  }

  /**
   * Type-ahead in an external select (of an open modal, when `viewId` is given): action_id,
   * block_id and the typed `value` (https://api.slack.com/reference/interaction-payloads/block_suggestion).
   */
  blockSuggestion(
    actionId: string,
    value: string,
    options: { user: string; blockId?: string; viewId?: string },
  ): Json {
    const view = options.viewId ? this.slack.views.get(options.viewId) : undefined;
    return {
      type: 'block_suggestion',
      ...this.#who(options.user),
      api_app_id: 'A0FAKE',
      action_id: actionId,
      block_id: options.blockId ?? 'b',
      value,
      ...(view
        ? {
            container: { type: 'view', view_id: view.id },
            view: { ...view.view, id: view.id, hash: view.hash },
          }
        : {}),
    };
  }

  /**
   * A message shortcut run on `message`, whose `text` is what its author typed: the payload carries
   * it formatted as Slack stores a message's text (links, mentions, entities: escape.ts), unless
   * `raw` (text already formatted, as a bot may post it).
   *
   * An integration's message (`botId`) carries its `blocks` and `attachments` as posted, beside
   * `bot_id`; one posted with blocks and no text has "This content can't be displayed." as its
   * text (slackapi/java-slack-sdk slack-api-client/src/test/java/util/socket_mode/
   * MockSocketMode.java, a bot's message in a block_actions payload; the same text in the message
   * of https://docs.slack.dev/reference/interaction-payloads/block_actions-payload's example).
   * Fields as in json-logs/samples/app-backend/interactive-components/MessageShortcutPayload.json.
   */
  messageShortcut(
    callbackId: string,
    message: {
      channel: string;
      ts: string;
      text: string;
      user?: string;
      botId?: string;
      blocks?: Json[];
      attachments?: Json[];
    },
    options: { user: string; raw?: boolean },
  ): Json {
    const { blocks, attachments, botId } = message;
    const text =
      message.text === '' && blocks?.length
        ? "This content can't be displayed."
        : options.raw || botId
          ? message.text
          : escapeTyped(message.text, this.slack);
    return {
      type: 'message_action',
      callback_id: callbackId,
      ...this.#who(options.user),
      api_app_id: 'A0FAKE',
      channel: { id: message.channel, name: message.channel },
      message: {
        type: 'message',
        ts: message.ts,
        text,
        user: message.user ?? 'UAUTHOR',
        ...(botId ? { bot_id: botId } : {}),
        ...(blocks ? { blocks } : {}),
        ...(attachments ? { attachments } : {}),
      },
      message_ts: message.ts,
      trigger_id: this.slack.mintTrigger(options.user),
      response_url: this.slack.mintResponseUrl(message.channel, options.user, { kind: 'shortcut' }),
    };
  }

  /** An Events API callback: the `event_callback` wrapper with a unique event_id (events/AppHomeOpenedPayload.json). */
  eventCallback(event: Json): Json {
    const org = this.slack.enterpriseId;
    return {
      token: 'legacy-unused',
      team_id: this.teamId,
      ...(org ? { enterprise_id: org } : {}),
      api_app_id: 'A0FAKE',
      type: 'event_callback',
      event_id: `Ev${Math.random().toString(36).slice(2)}`,
      event_time: Math.floor(Date.now() / 1000),
      event,
      // Whom the event is for: an org-wide install names the organization and no team
      // (slackapi/bolt-python tests/scenario_tests/test_events_org_apps.py: `authorizations:
      // [{enterprise_id: "E111", team_id: None, is_bot: True, is_enterprise_install: True}]`).
      ...(org && this.slack.orgWideInstall
        ? {
            authorizations: [
              {
                enterprise_id: org,
                team_id: null,
                user_id: this.slack.botUserId,
                is_bot: true,
                is_enterprise_install: true,
              },
            ],
          }
        : {}),
    };
  }
}
