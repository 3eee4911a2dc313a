// What the bot says when a post could not be delivered as meant: a watch paused because its
// channel refused the bot, and an alert's chart shared beside the message instead of in it.
import type { Watch, WatchAlert } from '../store/watches.js';
import { code, escapeMrkdwn } from './text.js';

/** The DM to a watch's creator when its channel refused an alert: what to do, and how to resume. */
export function watchPausedText(watch: Watch, reason: string): string {
  return `:double_vertical_bar: Alerts of *${escapeMrkdwn(watch.zoneName)}* for <#${watch.channelId}> are paused. ${reason} Then run ${code(`/cdn watch ${watch.zoneName}`)} in <#${watch.channelId}> to resume them.`;
}

/** The comment of an alert's chart shared in its thread, when Slack could not show it in the message. */
export function chartInThreadText(alert: WatchAlert): string {
  return `The chart of this alert (*${escapeMrkdwn(alert.zoneName)}*): Slack was still processing it when the alert was posted.`;
}
