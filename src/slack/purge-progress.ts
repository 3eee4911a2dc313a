// A purge's progress as one Slack message: posted when it starts, edited at milestones, replaced
// by the result; a zone that could not be purged at all is said in a second message. For a purge
// job the message is a DurableMessage, carried across restarts in the job's checkpoint: a bot
// message edited in place, or, where the bot cannot post, "Purging…" and the result only.
import { purgePausedMessage, purgeProgressMessage, purgeResultMessage } from '../blocks/purge.js';
import type { Logger } from '../logger.js';
import type { PurgeProgressView, PurgeViews } from '../services/purge/purge-status.js';
import type { DurableMessages } from './durable-message.js';
import { explainMessage } from './explain.js';
import type { MessageTarget } from './message-target.js';

export function purgeMessages(target: MessageTarget, logger: Logger): PurgeProgressView {
  return {
    started: (status) => target.post(purgeProgressMessage(status), { opening: true }),
    progressed: (status) => target.replace(purgeProgressMessage(status), { interim: true }),
    paused: (status) => target.replace(purgePausedMessage(status), { interim: true }),
    async finished({ runs, actorId, error, fromDefault }) {
      const result = () => purgeResultMessage(runs, actorId, fromDefault ? { fromDefault } : {});
      if (error === undefined) {
        await target.replace(result());
        return;
      }
      const failure = explainMessage(logger, error, 'purge');
      // The channel already saw "Purging…": it must not be left saying so.
      await target.replace(runs.length > 0 ? result() : failure);
      if (runs.length > 0) await target.post(failure);
    },
  };
}

/** Purge jobs' views: their messages reach people however the job and Slack fare meanwhile. */
export function purgeViews(messages: DurableMessages, logger: Logger): PurgeViews {
  return (workspaceId, replyTo, state, save) =>
    purgeMessages(messages(workspaceId, replyTo, state, save), logger);
}
