// Posting a traffic chart in a conversation: the external upload flow (files.uploadV2).
import type { WebClient } from '@slack/web-api';
import { analyticsComment, noTrafficText } from '../blocks/analytics.js';
import { AppError } from '../errors.js';
import type { AnalyticsReport } from '../services/analytics.js';

const CANNOT_POST: Record<string, string> = {
  not_in_channel:
    'I am not in this channel, so I cannot post the chart here. Invite me with `/invite @cdn` and ask again.',
  channel_not_found: 'I can’t see this channel. Invite me with `/invite @cdn` and ask again.',
  is_archived: 'This channel is archived.',
};

/** Uploads the chart with its totals as the comment; without traffic, returns the text to say instead. */
export async function postChart(
  client: WebClient,
  channelId: string,
  report: AnalyticsReport,
): Promise<{ posted: true } | { posted: false; text: string }> {
  if (!report.png) return { posted: false, text: noTrafficText(report) };
  const stamp = new Date(report.range.until).toISOString().slice(0, 16).replace(/[-:]/g, '');
  try {
    await client.filesUploadV2({
      channel_id: channelId,
      file: report.png,
      filename: `${report.zone.name}-traffic-${stamp}.png`,
      title: `${report.zone.name} traffic, ${report.range.label}`,
      initial_comment: analyticsComment(report),
    });
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error ?? '';
    const reason = CANNOT_POST[code];
    if (reason) throw new AppError('invalid_input', reason);
    throw error;
  }
  return { posted: true };
}
