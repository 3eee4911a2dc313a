// What the bot says when a post could not be delivered as meant: a watch paused because its
// channel refused the bot, and an alert's chart shared beside the message instead of in it.

import type { WatchAlert } from '../store/watch-alerts.js';
import type { Watch } from '../store/watches.js';
import { zoneLabel } from '../zone-names.js';
import { channel, clip, code, MAX_SENTENCE, type Mrkdwn, md } from './text.js';

/**
 * The DM to a watch's creator when its channel refused an alert: what to do, and how to resume.
 * `reason` is plain text (as stored with the paused watch).
 */
export function watchPausedText(watch: Watch, reason: string): Mrkdwn {
  const where = channel(watch.channelId);
  return clip(
    md`:double_vertical_bar: Alerts of *${zoneLabel(watch.zoneName)}* for ${where} are paused. ${reason} Then run ${code(`/cdn watch ${watch.zoneName}`)} in ${where} to resume them.`,
    MAX_SENTENCE,
  );
}

/** The comment of an alert's chart shared in its thread, when Slack could not show it in the message. */
export function chartInThreadText(alert: WatchAlert): Mrkdwn {
  return clip(
    md`The chart of this alert (*${zoneLabel(alert.zoneName)}*): Slack was still processing it when the alert was posted.`,
    MAX_SENTENCE,
  );
}
