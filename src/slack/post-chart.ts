// Posting a traffic chart in a conversation: the external upload flow (files.uploadV2); and
// telling apart Slack refusing a chart it has not processed yet.
import type { WebClient } from '@slack/web-api';
import { analyticsComment, noTrafficText } from '../blocks/analytics.js';
import type { Mrkdwn } from '../blocks/text.js';
import type { AnalyticsReport } from '../services/analytics.js';
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
      title: `${report.zone.name} traffic, ${report.range.label}`,
      initial_comment: analyticsComment(report).text,
    });
  } catch (error) {
    throw asPostRefusal(error, 'chart');
  }
  return { posted: true };
}

/**
 * Whether Slack refused a message because a file its image block shows is still being processed:
 * `invalid_blocks` naming a `slack_file` ("invalid slack file [json-pointer:/blocks/0/slack_file]",
 * https://github.com/slackapi/python-slack-sdk/issues/1658). The same post works a moment later
 * (https://github.com/slackapi/python-slack-sdk/issues/1521).
 */
export function isChartNotReady(error: unknown): boolean {
  const data = (error as { data?: { error?: unknown; errors?: unknown } } | undefined)?.data;
  return (
    data?.error === 'invalid_blocks' &&
    Array.isArray(data.errors) &&
    data.errors.some((problem) => String(problem).includes('slack_file'))
  );
}
