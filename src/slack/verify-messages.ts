// A verification's messages: "Checking…" replaced by the summary (a DurableMessage, carried across
// restarts in the job's checkpoint), then the per-URL details as a reply in the summary's thread
// (chat.postMessage with thread_ts), or as a second message where the summary cannot have one
// (said through a response_url or ephemerally, or the channel refuses the bot since). The details
// are recorded as said once Slack took them: a crash between the two says them again.

import type { Message } from '../blocks/message.js';
import {
  verifyDetailsMessage,
  verifyProgressMessage,
  verifySummaryMessage,
} from '../blocks/verify.js';
import { POST_REFUSED_THERE } from '../errors.js';
import type { VerifyView, VerifyViews } from '../services/verify/verify.js';
import type { DurableMessageState, DurableMessages } from './durable-message.js';
import { slackErrorCode } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

const REFUSED_THERE: readonly string[] = POST_REFUSED_THERE;

interface VerifyViewState {
  message?: Record<string, unknown>;
  /** The details were said. */
  detailed?: boolean;
}

export function verifyViews(messages: DurableMessages, clients: WorkspaceClients): VerifyViews {
  return (workspaceId, replyTo, initial, save): VerifyView => {
    let state = initial as VerifyViewState;
    const store = async (next: VerifyViewState) => {
      state = next;
      await save({ ...next });
    };
    const target = messages(workspaceId, replyTo, state.message ?? {}, (message) =>
      store({ ...state, message }),
    );
    /**
     * The details as a reply in the summary's thread; false when the channel refuses the bot now
     * (removed or archived meanwhile: chat.postMessage's errors, slack_web_openapi_v2.json).
     */
    const inThread = async (posted: { channel: string; ts: string }, details: Message) => {
      const token = await clients.tokenFor(workspaceId);
      try {
        await clients.client.chat.postMessage({
          token,
          channel: posted.channel,
          thread_ts: posted.ts,
          ...details,
        });
        return true;
      } catch (error) {
        if (!REFUSED_THERE.includes(slackErrorCode(error) ?? '')) throw error;
        return false;
      }
    };
    return {
      started: (status) => target.post(verifyProgressMessage(status), { opening: true }),
      async finished(summary) {
        await target.replace(verifySummaryMessage(summary));
        if (state.detailed) return;
        const details = verifyDetailsMessage(summary);
        const posted = (state.message as DurableMessageState | undefined)?.posted;
        if (!posted || !(await inThread(posted, details))) await target.post(details);
        await store({ ...state, detailed: true });
      },
    };
  };
}
