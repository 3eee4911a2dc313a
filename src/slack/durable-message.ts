// A message that outlives the request and the process that started it, kept as ONE message where
// Slack lets a bot edit it (chat.postMessage, then chat.update), its state saved by the job that
// owns it so that a restart edits the same message. How and where it is said: DurableMessage.
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';
import type { Clock } from '../clock.js';
import { POST_REFUSED_THERE } from '../errors.js';
import type { ReplyTo } from '../services/reply.js';
import { ViewNotNow } from '../services/view-not-now.js';
import type { RateSlotRepository } from '../store/rate-slots.js';
import { type FallbackLog, type MessageTarget, refusalOf } from './message-target.js';
import { postToResponseUrl } from './respond.js';
import { rateLimitedForMs, slackErrorCode } from './web-api-errors.js';
import { paceKeys } from './web-api-paces.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** Opens the durable message of a job: where it replies, and its state carried by the job. */
export type DurableMessages = (
  workspaceId: string,
  replyTo: ReplyTo,
  state: Record<string, unknown>,
  save: (state: Record<string, unknown>) => Promise<void>,
) => DurableMessage;

/** Where paced messages take their slots: the store's (every replica's). */
export type PaceSlots = Pick<RateSlotRepository, 'take' | 'takeWithin'>;

/**
 * `paced`: messages that keep Slack's pace without waiting (DurableMessageOptions.pace), over
 * `client` (one whose calls never wait for a rate-limit window: web-api-options.ts, `paced`).
 */
export function durableMessages(
  clients: WorkspaceClients,
  clock: Clock,
  log: FallbackLog,
  paced?: { client: WebClient; slots: PaceSlots },
): DurableMessages {
  return (workspaceId, replyTo, state, save) =>
    new DurableMessage({
      client: paced?.client ?? clients.client,
      token: () => clients.tokenFor(workspaceId),
      replyTo,
      state: state as DurableMessageState,
      save: (next) => save({ ...next }),
      clock,
      log,
      ...(paced ? { pace: { slots: paced.slots, workspaceId } } : {}),
    });
}

/**
 * Why the bot cannot post (or edit) there, or ephemerally to the requester (not in the channel):
 * the next way of saying it takes over.
 */
const CANNOT_POST_THERE: readonly string[] = [...POST_REFUSED_THERE, 'user_not_in_channel'];
/**
 * Why a bot message cannot be edited any more: deleted meanwhile, not the bot's, its channel
 * archived (`is_inactive`), past the workspace's edit window (`edit_window_closed`; chat.update's
 * errors, slack_web_openapi_v2.json), or a refusal of the place itself.
 */
const CANNOT_EDIT = [
  'message_not_found',
  'cant_update_message',
  'is_inactive',
  'edit_window_closed',
  ...CANNOT_POST_THERE,
];

/** Slack's limits on a response_url, less a margin for the request in flight. */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000 - 60_000;

export interface DurableMessageState {
  /** Uses of the response_url so far; 5 (or a refusal) means it is spent. */
  uses?: number;
  /** The bot message standing for this one (in the channel or the DM), edited with chat.update. */
  posted?: { channel: string; ts: string };
  /**
   * It was said where it cannot be edited (the response_url, an ephemeral message): interim
   * versions are skipped, the final one is said once more, the same way.
   */
  unedited?: boolean;
  /** The opening version was said (or is being said): a resumed job does not say it again. */
  opened?: boolean;
  /** Paced: the slot reserved for its next final call, when its job went away to wait for it. */
  slotAt?: number;
}

export interface DurableMessageOptions {
  client: WebClient;
  /** The workspace's bot token (the job runs outside any request). */
  token: () => Promise<string>;
  replyTo: ReplyTo;
  state: DurableMessageState;
  save: (state: DurableMessageState) => Promise<void>;
  clock: Clock;
  /** Why a way of saying it was refused, before the next takes over. */
  log: FallbackLog;
  /**
   * Keeps Slack's pace, never waiting for it (an API purge's message): each post takes its
   * channel's slot and each edit the workspace's chat.update slot (the gaps of web-api-paces.ts,
   * shared by every replica), and no call waits for one (`#paced`). Without it, every call goes at
   * once.
   */
  pace?: { slots: PaceSlots; workspaceId: string };
}

/**
 * A bot message (chat.postMessage) in the conversation, then chat.update. Where the bot cannot post
 * there (not a member, a DM between other people, a private channel), or the answer is ephemeral,
 * it is said where it cannot be edited (the request's response_url, an ephemeral message): then
 * only the opening and the final version are said, never the interim ones, so such an answer is at
 * most two messages. Last comes the requester's DM, a bot message edited like any other. Its state
 * is saved after every change, before any edit relies on it. Its Web API calls are bounded (the
 * background client): a failure throws, and the job retries later.
 *
 * Why not the response_url's `replace_original`: for a slash command Slack posts a new message
 * instead (https://github.com/slackapi/bolt-js/issues/2287, and for ephemeral answers
 * https://github.com/slackapi/bolt-python/issues/1268, where Slack's answer is to use chat.update
 * or a new interaction's response_url). Only an interaction on a message can replace that message
 * (https://docs.slack.dev/messaging/modifying-messages, "Updating messages using response_url"),
 * and an ephemeral message cannot be edited with chat.update at all (same page).
 */
export class DurableMessage implements MessageTarget {
  readonly #options: DurableMessageOptions;
  #state: DurableMessageState;
  /** Paced: this attempt's final call had its slot; the calls after it go at once. */
  #turn = false;

  constructor(options: DurableMessageOptions) {
    this.#options = options;
    this.#state = { ...options.state };
  }

  async post(message: Message, options: { opening?: boolean } = {}): Promise<void> {
    if (options.opening) {
      // Said before the job could record it: the resumed job edits that one instead.
      if (this.#state.opened) return this.replace(message, { interim: true });
      this.#state = { ...this.#state, opened: true };
    }
    await this.#say(message, options.opening === true);
  }

  async replace(message: Message, options: { interim?: boolean } = {}): Promise<void> {
    const { posted } = this.#state;
    if (posted) {
      try {
        const token = await this.#options.token();
        await this.#paced('chat.update', options.interim === true, async () => {
          await this.#options.client.chat.update({ token, ...posted, ...message });
        });
        return;
      } catch (error) {
        if (!CANNOT_EDIT.includes(slackErrorCode(error) ?? '')) throw error;
        // Deleted meanwhile, or the bot was removed: the final version is said anew.
        this.#options.log.info(
          { channel: posted.channel, reason: refusalOf(error) },
          'durable message: its edit was refused; said anew',
        );
        const { posted: _gone, ...rest } = this.#state;
        await this.#save(rest);
      }
    }
    // Nothing that can be edited: progress is not said again, the outcome is.
    if (options.interim) return;
    await this.#say(message, false);
  }

  /**
   * Says `message` as a new message: a bot message in the channel (seen by all), else the
   * response_url, else ephemeral in the channel (an ephemeral answer), else the requester's DM.
   * `opening`: paced, it may be skipped (see #paced).
   */
  async #say(message: Message, opening: boolean): Promise<void> {
    const { replyTo } = this.#options;
    // No Slack user asked (a token of the HTTP API): the channel, or nowhere.
    if (replyTo.channelOnly) {
      if (replyTo.channelId) await this.#postTo(replyTo.channelId, message, opening);
      return;
    }
    const inChannel = replyTo.visibility === 'in_channel';
    // Once said through the response_url because the channel refused, the channel is not asked again.
    if (replyTo.channelId && inChannel && !this.#state.unedited) {
      if (await this.#postTo(replyTo.channelId, message)) return;
    }
    if (await this.#viaResponseUrl(message)) return;
    if (replyTo.channelId && !inChannel && (await this.#postEphemeral(replyTo.channelId, message)))
      return;
    if (!(await this.#postTo(replyTo.userId, message)))
      throw new Error('durable message: the requester’s DM refused it');
  }

  /**
   * A bot message in `channel`, remembered for later edits; false when the bot cannot post there.
   * An `interim` one (paced) is skipped when the channel's slot is not free now.
   */
  #postTo(channel: string, message: Message, interim = false): Promise<boolean> {
    return this.#unlessRefused(channel, async (token) => {
      await this.#paced({ channel }, interim, async () => {
        const result = await this.#options.client.chat.postMessage({ token, channel, ...message });
        const { unedited: _said, ...rest } = this.#state;
        await this.#save({
          ...rest,
          posted: { channel: result.channel ?? channel, ts: result.ts ?? '' },
        });
      });
    });
  }

  /**
   * Runs one call of this message at Slack's pace, when paced (else at once): a post in its
   * channel's slot, an edit in the workspace's chat.update slot. An `interim` call goes only in a
   * slot free now, and is skipped otherwise or when Slack answers 429 (then no slot of its key comes
   * before the Retry-After). A final one goes in the slot
   * it reserved earlier, or in one free now (then the calls after it in this attempt go too); when
   * its slot is later, or Slack answers 429, it reserves one (no sooner than Retry-After), saves it
   * and throws ViewNotNow: its job comes back then.
   */
  async #paced(
    on: { channel: string } | 'chat.update',
    interim: boolean,
    call: () => Promise<void>,
  ): Promise<void> {
    const { pace, clock, log } = this.#options;
    if (!pace) return call();
    const [key, gapMs] =
      on === 'chat.update'
        ? paceKeys.tier3(pace.workspaceId, on)
        : paceKeys.channel(pace.workspaceId, on.channel);
    if (interim) {
      if ((await pace.slots.takeWithin(key, gapMs, 0)) > 0) return;
      try {
        return await call();
      } catch (error) {
        const waitMs = rateLimitedForMs(error);
        if (waitMs === undefined) throw error;
        // No slot of the key before Slack's Retry-After, this message's final call's included.
        await pace.slots.take(key, 0, clock.now() + waitMs);
        log.info({ key }, 'durable message: a progress version skipped (Slack’s rate limit)');
        return;
      }
    }
    if (!this.#turn) {
      const { slotAt, ...rest } = this.#state;
      const at = slotAt ?? (await pace.slots.take(key, gapMs));
      if (at > clock.now()) return this.#notNow(at);
      // Its slot has come: used now, not kept for the next attempt.
      this.#state = rest;
      this.#turn = true;
    }
    try {
      return await call();
    } catch (error) {
      const waitMs = rateLimitedForMs(error);
      if (waitMs === undefined) throw error;
      this.#turn = false;
      return this.#notNow(await pace.slots.take(key, gapMs, clock.now() + waitMs), error);
    }
  }

  /** Keeps the slot reserved at `at` for the next attempt, and says when that is. */
  async #notNow(at: number, cause?: unknown): Promise<never> {
    await this.#save({ ...this.#state, slotAt: at });
    throw new ViewNotNow(
      Math.max(1, at - this.#options.clock.now()),
      cause === undefined ? undefined : { cause },
    );
  }

  /** An ephemeral message to the requester in `channel`; false when Slack refuses it there. */
  #postEphemeral(channel: string, message: Message): Promise<boolean> {
    const { client, replyTo } = this.#options;
    return this.#unlessRefused(channel, async (token) => {
      await client.chat.postEphemeral({ token, channel, user: replyTo.userId, ...message });
      await this.#save({ ...this.#state, unedited: true });
    });
  }

  /** Runs a post in `channel`: false when Slack refuses it there (logged), any other failure thrown. */
  async #unlessRefused(channel: string, post: (token: string) => Promise<void>): Promise<boolean> {
    try {
      await post(await this.#options.token());
      return true;
    } catch (error) {
      if (!CANNOT_POST_THERE.includes(slackErrorCode(error) ?? '')) throw error;
      this.#options.log.info(
        { channel, reason: refusalOf(error) },
        'durable message refused there; the next way takes over',
      );
      return false;
    }
  }

  /** True when Slack took the message through the response_url (as a new message). */
  async #viaResponseUrl(message: Message): Promise<boolean> {
    const { replyTo, clock } = this.#options;
    const uses = this.#state.uses ?? 0;
    const fresh = clock.now() - replyTo.issuedAt < RESPONSE_URL_LIFETIME_MS;
    if (!replyTo.responseUrl || !fresh || uses >= RESPONSE_URL_USES) return false;
    // Counted before the call: a use whose answer was lost still counts against the five.
    await this.#save({ ...this.#state, uses: uses + 1, unedited: true });
    try {
      await postToResponseUrl(replyTo.responseUrl, {
        response_type: replyTo.visibility,
        ...message,
      });
      return true;
    } catch (error) {
      // Expired, used up, or never valid: the next way takes over for good.
      this.#options.log.info(
        { reason: refusalOf(error) },
        'durable message refused by the response_url; the next way takes over',
      );
      await this.#save({ ...this.#state, uses: RESPONSE_URL_USES });
      return false;
    }
  }

  async #save(state: DurableMessageState): Promise<void> {
    this.#state = state;
    await this.#options.save(state);
  }
}
