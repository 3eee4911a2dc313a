// Alerts and notices of watched zones over the Web API. An alert is one message: its chart is
// uploaded privately (files.getUploadURLExternal, the bytes, files.completeUploadExternal with no
// channel) and shown in the message by an image block, beside its buttons; when it resolves the
// same message is updated in place (a fresh chart, no buttons) and its thread says so. Slack
// processes an uploaded file for a moment before a block may show it: that refusal is told apart
// (isChartNotReady) so the post waits; a chart never ready is shared in the alert's thread.
import type { KnownBlock } from '@slack/types';
import { chartInThreadText, watchPausedText } from '../blocks/delivery.js';
import type { Mrkdwn } from '../blocks/text.js';
import {
  alertFollowUpByDm,
  alertMessage,
  alertMutedMessage,
  alertMutedText,
  alertRateLimitedText,
  alertResolvedText,
  alertSnoozedText,
  zoneLiveText,
} from '../blocks/watches.js';
import { POST_REFUSED_THERE } from '../errors.js';
import type { WatchPoster } from '../services/watches/watch-posting.js';
import type { AlertFollowUps } from '../services/watches/watches.js';
import type { WatchAlert } from '../store/watch-alerts.js';
import type { Watch } from '../store/watches.js';
import type { CallPace } from '../throttles/call-pace.js';
import { zoneLabel } from '../zone-names.js';
import { failureReason } from './explain.js';
import { chartBody } from './report-poster.js';
import { UploadFailedError, uploadBytes } from './uploads.js';
import {
  asPostRefusal,
  isTransientSlackError,
  slackErrorCode,
  slackRetryAfterMs,
} from './web-api-errors.js';
import { paceKeys } from './web-api-paces.js';
import type { WorkspaceClients } from './workspace-clients.js';

const REFUSED_THERE: readonly string[] = POST_REFUSED_THERE;

/**
 * chat.update's answers for an alert that can no longer be edited (slack_web_openapi_v2.json,
 * /chat.update errors): deleted, past the edit window, or its channel archived (`is_inactive`) or
 * gone. It is posted anew: where the channel still takes it, the resolution is seen; where not,
 * the post's own refusal (is_archived, channel_not_found) pauses the watch as for any alert.
 */
const UNEDITABLE = new Set([
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
  'is_inactive',
  'channel_not_found',
]);

export class SlackWatchPoster implements WatchPoster, AlertFollowUps {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly pace: CallPace,
  ) {}

  async fired(alert: WatchAlert, chartFileId: string | undefined): Promise<{ ts?: string }> {
    const token = await this.clients.tokenFor(alert.workspaceId);
    return this.pace.turn([paceKeys.channel(alert.workspaceId, alert.channelId)], async () => {
      try {
        const posted = await this.clients.client.chat.postMessage({
          token,
          channel: alert.channelId,
          ...alertMessage(alert, chartFileId),
        });
        return posted.ts ? { ts: posted.ts } : {};
      } catch (error) {
        throw asPostRefusal(error, 'alert');
      }
    });
  }

  async resolved(alert: WatchAlert, chartFileId: string | undefined): Promise<void> {
    if (!alert.messageTs) return;
    const token = await this.clients.tokenFor(alert.workspaceId);
    await this.pace.turn([paceKeys.channel(alert.workspaceId, alert.channelId)], async () => {
      try {
        const shown = await this.#resolvedInPlace(token, alert, chartFileId);
        await this.#thread(token, shown, alertResolvedText(alert).text);
      } catch (error) {
        throw asPostRefusal(error, 'alert');
      }
    });
  }

  /**
   * The alert's message edited as resolved; when it cannot be (UNEDITABLE: deleted meanwhile, its
   * channel archived), the resolved alert is posted anew in the channel. Returns the alert as its
   * message now is.
   */
  async #resolvedInPlace(
    token: string,
    alert: WatchAlert,
    chartFileId: string | undefined,
  ): Promise<WatchAlert> {
    const message = alertMessage(alert, chartFileId);
    try {
      await this.clients.client.chat.update({
        token,
        channel: alert.channelId,
        ts: alert.messageTs ?? '',
        ...message,
      });
      return alert;
    } catch (error) {
      if (!UNEDITABLE.has(slackErrorCode(error) ?? '')) throw error;
      const posted = await this.clients.client.chat.postMessage({
        token,
        channel: alert.channelId,
        ...message,
      });
      return { ...alert, messageTs: posted.ts ?? null };
    }
  }

  async notice(watch: Watch, status: 'active' | 'deleted'): Promise<void> {
    const token = await this.clients.tokenFor(watch.workspaceId);
    await this.pace.turn([paceKeys.channel(watch.workspaceId, watch.channelId)], () =>
      this.clients.client.chat
        .postMessage({ token, channel: watch.channelId, text: zoneLiveText(watch, status).text })
        .catch((error: unknown) => {
          throw asPostRefusal(error, 'alert');
        }),
    );
  }

  /** The chart as a file shared in the alert's thread, its comment saying why it is there. */
  async shareChart(alert: WatchAlert, png: Buffer): Promise<void> {
    if (!alert.messageTs) return;
    await this.#upload(alert, png, {
      channel_id: alert.channelId,
      thread_ts: alert.messageTs,
      initial_comment: chartInThreadText(alert).text,
    });
  }

  async paused(watch: Watch, reason: string): Promise<void> {
    const token = await this.clients.tokenFor(watch.workspaceId);
    await this.clients.client.chat.postMessage({
      token,
      channel: watch.createdBy,
      text: watchPausedText(watch, reason).text,
    });
  }

  async snoozed(alert: WatchAlert, userId: string, until: number): Promise<void> {
    await this.#followUp(alert, userId, alertSnoozedText(userId, until));
  }

  async muted(alert: WatchAlert, userId: string): Promise<void> {
    const notice = alertMutedMessage(alert, userId);
    await this.#followUp(alert, userId, alertMutedText(alert, userId), notice.blocks);
  }

  async rateLimited(alert: WatchAlert, userId: string): Promise<void> {
    await this.#followUp(alert, userId, alertRateLimitedText(alert, userId));
  }

  chartNotReady(error: unknown): boolean {
    return isChartNotReady(error);
  }

  reasonFor(error: unknown): string {
    return failureReason(error);
  }

  transient(error: unknown): boolean {
    return error instanceof UploadFailedError || isTransientSlackError(error);
  }

  retryAfterMs(error: unknown): number | undefined {
    return slackRetryAfterMs(error);
  }

  /**
   * What a person did to an alert, said in its thread; where the channel refuses the bot (removed
   * by a person: not_in_channel, or channel_not_found for a private one; archived: is_archived;
   * chat.postMessage's errors, slack_web_openapi_v2.json), by DM to that person instead.
   */
  async #followUp(
    alert: WatchAlert,
    userId: string,
    text: Mrkdwn,
    blocks?: KnownBlock[],
  ): Promise<void> {
    if (!alert.messageTs) return;
    const token = await this.clients.tokenFor(alert.workspaceId);
    try {
      await this.clients.client.chat.postMessage({
        token,
        channel: alert.channelId,
        thread_ts: alert.messageTs,
        ...(blocks ? { text: text.text, blocks } : { text: text.text }),
      });
    } catch (error) {
      if (!REFUSED_THERE.includes(slackErrorCode(error) ?? '')) throw error;
      await this.clients.client.chat.postMessage({
        token,
        channel: userId,
        ...alertFollowUpByDm(alert, text, blocks),
      });
    }
  }

  async #thread(token: string, alert: WatchAlert, text: string): Promise<void> {
    if (!alert.messageTs) return;
    await this.clients.client.chat.postMessage({
      token,
      channel: alert.channelId,
      thread_ts: alert.messageTs,
      text,
    });
  }

  /** Uploads the chart where nobody sees it but the messages that show it; its file id. */
  upload(alert: WatchAlert, png: Buffer): Promise<string> {
    return this.#upload(alert, png);
  }

  /** The external upload of a chart: private, or shared where `share` says. */
  async #upload(
    alert: WatchAlert,
    png: Buffer,
    share?: { channel_id: string; thread_ts: string; initial_comment: string },
  ): Promise<string> {
    const token = await this.clients.tokenFor(alert.workspaceId);
    const client = this.clients.client;
    // No Tier 4 slot: an alert does not wait behind a workspace's reports (which leave 20 calls
    // a minute free); a 429 is tried again after its Retry-After.
    const { upload_url: url, file_id: fileId } = await client.files.getUploadURLExternal({
      token,
      filename: `${alert.zoneName}-alert-${alert.status}.png`,
      length: png.length,
    });
    const uploaded = await uploadBytes(url, fileId, chartBody(png));
    const complete = {
      token,
      files: [{ id: uploaded, title: `${zoneLabel(alert.zoneName)} alert` }] as [
        { id: string; title: string },
      ],
    };
    await client.files.completeUploadExternal(share ? { ...complete, ...share } : complete);
    return uploaded;
  }
}

/**
 * Whether Slack refused a message because a file its image block shows is still being processed:
 * `invalid_blocks` naming a `slack_file` ("invalid slack file [json-pointer:/blocks/0/slack_file]",
 * https://github.com/slackapi/python-slack-sdk/issues/1658). The same post works a moment later
 * (https://github.com/slackapi/python-slack-sdk/issues/1521).
 */
function isChartNotReady(error: unknown): boolean {
  const data = (error as { data?: { error?: unknown; errors?: unknown } } | undefined)?.data;
  return (
    data?.error === 'invalid_blocks' &&
    Array.isArray(data.errors) &&
    data.errors.some((problem) => String(problem).includes('slack_file'))
  );
}
