// A purge asked for over the HTTP API, as Slack sees it: ONE message in the token's channel (else
// the zone's bound channel), the same progress and result as `/cdn purge`, with the API's header
// (the token, the CI's actor, a few URLs, the repository, commit and run link) above it. With no
// channel, or one the bot cannot post in, nothing is said: the API's answer is all there is.
import { apiPurgeHeader, withApiHeader } from '../blocks/api-purge.js';
import type { KnownBlock } from '../blocks/message.js';
import type { Logger } from '../logger.js';
import type { PurgeProgressView } from '../services/purge/purge-status.js';
import type { ReplyTo } from '../services/reply.js';
import type { ApiPurge } from '../store/api-purges.js';
import type { DurableMessages } from './durable-message.js';
import type { MessageTarget } from './message-target.js';
import { purgeMessages } from './purge-progress.js';

/**
 * Opens the Slack message of an API purge job, or nothing when it has no channel. "Purging…" waits
 * for the purge's first progress milestone: a purge that ends before it (most from CI: a few
 * hundred URLs) posts its result alone, one Web API call instead of three or four. A burst of CI
 * purges in one channel would otherwise spend Slack's limits on edits (chat.update: Tier 3, 50 a
 * minute per workspace; https://api.slack.com/methods/chat.update) and be refused.
 */
export function apiPurgeMessages(
  messages: DurableMessages,
  logger: Logger,
  record: (purgeId: string) => Promise<ApiPurge | undefined>,
) {
  return (
    workspaceId: string,
    replyTo: ReplyTo,
    state: Record<string, unknown>,
    save: (state: Record<string, unknown>) => Promise<void>,
    api: { purgeId: string; sample?: string[] },
  ): PurgeProgressView | undefined => {
    if (!replyTo.channelId) return undefined;
    // Never the requester's DM, whatever the stored payload says: a token has none.
    const target = messages(workspaceId, { ...replyTo, channelOnly: true }, state, save);
    let header: Promise<KnownBlock[]> | undefined;
    const headed = (): Promise<KnownBlock[]> => {
      header ??= record(api.purgeId).then((purge) =>
        purge ? apiPurgeHeader(purge, api.sample ?? []) : [],
      );
      return header;
    };
    const withHeader: MessageTarget = {
      post: async (message, options) =>
        target.post(withApiHeader(await headed(), message), options),
      replace: async (message, options) =>
        target.replace(withApiHeader(await headed(), message), options),
    };
    return openedAtProgress(purgeMessages(withHeader, logger), state.opened === true);
  };
}

/**
 * `view`, its opening ("Purging…") said at the first progress milestone instead of at the start:
 * a purge done before it says its result alone. `opened`: said already (a resumed job), edited.
 */
function openedAtProgress(view: PurgeProgressView, opened: boolean): PurgeProgressView {
  let said = opened;
  return {
    started: async (status) => {
      if (said) await view.started(status);
    },
    progressed: async (status) => {
      if (said) return view.progressed(status);
      said = true;
      await view.started(status);
    },
    paused: async (status) => {
      if (said) await view.paused(status);
    },
    finished: (outcome) => view.finished(outcome),
  };
}

/** Both views, the API's record first (what a waiting client reads), then the Slack message. */
export function bothViews(first: PurgeProgressView, second: PurgeProgressView): PurgeProgressView {
  return {
    started: async (status) => {
      await first.started(status);
      await second.started(status);
    },
    progressed: async (status) => {
      await first.progressed(status);
      await second.progressed(status);
    },
    paused: async (status) => {
      await first.paused(status);
      await second.paused(status);
    },
    finished: async (outcome) => {
      await first.finished(outcome);
      await second.finished(outcome);
    },
  };
}
