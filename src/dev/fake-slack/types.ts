// The shapes the fake Slack records and is configured with, shared by its modules.
import type { Clock } from '../../clock.js';
import type { FaultHit } from './faults.js';

export interface FakeUser {
  id: string;
  name: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  /** IANA time zone, e.g. Europe/Paris. */
  tz?: string;
  /** Their own workspace, when it is not the one asking (a shared channel's other side). */
  teamId?: string;
  /** Whether Slack calls them a stranger (is_stranger: an external user this workspace can't see well). */
  isStranger?: boolean;
  /** Their Enterprise Grid organization, if any. */
  enterpriseId?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** Whether the bot is a member (can post without being invited); false once it is removed. */
  botMember: boolean;
  archived?: boolean;
  /** A private channel: to an app that is not in it, it does not exist (`channel_not_found`). */
  isPrivate?: boolean;
  /** A DM (`im`) or group DM (`mpim`) between people, which the app is part of only if added. */
  kind?: 'im' | 'mpim';
  /** The people in it, the bot aside; when not given, everyone in the workspace. */
  members?: string[];
}

/** A Web API method's arguments or answer. */
export type Args = Record<string, unknown>;

/** Who a valid token belongs to. */
export interface Identity {
  teamId: string;
  botUserId: string;
}

export interface ApiCall {
  method: string;
  args: Args;
  response: Args;
  /** The team whose token made the call, when the token was valid. */
  teamId?: string;
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
  response: [Message];
  /** A fault was injected on a call; then (a hang) its caller gave up. */
  fault: [FaultHit];
  abandoned: [FaultHit];
};

export interface FakeSlackOptions {
  clock?: Clock;
  teamId?: string;
  botToken?: string;
  botUserId?: string;
  /** Extra accepted tokens (OAuth installs), each of one team. */
  tokens?: Record<string, Identity>;
  /** The app's OAuth credentials, for oauth.v2.access. */
  oauth?: { clientId: string; clientSecret: string };
  /** Socket Mode: the app-level token, and the WebSocket URL apps.connections.open hands out. */
  socket?: { appToken: string; url: string };
  /** Enforce Slack's one post per second per channel (HTTP 429 with Retry-After). Default off. */
  channelRateLimit?: boolean;
  /**
   * Calls a minute per workspace, by method (Slack's rate tiers; TIER_4_FILE_METHODS for the file
   * methods), past which a call is answered 429 with Retry-After. Default: none.
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
