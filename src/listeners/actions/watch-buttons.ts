// An alert's buttons (Snooze 1 h, Mute this alert, Turn rate limiting on) and `/cdn create`'s
// 'Tell this channel when it goes live'. What was done is said in the alert's thread.
import { noticeMessage } from '../../blocks/errors.js';
import { alertRateLimitAlreadyText, watchingMessage } from '../../blocks/watches.js';
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function watchSnooze(deps: AppDeps) {
  return async ({ ack, action, context }: ButtonArgs) => {
    await ack();
    await deps.watches.snooze(callerOf(context), action.value ?? '');
  };
}

export function watchMute(deps: AppDeps) {
  return async ({ ack, action, context }: ButtonArgs) => {
    await ack();
    await deps.watches.mute(callerOf(context), action.value ?? '');
  };
}

export function watchRateLimit(deps: AppDeps) {
  return async ({ ack, action, context, respond }: ButtonArgs) => {
    await ack();
    // The alert's thread says who turned it on; the alert's message itself is left as it is.
    const result = await deps.watches.rateLimit(callerOf(context), action.value ?? '');
    if (result.already)
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...noticeMessage(alertRateLimitAlreadyText(result.already.by, result.already.done)),
      });
  };
}

export function watchNotifyLive(deps: AppDeps) {
  return async ({ ack, action, body, context, respond }: ButtonArgs) => {
    await ack();
    const channelId = body.channel?.id;
    if (!channelId) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...noticeMessage('This button works in a channel.'),
      });
      return;
    }
    const result = await deps.watches.watch(callerOf(context), {
      zone: action.value ?? '',
      channelId,
    });
    await respond({
      response_type: 'in_channel',
      replace_original: false,
      ...watchingMessage(result.watch, result),
    });
  };
}
