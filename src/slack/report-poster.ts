// ReportPoster over the Web API. A chart is posted in two moves so that a crash between them can
// be told apart afterwards: the file is uploaded (files.getUploadURLExternal and its upload URL:
// nobody sees it yet), then shared in the channel with its text (files.completeUploadExternal).
// files.info says whether that share happened. At most one post per second per channel (Slack's
// limit for chat messages) and each file method within its tier, across every replica (CallPace),
// and a DM when a schedule pauses. A report names its creator as Slack shows them (users.info,
// kept a minute), never with a mention, which would notify them every day.
import { dailyReportText, reportPausedText } from '../blocks/reports.js';
import type { DailyReport } from '../services/reports/daily-report.js';
import type { ReportPoster, StagedPost } from '../services/reports/report-delivery.js';
import type { Schedule } from '../store/schedules.js';
import type { CallPace } from '../throttles/call-pace.js';
import { type GroupMembersCache, webDirectory } from './directory.js';
import { failureReason } from './explain.js';
import { type UploadBody, UploadFailedError, uploadFile } from './uploads.js';
import {
  asPostRefusal,
  isTransientSlackError,
  slackErrorCode,
  slackRetryAfterMs,
} from './web-api-errors.js';
import { paceKeys } from './web-api-paces.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** How long an upload of a chart's bytes may take before it is tried again later. */
const UPLOAD_TIMEOUT_MS = 20_000;

/** A chart's bytes, as its upload sends them (an upload failed is staged again later). */
export function chartBody(png: Buffer): UploadBody {
  return {
    bytes: png,
    length: png.length,
    contentType: 'application/octet-stream',
    timeoutMs: UPLOAD_TIMEOUT_MS,
    what: 'the chart',
  };
}

type FileShares = Record<string, Array<{ ts?: string }> | undefined>;

export class SlackReportPoster implements ReportPoster {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly pace: CallPace,
    private readonly people: GroupMembersCache,
  ) {}

  /** The creator's name as Slack shows them; none when Slack does not say (the text says "a member"). */
  async #creatorName(schedule: Schedule, token: string): Promise<string | undefined> {
    const directory = webDirectory(
      this.clients.client,
      schedule.workspaceId,
      this.people,
      await this.clients.enterpriseOf(schedule.workspaceId),
      token,
    );
    return directory
      .user(schedule.createdBy)
      .then((found) => found.name)
      .catch(() => undefined);
  }

  async stage(schedule: Schedule, report: DailyReport, signal?: AbortSignal): Promise<StagedPost> {
    const png = report.png;
    if (!png) return { text: true };
    return {
      fileId: await uploadFile(
        this.clients,
        this.pace,
        schedule.workspaceId,
        report.filename,
        chartBody(png),
        signal,
      ),
    };
  }

  async publish(
    schedule: Schedule,
    report: DailyReport,
    staged: StagedPost,
    signal?: AbortSignal,
  ): Promise<{ ts?: string }> {
    const token = await this.clients.tokenFor(schedule.workspaceId);
    const client = this.clients.client;
    const text = dailyReportText(report, await this.#creatorName(schedule, token)).text;
    // The channel's limit last: its slot is when the post goes (see CallPace.turn).
    const keys = [
      ...('fileId' in staged
        ? [paceKeys.tier4(schedule.workspaceId, 'files.completeUploadExternal')]
        : []),
      paceKeys.channel(schedule.workspaceId, schedule.channelId),
    ];
    return this.pace.turn(
      keys,
      async () => {
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
            const seen = await this.published(schedule, staged, signal).catch(() => false as const);
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
      },
      signal,
    );
  }

  async published(
    schedule: Schedule,
    staged: StagedPost,
    signal?: AbortSignal,
  ): Promise<{ ts?: string } | false | 'unknown'> {
    // Slack keeps no key for a plain message: whether it landed cannot be asked.
    if (!('fileId' in staged)) return 'unknown';
    const token = await this.clients.tokenFor(schedule.workspaceId);
    try {
      const { file } = await this.pace.turn(
        [paceKeys.tier4(schedule.workspaceId, 'files.info')],
        () => this.clients.client.files.info({ token, file: staged.fileId }),
        signal,
      );
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
    return failureReason(error);
  }

  async paused(schedule: Schedule, reason: string): Promise<void> {
    const token = await this.clients.tokenFor(schedule.workspaceId);
    await this.clients.client.chat.postMessage({
      token,
      channel: schedule.createdBy,
      text: reportPausedText(schedule, reason).text,
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
