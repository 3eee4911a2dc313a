// The one error policy for every listener: whatever a handler throws, the user gets a short answer
// where they are (an ephemeral reply, the modal, a notice modal, an ephemeral message in the
// channel or a DM), never silence; expected failures are not logged as errors, and unexpected ones
// carry a ref the user can quote. A spent trigger says "this took too long"; Slack not answering in
// time says so. A response_url that refuses the answer hands it to the channel, then the DM.
import type { AllMiddlewareArgs, AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { noticeModal, warningMessage } from '../blocks/errors.js';
import type { Mrkdwn } from '../blocks/text.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { explain } from '../slack/explain.js';
import { type Conversation, postInConversation } from '../slack/message-target.js';
import { asSlackProblem } from '../slack/web-api-errors.js';
import { decodeOrigin } from './commands/context.js';
import { ackedIn, callerOf, conversationIn } from './context.js';

type Body = {
  type?: string;
  command?: string;
  response_url?: string;
  trigger_id?: string;
  view?: { type?: string; callback_id?: string; private_metadata?: string };
  actions?: Array<{ action_id?: string }>;
  action_id?: string;
  callback_id?: string;
};

/** What the request was, for the log line. */
function describe(body: Body): string {
  if (body.command) return `command ${body.command}`;
  const id =
    body.actions?.[0]?.action_id ?? body.action_id ?? body.callback_id ?? body.view?.callback_id;
  return `${body.type ?? 'request'}${id ? ` ${id}` : ''}`;
}

export function errorPolicy(logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    try {
      await args.next();
    } catch (error) {
      // What failed, for the commands metric (src/observability/taps.ts): read, never shown.
      args.context.failure = error;
      const body = args.body as Body;
      const where = describe(body);
      const problem = asSlackProblem(error);
      if (problem !== error && problem instanceof AppError && problem.code === 'slack_unavailable')
        logger.warn({ err: error, where }, 'Slack did not answer in time; the user is told');
      const text = explain(logger, problem, where);
      const spentTrigger = problem instanceof AppError && problem.code === 'trigger_expired';
      await answer(args, body, text, { spentTrigger, logger }).catch((failure: unknown) =>
        logger.warn({ err: failure }, 'could not tell the user about a failure'),
      );
    }
  };
}

async function answer(
  args: AnyMiddlewareArgs & AllMiddlewareArgs,
  body: Body,
  text: Mrkdwn,
  { spentTrigger, logger }: { spentTrigger: boolean; logger: Logger },
) {
  const acked = ackedIn(args.context);
  const ack = 'ack' in args ? (args.ack as (response?: unknown) => Promise<void>) : undefined;
  const message = warningMessage(text);
  const conversation: Conversation = {
    ...conversationIn(body),
    userId: callerOf(args.context).userId,
  };
  switch (body.type) {
    case 'view_submission': {
      // Still inside Slack's 3 s: the modal itself says so. Later, where the form was opened from.
      if (ack && !acked) {
        await ack({ response_action: 'update', view: noticeModal('Not possible', text) });
        return;
      }
      // Only the conversation: the answer goes there, never to a response_url the metadata names.
      const { channelId } = decodeOrigin(body.view?.private_metadata, () => false);
      await postInConversation(
        args.client,
        { ...conversation, channelId },
        message,
        'ephemeral',
        logger,
      );
      return;
    }
    case 'block_suggestion':
      if (ack && !acked) await ack({ options: [] });
      return;
    case 'event_callback':
    case 'view_closed':
      return;
  }
  if (ack && !acked) await ack();
  if (body.response_url && 'respond' in args && args.respond) {
    try {
      await args.respond({ response_type: 'ephemeral', replace_original: false, ...message });
      return;
    } catch {
      // Spent or expired (5 uses, 30 minutes), or Slack slow: the channel, then the DM, below.
    }
  }
  // The App Home and shortcuts have no conversation to answer in: a small modal, if the trigger
  // is still good (not the one that just expired).
  if (body.trigger_id && !body.response_url && !spentTrigger) {
    try {
      await args.client.views.open({
        trigger_id: body.trigger_id,
        view: noticeModal('Not possible', text),
      });
      return;
    } catch {
      // The trigger expired (3 s): the DM below still reaches the user.
    }
  }
  await postInConversation(args.client, conversation, message, 'ephemeral', logger);
}
