// ReportPoster over the Web API. A chart is posted in two moves so that a crash between them can
// be told apart afterwards: the file is uploaded (files.getUploadURLExternal and its upload URL:
// nobody sees it yet), then shared in the channel with its text (files.completeUploadExternal).
// files.info says whether that share happened. At most one post per second per channel (Slack's
// limit for chat messages), and a DM when a schedule pauses.
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { errorText } from '../blocks/errors.js';
import { dailyReportText, reportPausedText } from '../blocks/reports.js';
import type { DailyReport } from '../services/daily-report.js';
import type { ReportPoster, StagedPost } from '../services/report-delivery.js';
import type { Schedule } from '../store/schedules.js';
import {
  asPostRefusal,
  asSlackProblem,
  isTransientSlackError,
  slackErrorCode,
  slackRetryAfterMs,
} from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** How long an upload of a chart's bytes may take before it is tried again later. */
const UPLOAD_TIMEOUT_MS = 20_000;

/** Spaces posts to one channel by `gapMs`, in order; other channels are not held up. */
export class ChannelPacer {
  readonly #last = new Map<string, Promise<void>>();
  constructor(private readonly gapMs = 1_000) {}

  async turn<T>(channel: string, post: () => Promise<T>): Promise<T> {
    const previous = this.#last.get(channel) ?? Promise.resolve();
    const mine = previous.then(post);
    // The next post to this channel waits for this one, then the gap.
    const gate = mine.then(
      () => delay(this.gapMs),
      () => delay(this.gapMs),
    );
    this.#last.set(channel, gate);
    gate.then(() => {
      if (this.#last.get(channel) === gate) this.#last.delete(channel);
    });
    return mine;
  }
}

/** The upload URL refused the bytes or could not be reached: the report is staged again later. */
export class UploadFailedError extends Error {
  override readonly name = 'UploadFailedError';
}

type FileShares = Record<string, Array<{ ts?: string }> | undefined>;

export class SlackReportPoster implements ReportPoster {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly pacer = new ChannelPacer(),
  ) {}

  async stage(schedule: Schedule, report: DailyReport): Promise<StagedPost> {
    if (!report.png) return { text: true };
    const token = await this.clients.tokenFor(schedule.workspaceId);
    const { upload_url: url, file_id: fileId } =
      await this.clients.client.files.getUploadURLExternal({
        token,
        filename: report.filename,
        length: report.png.length,
      });
    if (!url || !fileId) throw new UploadFailedError('files.getUploadURLExternal gave no URL');
    try {
      const answer = await request(url, {
        method: 'POST',
        body: report.png,
        headers: { 'content-type': 'application/octet-stream' },
        headersTimeout: UPLOAD_TIMEOUT_MS,
        bodyTimeout: UPLOAD_TIMEOUT_MS,
      });
      await answer.body.dump();
      if (answer.statusCode >= 300)
        throw new UploadFailedError(`the upload URL answered ${answer.statusCode}`);
    } catch (error) {
      throw error instanceof UploadFailedError
        ? error
        : new UploadFailedError('the chart could not be uploaded', { cause: error });
    }
    return { fileId };
  }

  async publish(
    schedule: Schedule,
    report: DailyReport,
    staged: StagedPost,
  ): Promise<{ ts?: string }> {
    const token = await this.clients.tokenFor(schedule.workspaceId);
    const client = this.clients.client;
    const text = dailyReportText(report);
    return this.pacer.turn(schedule.channelId, async () => {
      try {
        if ('fileId' in staged) {
          const done = await client.files.completeUploadExternal({
            token,
            files: [{ id: staged.fileId, title: report.title }],
            channel_id: schedule.channelId,
            initial_comment: text,
          });
          const [file] = (done.files ?? []) as Array<{ shares?: Record<string, FileShares> }>;
          const shared = shareIn(file?.shares, schedule.channelId);
          if (shared?.ts) return shared;
          // Slack shares a completed upload a moment later: its message ts is asked for once.
          const seen = await this.published(schedule, staged).catch(() => false as const);
          return typeof seen === 'object' ? seen : {};
        }
        const posted = await client.chat.postMessage({
          token,
          channel: schedule.channelId,
          text: `${text}\nNo traffic that day.`,
        });
        return posted.ts ? { ts: posted.ts } : {};
      } catch (error) {
        throw asPostRefusal(error, 'report');
      }
    });
  }

  async published(
    schedule: Schedule,
    staged: StagedPost,
  ): Promise<{ ts?: string } | false | 'unknown'> {
    // Slack keeps no key for a plain message: whether it landed cannot be asked.
    if (!('fileId' in staged)) return 'unknown';
    const token = await this.clients.tokenFor(schedule.workspaceId);
    try {
      const { file } = await this.clients.client.files.info({ token, file: staged.fileId });
      const shared = shareIn(
        file?.shares as Record<string, FileShares> | undefined,
        schedule.channelId,
      );
      if (shared) return shared;
      const channels = [...(file?.channels ?? []), ...(file?.groups ?? []), ...(file?.ims ?? [])];
      return channels.includes(schedule.channelId) ? {} : false;
    } catch (error) {
      // An upload never completed is not a file yet; without files:read the question has no answer.
      if (slackErrorCode(error) === 'file_not_found') return false;
      if (slackErrorCode(error) === 'missing_scope') return 'unknown';
      throw error;
    }
  }

  transient(error: unknown): boolean {
    return error instanceof UploadFailedError || isTransientSlackError(error);
  }

  retryAfterMs(error: unknown): number | undefined {
    return slackRetryAfterMs(error);
  }

  reasonFor(error: unknown): string {
    return errorText(asSlackProblem(error));
  }

  async paused(schedule: Schedule, reason: string): Promise<void> {
    const token = await this.clients.tokenFor(schedule.workspaceId);
    await this.clients.client.chat.postMessage({
      token,
      channel: schedule.createdBy,
      text: reportPausedText(schedule, reason),
    });
  }
}

/** The share of a file in one channel, public or private, as files.info and uploads give it. */
function shareIn(
  shares: Record<string, FileShares> | undefined,
  channelId: string,
): { ts?: string } | undefined {
  for (const kind of ['public', 'private'] as const) {
    const list = shares?.[kind]?.[channelId];
    if (list) return list[0]?.ts ? { ts: list[0].ts } : {};
  }
  return undefined;
}
