// Slack's payloads have a shape the listeners rely on (a submission has view.state.values, a
// click has actions). One that does not, hand-made or truncated, is acknowledged and dropped
// here, before any listener, so no handler has to defend against it on its own. So is one whose
// response_url is not Slack's (only a forger with the signing secret could send one): the bot
// never posts to an address a payload makes up.
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../logger.js';

const id = z.string().min(1).max(255);
const SHAPES: Record<string, z.ZodType> = {
  view_submission: z.object({
    user: z.object({ id }),
    view: z.object({
      id,
      callback_id: z.string(),
      private_metadata: z.string().optional(),
      blocks: z.array(z.looseObject({})),
      state: z.object({ values: z.record(z.string(), z.record(z.string(), z.looseObject({}))) }),
    }),
  }),
  block_actions: z.object({
    user: z.object({ id }),
    actions: z.array(z.looseObject({ action_id: z.string() })).min(1),
  }),
  block_suggestion: z.object({ user: z.object({ id }), action_id: z.string(), value: z.string() }),
  message_action: z.object({
    user: z.object({ id }),
    callback_id: z.string(),
    channel: z.object({ id }),
    message: z.looseObject({ ts: z.string(), text: z.string().optional() }),
  }),
};

export function payloadGuard(
  logger: Logger,
  isSlackResponseUrl: (url: string) => boolean,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as { type?: unknown; response_url?: unknown };
    const shape = typeof body.type === 'string' ? SHAPES[body.type] : undefined;
    const foreignUrl =
      body.response_url !== undefined &&
      (typeof body.response_url !== 'string' || !isSlackResponseUrl(body.response_url));
    if (!foreignUrl && (!shape || shape.safeParse(body).success)) {
      await args.next();
      return;
    }
    logger.info(
      { type: body.type },
      foreignUrl ? 'payload with a response_url not Slack’s dropped' : 'malformed payload dropped',
    );
    if ('ack' in args && typeof args.ack === 'function') {
      await (args.ack as (response?: unknown) => Promise<void>)(
        body.type === 'block_suggestion' ? { options: [] } : undefined,
      );
    }
  };
}
