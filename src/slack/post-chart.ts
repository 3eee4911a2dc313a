// Posting a traffic chart in a conversation: the external upload flow (files.uploadV2).
import type { WebClient } from '@slack/web-api';
import { analyticsComment, noTrafficText } from '../blocks/analytics.js';
import type { Mrkdwn } from '../blocks/text.js';
import type { AnalyticsReport } from '../services/analytics/analytics.js';
import { zoneLabel } from '../zone-names.js';
import { asPostRefusal } from './web-api-errors.js';

/** Uploads the chart with its totals as the comment; without traffic, returns the text to say instead. */
export async function postChart(
  client: WebClient,
  channelId: string,
  report: AnalyticsReport,
): Promise<{ posted: true } | { posted: false; text: Mrkdwn }> {
  if (!report.png) return { posted: false, text: noTrafficText(report) };
  const stamp = new Date(report.range.until).toISOString().slice(0, 16).replace(/[-:]/g, '');
  try {
    await client.filesUploadV2({
      channel_id: channelId,
      file: report.png,
      filename: `${report.zone.name}-traffic-${stamp}.png`,
      title: `${zoneLabel(report.zone.name)} traffic, ${report.range.label}`,
      initial_comment: analyticsComment(report).text,
    });
  } catch (error) {
    throw asPostRefusal(error, 'chart');
  }
  return { posted: true };
}
