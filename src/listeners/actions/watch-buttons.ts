// An alert's buttons (Snooze 1 h, Mute this alert, Turn rate limiting on), Unmute (under a muted
// notice, and in `/cdn watch list`) and `/cdn create`'s 'Tell this channel when it goes live'.
// What was done to an alert is said in its thread.
import { noticeMessage } from '../../blocks/errors.js';
import {
  alertRateLimitAlreadyText,
  alertUnmutedMessage,
  watchingMessage,
  watchListMessage,
} from '../../blocks/watches.js';
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

/** Unmute, under the muted notice in an alert's thread: the notice says it was unmuted. */
export function watchUnmute(deps: AppDeps) {
  return async ({ ack, action, context, respond }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const { alert, unmuted } = await deps.watches.unmute(caller, action.value ?? '');
    await respond({
      replace_original: true,
      ...alertUnmutedMessage(alert, caller.userId, !unmuted),
    });
  };
}

/** Unmute, beside a watch in `/cdn watch list`: the list is shown again as it now stands. */
export function watchUnmuteListed(deps: AppDeps) {
  return async ({ ack, action, context, respond }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    await deps.watches.unmuteWatch(caller, action.value ?? '');
    await respond({ replace_original: true, ...watchListMessage(await deps.watches.list(caller)) });
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
