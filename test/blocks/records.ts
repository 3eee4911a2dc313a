// Stored records for the Block Kit tables (hostile.test.ts, oversized.test.ts), every field a person
// or the CDN supplies set to the text given: one shape of each record, two kinds of text.
import type { DailyReport } from '../../src/services/reports/daily-report.js';
import type { Approval } from '../../src/store/approvals.js';
import type { Schedule } from '../../src/store/schedules.js';
import type { Watch } from '../../src/store/watches.js';

/** The CDN account every record here is of (an id the bot made, no text of anyone's). */
export const RECORD_ACCOUNT = 'acc_1';

export const approvalWith = (
  text: string,
  status: Approval['status'],
  outcome: Approval['outcome'],
  zoneId: string,
): Approval => ({
  id: 'a1',
  workspaceId: 'T1',
  accountId: RECORD_ACCOUNT,
  zoneId,
  zoneName: text,
  requesterId: 'U1',
  reason: text,
  channelId: 'C1',
  messageTs: null,
  status,
  decidedBy: 'U2',
  decidedAt: 1,
  decisionNote: text,
  outcome,
  purgeId: text,
  outcomeDetail: text,
  expiresAt: 1,
  createdAt: 0,
  updatedAt: 0,
});

export const scheduleWith = (
  text: string,
  fields: Pick<Schedule, 'id' | 'zoneId' | 'channelId' | 'status'>,
): Schedule => ({
  ...fields,
  workspaceId: 'T1',
  accountId: RECORD_ACCOUNT,
  zoneName: text,
  createdBy: 'U1',
  timeOfDay: '09:00',
  timeZone: text,
  nextRunAt: 0,
  lastRunAt: null,
  pausedReason: text,
  createdAt: 0,
  updatedAt: 0,
});

export const watchWith = (
  text: string,
  fields: Pick<Watch, 'id' | 'zoneId' | 'channelId' | 'rules'>,
): Watch => ({
  ...fields,
  workspaceId: 'T1',
  accountId: RECORD_ACCOUNT,
  zoneName: text,
  createdBy: 'U1',
  createdAt: 0,
});

/** A daily report's text's input, every name `text`, with yesterday's and the day before's. */
export const dailyReportWith = (
  text: string,
  yesterday: DailyReport['yesterday'],
  dayBefore: DailyReport['dayBefore'],
): DailyReport => ({
  zoneName: text,
  dayLabel: text,
  timeZone: text,
  yesterday,
  dayBefore,
  title: text,
  filename: text,
  setUpBy: 'U1',
});
