// A message that outlives the request and the process that started it: edited through the
// request's response_url while Slack still takes it (30 minutes, 5 uses), otherwise through
// chat.update of a bot message whose channel and ts were stored, otherwise posted anew in the
// channel (an ephemeral answer as an ephemeral message there), or as a DM to the requester when the
// bot cannot post there. Its state is saved after every change, so the job that owns it can carry
// it across a restart. Its Web API calls are bounded (the background client): a failure throws, and
// the job retries later.
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';
import type { Clock } from '../clock.js';
import type { ReplyTo } from '../services/reply.js';
import type { MessageTarget } from './message-target.js';
import { postToResponseUrl } from './respond.js';
import { slackErrorCode } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** Opens the durable message of a job: where it replies, and its state carried by the job. */
export type DurableMessages = (
  workspaceId: string,
  replyTo: ReplyTo,
  state: Record<string, unknown>,
  save: (state: Record<string, unknown>) => Promise<void>,
) => DurableMessage;

export function durableMessages(clients: WorkspaceClients, clock: Clock): DurableMessages {
  return (workspaceId, replyTo, state, save) =>
    new DurableMessage({
      client: clients.client,
      token: () => clients.tokenFor(workspaceId),
      replyTo,
      state: state as DurableMessageState,
      save: (next) => save({ ...next }),
      clock,
    });
}

/** Why the bot cannot post in the channel: the DM takes the message instead. */
const CANNOT_POST_THERE = [
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'user_not_in_channel',
];

/** Slack's limits on a response_url, less a margin for the request in flight. */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000 - 60_000;

export interface DurableMessageState {
  /** Uses of the response_url so far; 5 (or a refusal) means it is spent. */
  uses?: number;
  /** The bot message standing for this one, once it had to post one. */
  posted?: { channel: string; ts: string };
  /** An ephemeral message stands for it (it cannot be edited: only the final version is said again). */
  ephemeral?: boolean;
}

export interface DurableMessageOptions {
  client: WebClient;
  /** The workspace's bot token (the job runs outside any request). */
  token: () => Promise<string>;
  replyTo: ReplyTo;
  state: DurableMessageState;
  save: (state: DurableMessageState) => Promise<void>;
  clock: Clock;
}

export class DurableMessage implements MessageTarget {
  readonly #options: DurableMessageOptions;
  #state: DurableMessageState;

  constructor(options: DurableMessageOptions) {
    this.#options = options;
    this.#state = { ...options.state };
  }

  async post(message: Message): Promise<void> {
    if (await this.#viaResponseUrl(message, false)) return;
    await this.#postNew(message);
  }

  async replace(message: Message, options: { interim?: boolean } = {}): Promise<void> {
    const posted = this.#state.posted;
    // The response_url's last use is kept for the final version: an interim one is skipped.
    if (!posted && options.interim && this.#usesLeft() === 1) return;
    // An ephemeral message cannot be edited: progress is not said again, the outcome is.
    if (this.#state.ephemeral && options.interim) return;
    if (posted) {
      try {
        const token = await this.#options.token();
        await this.#options.client.chat.update({ token, ...posted, ...message });
        return;
      } catch (error) {
        // Deleted meanwhile, or not ours to edit: say it anew rather than not at all.
        if (!['message_not_found', 'cant_update_message'].includes(slackErrorCode(error) ?? ''))
          throw error;
      }
    } else if (await this.#viaResponseUrl(message, true)) return;
    await this.#postNew(message);
  }

  /** Uses of the response_url left now (0 when there is none, or it expired). */
  #usesLeft(): number {
    const { replyTo, clock } = this.#options;
    const fresh = clock.now() - replyTo.issuedAt < RESPONSE_URL_LIFETIME_MS;
    if (!replyTo.responseUrl || !fresh) return 0;
    return Math.max(0, RESPONSE_URL_USES - (this.#state.uses ?? 0));
  }

  /** True when Slack took the message through the response_url. */
  async #viaResponseUrl(message: Message, replace: boolean): Promise<boolean> {
    const { replyTo } = this.#options;
    const uses = this.#state.uses ?? 0;
    if (!replyTo.responseUrl || this.#usesLeft() === 0) return false;
    // Counted before the call: a use whose answer was lost still counts against the five.
    await this.#save({ ...this.#state, uses: uses + 1 });
    try {
      await postToResponseUrl(replyTo.responseUrl, {
        response_type: replyTo.visibility,
        ...(replace ? { replace_original: true } : {}),
        ...message,
      });
      return true;
    } catch {
      // Expired, used up, or never valid: the bot message path takes over for good.
      await this.#save({ ...this.#state, uses: RESPONSE_URL_USES });
      return false;
    }
  }

  /** A new bot message in the channel (or the requester's DM), remembered for later edits. */
  async #postNew(message: Message): Promise<void> {
    const { client, replyTo } = this.#options;
    const token = await this.#options.token();
    const post = async (channel: string) => {
      const result = await client.chat.postMessage({ token, channel, ...message });
      await this.#save({
        ...this.#state,
        posted: { channel: result.channel ?? channel, ts: result.ts ?? '' },
      });
    };
    if (replyTo.channelId) {
      try {
        // An ephemeral answer is the requester's alone: seen by them in the channel, or in the DM.
        if (replyTo.visibility === 'ephemeral') {
          await client.chat.postEphemeral({
            token,
            channel: replyTo.channelId,
            user: replyTo.userId,
            ...message,
          });
          if (!this.#state.ephemeral) await this.#save({ ...this.#state, ephemeral: true });
        } else await post(replyTo.channelId);
        return;
      } catch (error) {
        if (!CANNOT_POST_THERE.includes(slackErrorCode(error) ?? '')) throw error;
      }
    }
    await post(replyTo.userId);
  }

  async #save(state: DurableMessageState): Promise<void> {
    this.#state = state;
    await this.#options.save(state);
  }
}
