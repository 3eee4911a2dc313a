// The fake Slack's response_urls: minted per interaction, good for 5 posts in 30 minutes.
import { randomBytes } from 'node:crypto';
import { type ChatMethods, replaceContent, textAndBlocks } from './chat.js';
import type { SlackIds } from './ids.js';
import type { SlackRecords } from './records.js';
import type { Args, Message } from './types.js';

const RESPONSE_URL_TTL_MS = 30 * 60_000;
const RESPONSE_URL_USES = 5;

interface ResponseTarget {
  channel: string;
  user: string;
  /** The message "original" refers to (the button's message, or the last response). */
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
  mint(channel: string, user: string, original?: Message): string {
    const token = randomBytes(12).toString('hex');
    const target: ResponseTarget = {
      channel,
      user,
      uses: 0,
      expiresAt: this.ids.now() + RESPONSE_URL_TTL_MS,
      ...(original ? { original } : {}),
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
    const problem = this.chat.messageProblems(body);
    if (problem) {
      return {
        status: 400,
        body: problem.error === 'invalid_blocks' ? 'invalid_blocks' : String(problem.error),
      };
    }
    target.uses += 1;
    if (body.delete_original === true) {
      if (target.original) {
        target.original.deleted = true;
        this.records.emit('response', target.original);
      }
      return { status: 200, body: 'ok' };
    }
    if (body.replace_original === true && target.original) {
      replaceContent(target.original, body);
      this.records.emit('response', target.original);
      return { status: 200, body: 'ok' };
    }
    const inChannel = body.response_type === 'in_channel';
    target.original = this.chat.record({
      channel: target.channel,
      via: 'response_url',
      ...(inChannel ? {} : { ephemeralTo: target.user }),
      ...textAndBlocks(body),
    });
    return { status: 200, body: 'ok' };
  }
}
