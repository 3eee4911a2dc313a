// The shapes the fake Slack records and is configured with, shared by its modules.
import type { Clock } from '../../clock.js';
import type { FaultHit } from './faults.js';

/** A person, as users.info shows them (fields: slack_web_openapi_v2.json, /users.info). */
export interface FakeUser {
  id: string;
  name: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  /** An admin, or owner, of their Grid organization (users.info `enterprise_user.is_admin` / `is_owner`). */
  isOrgAdmin?: boolean;
  isOrgOwner?: boolean;
  /** IANA time zone, e.g. Europe/Paris. */
  tz?: string;
  /** Their own workspace, when it is not the one asking (a shared channel's other side). */
  teamId?: string;
  /** Whether Slack calls them a stranger (is_stranger: an external user this workspace can't see well). */
  isStranger?: boolean;
  /** Their Enterprise Grid organization, if any. */
  enterpriseId?: string;
  /** A multi-channel guest (users.info `is_restricted`). */
  isRestricted?: boolean;
  /** A single-channel guest (users.info `is_ultra_restricted`). */
  isUltraRestricted?: boolean;
  /** A deactivated account (users.info `deleted: true`; conversations.open refuses `user_disabled`). */
  deleted?: boolean;
  /** Their e-mail address (users.info `profile.email`), which users.lookupByEmail finds them by. */
  email?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  /**
   * Whether the bot is a member (conversations.info's is_member); a post where it is not is refused
   * not_in_channel; false once it is removed (chat.postMessage's errors, slack_web_openapi_v2.json).
   */
  botMember: boolean;
  archived?: boolean;
  /** A private channel: to an app that is not in it, it does not exist (`channel_not_found`). */
  isPrivate?: boolean;
  /** A DM (`im`) or group DM (`mpim`) between people, which the app is part of only if added. */
  kind?: 'im' | 'mpim';
  /** The people in it, the bot aside; when not given, everyone in the workspace. */
  members?: string[];
  /**
   * Who may post is restricted, the bot not among them: `read_only` refuses every message
   * (restricted_action_read_only_channel), `thread_only` a message outside a thread
   * (restricted_action_thread_only_channel), as chat.postMessage's errors say
   * (https://docs.slack.dev/reference/methods/chat.postMessage; the same codes in
   * slackapi/slack-api-specs web-api/slack_web_openapi_v2.json, /chat.scheduleMessage, which
   * "behaves identically to chat.postMessage").
   */
  postingRestricted?: 'read_only' | 'thread_only';
}

/** A Web API method's arguments or answer. */
export type Args = Record<string, unknown>;

/** Who a valid token belongs to. */
export interface Identity {
  teamId: string;
  botUserId: string;
  /** The workspace's Enterprise Grid organization, when it is in one (auth.test `enterprise_id`). */
  enterpriseId?: string;
  /** A token of an organization-wide install (auth.test `is_enterprise_install: true`). */
  orgWide?: boolean;
}

export interface ApiCall {
  method: string;
  args: Args;
  response: Args;
  /** The team whose token made the call, when the token was valid. */
  teamId?: string;
  /** When it came, on the fake's clock, and its place among the calls answered (with RefusedCall's). */
  at: number;
  seq: number;
}

/**
 * A Web API call answered 429 (by a rate limit, or a fault injected with that status): when, on
 * the fake's clock, and the Retry-After it was told (seconds). Bookkeeping for tests.
 */
export interface RefusedCall {
  method: string;
  args: Args;
  at: number;
  seq: number;
  retryAfterSeconds: number;
  by: 'limit' | 'fault';
}

/**
 * A POST to a response_url and Slack's answer: 200 `ok`, or a 4xx with the error as plain text
 * (`invalid_blocks`, `expired_url`, `used_url`), not a Web API JSON body
 * (https://docs.slack.dev/interactivity/handling-user-interaction#message_responses; the SDK's
 * webhook client reads a status and a text body: slackapi/python-slack-sdk
 * slack_sdk/webhook/client.py, WebhookResponse).
 */
export interface ResponseUrlPost {
  url: string;
  body: Args | undefined;
  status: number;
  /** The plain-text body Slack answered: `ok`, or the error. */
  answer: string;
}

export interface Message {
  channel: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  /** Who posted it: `api` (the bot), `response_url`, or `user` (a person, in the console). */
  via: 'api' | 'response_url' | 'user';
  /** The person who posted a `user` message. */
  user?: string;
  ephemeralTo?: string;
  threadTs?: string;
  deleted: boolean;
  /** Previous versions, oldest first. */
  history: Array<{ text?: string; blocks?: unknown[] }>;
}

export interface FakeView {
  id: string;
  hash: string;
  userId: string;
  view: Args;
  /** The person closed the modal (views.ts: views.update then answers not_found). */
  closed?: boolean;
}

export interface UploadedFile {
  id: string;
  filename: string;
  bytes: Buffer;
  channel?: string;
  /** Set by files.completeUploadExternal: before it the upload is no file yet. */
  completed?: boolean;
  /** When Slack has processed the completed file (the fake's clock): from then on, blocks may show it. */
  readyAt?: number;
  /** The ts of the message that shared it in `channel`. */
  shareTs?: string;
  title?: string;
  initialComment?: string;
}

/** What the fake Slack emits: each API call, and each message posted, changed or deleted. */
export type SlackEvents = {
  call: [ApiCall];
  /** A POST to a response_url, answered. */
  responseUrlPost: [ResponseUrlPost];
  response: [Message];
  /** A fault was injected on a call; then (a hang) its caller gave up. */
  fault: [FaultHit];
  abandoned: [FaultHit];
};

export interface FakeSlackOptions {
  clock?: Clock;
  teamId?: string;
  /**
   * The Enterprise Grid organization the workspace is in (a workspace install in it), if any: its
   * id rides in every payload (`enterprise`, `team.enterprise_id`, a command's `enterprise_id`),
   * auth.test's `enterprise_id`, and the `enterprise_user` of the workspace's own people.
   */
  enterpriseId?: string;
  /**
   * The app is installed for that whole organization (an org-wide install), not in the workspace
   * alone: interactions carry `team: null` and `is_enterprise_install: true`, commands
   * `is_enterprise_install=true`, events an org-wide `authorizations` entry (payloads.ts).
   */
  orgWideInstall?: boolean;
  botToken?: string;
  botUserId?: string;
  /** Extra accepted tokens (OAuth installs), each of one team. */
  tokens?: Record<string, Identity>;
  /**
   * The app's OAuth credentials, for oauth.v2.access; its redirect URL (the app config's, where
   * the authorize page sends the person back); whether its tokens rotate (`token_rotation_enabled`).
   */
  oauth?: { clientId: string; clientSecret: string; redirectUrl?: string; tokenRotation?: boolean };
  /**
   * Socket Mode: the app-level token, and the WebSocket URL apps.connections.open hands out
   * (default: the fake's own, which says hello and delivers envelopes: FakeSlack.deliver).
   */
  socket?: { appToken: string; url?: string };
  /**
   * Slack's published rate tiers (rate-limit.ts): each method's calls a minute per workspace, past
   * which a call is answered 429 with Retry-After. Default on: tests stay far below every tier.
   */
  rateLimits?: boolean;
  /**
   * Slack's one post a second per channel (429 with Retry-After). Default off: tests run on a
   * manual clock that stands still, so a second post in a channel would wait forever (with it on,
   * 2 of 26 tests of watch/purge/report/home failed so); the console, on the wall clock, and the
   * benchmarks turn it on.
   */
  channelRateLimit?: boolean;
  /**
   * Calls a minute per workspace, by method (TIER_4_FILE_METHODS for the file methods), past which
   * a call is answered 429 with Retry-After; added to (or overriding) `rateLimits`' tiers.
   */
  methodRateLimits?: Record<string, number>;
  /**
   * How long after files.completeUploadExternal a file stays in processing, on the fake's clock:
   * meanwhile an image block's `slack_file` naming it is refused (`invalid_blocks`) and files.info
   * shows no type yet. Default 1,000 ms ("if I wait for about 1 sec … then it works",
   * https://github.com/slackapi/python-slack-sdk/issues/1521).
   */
  fileReadyMs?: number;
}
