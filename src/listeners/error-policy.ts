// The one error policy for every listener: whatever a handler throws, the user gets a short answer
// where they are (an ephemeral reply, the modal, a notice modal or a DM), never silence; expected
// failures are not logged as errors, and unexpected ones carry a ref the user can quote.
import type { AllMiddlewareArgs, AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { noticeModal, warningMessage } from '../blocks/errors.js';
import type { Logger } from '../logger.js';
import { explain } from '../slack/explain.js';
import { ackedIn, callerOf } from './context.js';

type Body = {
  type?: string;
  command?: string;
  response_url?: string;
  trigger_id?: string;
  view?: { type?: string; callback_id?: string };
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
      const body = args.body as Body;
      const text = explain(logger, error, describe(body));
      await answer(args, body, text).catch((failure: unknown) =>
        logger.warn({ err: failure }, 'could not tell the user about a failure'),
      );
    }
  };
}

async function answer(args: AnyMiddlewareArgs & AllMiddlewareArgs, body: Body, text: string) {
  const acked = ackedIn(args.context);
  const ack = 'ack' in args ? (args.ack as (response?: unknown) => Promise<void>) : undefined;
  switch (body.type) {
    case 'view_submission':
      // Still inside Slack's 3 s: the modal itself says so. Later, a DM.
      if (ack && !acked) {
        await ack({ response_action: 'update', view: noticeModal('Not possible', text) });
        return;
      }
      return dm(args.client, callerOf(args.context).userId, text);
    case 'block_suggestion':
      if (ack && !acked) await ack({ options: [] });
      return;
    case 'event_callback':
    case 'view_closed':
      return;
  }
  if (ack && !acked) await ack();
  if (body.response_url && 'respond' in args && args.respond) {
    await args.respond({
      response_type: 'ephemeral',
      replace_original: false,
      ...warningMessage(text),
    });
    return;
  }
  // The App Home and shortcuts have no conversation to answer in: a small modal, or a DM.
  if (body.trigger_id) {
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
  await dm(args.client, callerOf(args.context).userId, text);
}

async function dm(client: WebClient, userId: string, text: string): Promise<void> {
  await client.chat.postMessage({ channel: userId, ...warningMessage(text) });
}
