// A purge asked for over the HTTP API, as Slack sees it: ONE message in the token's channel (else
// the zone's bound channel), the same progress and result as `/cdn purge`, with the API's header
// (the token, the CI's actor, a few URLs, the repository, commit and run link) above it. With no
// channel, or one the bot cannot post in, nothing is said: the API's answer is all there is.
import { apiPurgeHeader, withApiHeader } from '../blocks/api-purge.js';
import type { KnownBlock } from '../blocks/message.js';
import type { Logger } from '../logger.js';
import type { PurgeProgressView } from '../services/purge.js';
import type { ReplyTo } from '../services/reply.js';
import type { ApiPurge } from '../store/api-purges.js';
import type { DurableMessages } from './durable-message.js';
import type { MessageTarget } from './message-target.js';
import { purgeMessages } from './purge-progress.js';

/** Opens the Slack message of an API purge job, or nothing when it has no channel. */
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
    return purgeMessages(withHeader, logger);
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
