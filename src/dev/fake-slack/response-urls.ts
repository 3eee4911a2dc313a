// The fake Slack's response_urls: minted per interaction, good for 5 posts in 30 minutes; only one
// minted for an interaction with a message (block_actions) can replace or delete that message.
import { randomBytes } from 'node:crypto';
import { type ChatMethods, replaceContent, textAndBlocks } from './chat.js';
import type { SlackIds } from './ids.js';
import type { SlackRecords } from './records.js';
import type { Args, Message } from './types.js';

// "respond to a user's command up to 5 times within 30 minutes of the user's invocation":
// https://docs.slack.dev/interactivity/implementing-slash-commands (delayed and multiple responses).
const RESPONSE_URL_TTL_MS = 30 * 60_000;
const RESPONSE_URL_USES = 5;

/**
 * What a response_url was minted for. Only a block_actions on a message has an original message:
 * "When a user interacts with an interactive element in a message, a payload containing a
 * response_url will be sent … It can also be used to update the original interactive message,
 * regardless of whether it was an ephemeral message or not"
 * (https://docs.slack.dev/messaging/modifying-messages, "Updating messages using response_url").
 * A slash command's (and a shortcut's, a modal's) has none to replace: `replace_original: true`
 * posts a new message, ephemeral or in_channel alike (https://github.com/slackapi/bolt-js/issues/2287,
 * https://github.com/slackapi/bolt-python/issues/1268: "it just posts it as a new message"; a
 * maintainer there: the same response_url cannot update it, use chat.update or a new interaction).
 */
export type ResponseUrlSource =
  | { kind: 'command' | 'shortcut' | 'view' }
  | { kind: 'action'; message: Message };

interface ResponseTarget {
  channel: string;
  user: string;
  /** The message the interaction came from (a block_actions' message): the only replaceable one. */
  original?: Message;
  uses: number;
  expiresAt: number;
  /** Killed by a test: answers this word (with 404) whatever it is sent. */
  dead?: 'expired_url' | 'used_url';
}

export class ResponseUrls {
  readonly #targets = new Map<string, ResponseTarget>();

  constructor(
    private readonly records: SlackRecords,
    private readonly ids: SlackIds,
    private readonly chat: ChatMethods,
  ) {}

  /** The token of a new response_url for an interaction in `channel` by `user`. */
  mint(channel: string, user: string, source: ResponseUrlSource): string {
    const token = randomBytes(12).toString('hex');
    const target: ResponseTarget = {
      channel,
      user,
      uses: 0,
      expiresAt: this.ids.now() + RESPONSE_URL_TTL_MS,
      ...(source.kind === 'action' ? { original: source.message } : {}),
    };
    this.#targets.set(token, target);
    return token;
  }

  /** Makes a response_url answer as a spent one from now on; false if there is no such one. */
  kill(token: string, answer: 'expired_url' | 'used_url'): boolean {
    const target = this.#targets.get(token);
    if (!target) return false;
    target.dead = answer;
    return true;
  }

  /** A POST to a response_url: up to 5 uses in 30 minutes, like Slack. */
  respond(token: string, body: Args | undefined): { status: number; body: string } {
    const target = this.#targets.get(token);
    if (!target || this.ids.now() > target.expiresAt) return { status: 404, body: 'expired_url' };
    if (target.dead) return { status: 404, body: target.dead };
    if (target.uses >= RESPONSE_URL_USES) return { status: 404, body: 'used_url' };
    if (!body) return { status: 400, body: 'invalid_payload' };
    const { original } = target;
    // A deletion needs no text (slackapi/python-slack-sdk slack_sdk/webhook/client.py sends
    // `delete_original` as an option of its own). Without an original (a command's response_url)
    // nothing happens: what Slack answers then is not documented.
    if (body.delete_original === true) {
      target.uses += 1;
      if (original) {
        original.deleted = true;
        this.records.emit('response', original);
      }
      return { status: 200, body: 'ok' };
    }
    const problem = this.chat.messageProblems(body);
    if (problem) {
      return {
        status: 400,
        body: problem.error === 'invalid_blocks' ? 'invalid_blocks' : String(problem.error),
      };
    }
    target.uses += 1;
    if (body.replace_original === true && original && !original.deleted) {
      replaceContent(original, body);
      this.records.emit('response', original);
      return { status: 200, body: 'ok' };
    }
    // A new message; "original" stays the message the interaction came from.
    const inChannel = body.response_type === 'in_channel';
    this.chat.record({
      channel: target.channel,
      via: 'response_url',
      ...(inChannel ? {} : { ephemeralTo: target.user }),
      ...textAndBlocks(body),
    });
    return { status: 200, body: 'ok' };
  }
}
