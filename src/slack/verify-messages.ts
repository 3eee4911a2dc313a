// A verification's messages: "Checking…" replaced by the summary (a DurableMessage, carried across
// restarts in the job's checkpoint), then the per-URL details as a reply in the summary's thread
// (chat.postMessage with thread_ts), or as a second message where the summary cannot have one
// (said through a response_url or ephemerally). The details are recorded as said once Slack took
// them: a crash between the two says them again, the one repeat this allows.
import {
  verifyDetailsMessage,
  verifyProgressMessage,
  verifySummaryMessage,
} from '../blocks/verify.js';
import type { VerifyView, VerifyViews } from '../services/verify/verify.js';
import type { DurableMessageState, DurableMessages } from './durable-message.js';
import type { WorkspaceClients } from './workspace-clients.js';

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
    return {
      started: (status) => target.post(verifyProgressMessage(status), { opening: true }),
      async finished(summary) {
        await target.replace(verifySummaryMessage(summary));
        if (state.detailed) return;
        const details = verifyDetailsMessage(summary);
        const posted = (state.message as DurableMessageState | undefined)?.posted;
        if (posted) {
          const token = await clients.tokenFor(workspaceId);
          await clients.client.chat.postMessage({
            token,
            channel: posted.channel,
            thread_ts: posted.ts,
            ...details,
          });
        } else await target.post(details);
        await store({ ...state, detailed: true });
      },
    };
  };
}
