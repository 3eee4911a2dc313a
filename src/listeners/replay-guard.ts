// The same delivery twice (Slack's retries, or a captured request replayed inside the signature
// window) runs once: the repeat is acknowledged with an empty answer and goes no further.
import { performance } from 'node:perf_hooks';
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from '../logger.js';
import type { ReplayGuard } from '../services/replays.js';

type Body = {
  type?: string;
  command?: string;
  trigger_id?: string;
  event_id?: string;
  user?: { id?: string };
  actions?: Array<{ action_id?: string; action_ts?: string }>;
};

/**
 * What makes a delivery the same delivery; none for what is safe to run twice (options). Slack's
 * evidence, per payload:
 * - Events: `event_id`; Slack's retries resend the same one, with `x-slack-retry-num` and
 *   `x-slack-retry-reason` headers (HTTP) or `retry_attempt`/`retry_reason` (Socket Mode):
 *   https://api.slack.com/events-api#graceful_retries, slackapi/java-slack-sdk#677,
 *   slackapi/bolt-python#731 and #868, slackapi/bolt-js#2487.
 * - Interactions and slash commands: `trigger_id`, "a temporary ID generated for the
 *   interaction" (https://api.slack.com/reference/interaction-payloads/shortcuts), so one per
 *   press; a view_submission carries one too (slackapi/java-slack-sdk
 *   json-logs/samples/app-backend/views/ViewSubmissionPayload.json). A button's `action_ts` is the
 *   click's own time (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
 * A retried or replayed request carries the same body, so the same key; a second press of Submit
 * with the same values (after `response_action: errors`, the view and its hash unchanged) is a new
 * delivery with a new trigger_id, and is run.
 */
export function deliveryKey(body: Body): string | undefined {
  if (body.command && body.trigger_id) return `command:${body.trigger_id}`;
  switch (body.type) {
    case 'shortcut':
    case 'message_action':
      return body.trigger_id ? `shortcut:${body.trigger_id}` : undefined;
    case 'view_submission':
      // Not what was typed: the same values pressed again (the cause fixed elsewhere) are run.
      return body.trigger_id ? `view:${body.trigger_id}` : undefined;
    case 'block_actions': {
      const action = body.actions?.[0];
      return action?.action_ts
        ? `action:${action.action_ts}:${action.action_id ?? ''}:${body.user?.id ?? ''}`
        : undefined;
    }
    case 'event_callback':
      return body.event_id ? `event:${body.event_id}` : undefined;
    default:
      return undefined;
  }
}

/**
 * Deliveries whose ack is always empty (a command, a shortcut, a button), so it can go before the
 * store is asked: no user's ack waits on a database write. A modal's submission, whose ack carries
 * the answer, is checked first.
 */
const ACKED_EMPTY = new Set(['command', 'shortcut', 'action']);

export function replayGuard(guard: ReplayGuard, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const key = deliveryKey(args.body as Body);
    if (key === undefined) return args.next();
    const ack =
      'ack' in args && typeof args.ack === 'function'
        ? (args.ack as () => Promise<void>)
        : undefined;
    const kind = key.slice(0, key.indexOf(':'));
    const early = ack !== undefined && ACKED_EMPTY.has(kind);
    if (early) {
      // Set first: the listeners' ack() (see `tracked`) and the error policy then send nothing
      // more, even if this one fails.
      args.context.acked = true;
      await ack();
    }
    const ackedAt = performance.now();
    if (await guard.first(key)) {
      // When it was acknowledged (the metrics' ack latency); a repeat's ack is not counted.
      if (early) args.context.ackedAt ??= ackedAt;
      await args.next();
      return;
    }
    logger.info({ delivery: kind }, 'repeated delivery acknowledged, not run');
    if (ack && !early) await ack();
  };
}
