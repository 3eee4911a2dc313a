// ReportPoster over the Web API: the chart and its text in the schedule's channel, at most one
// post per second per channel (Slack's limit for chat messages), and a DM when a schedule pauses.
import { setTimeout as delay } from 'node:timers/promises';
import { errorText } from '../blocks/errors.js';
import { dailyReportText, reportPausedText } from '../blocks/reports.js';
import type { ReportPoster } from '../jobs/report-scheduler.js';
import type { DailyReport } from '../services/daily-report.js';
import type { Schedule } from '../store/schedules.js';
import { asPostRefusal } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

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

export class SlackReportPoster implements ReportPoster {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly pacer = new ChannelPacer(),
  ) {}

  async post(schedule: Schedule, report: DailyReport): Promise<void> {
    const token = await this.clients.tokenFor(schedule.workspaceId);
    const client = this.clients.client;
    const text = dailyReportText(report);
    await this.pacer.turn(schedule.channelId, async () => {
      try {
        if (report.png) {
          await client.filesUploadV2({
            token,
            channel_id: schedule.channelId,
            file: report.png,
            filename: report.filename,
            title: report.title,
            initial_comment: text,
          });
        } else {
          await client.chat.postMessage({
            token,
            channel: schedule.channelId,
            text: `${text}\nNo traffic that day.`,
          });
        }
      } catch (error) {
        throw asPostRefusal(error, 'report');
      }
    });
  }

  reasonFor(error: unknown): string {
    return errorText(error);
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
