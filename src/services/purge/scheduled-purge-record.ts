// A scheduled purge as stored and shown: its job's payload, the view its list and messages show,
// and the audit entry each of its steps leaves.
import { DateTime } from 'luxon';
import type { ZoneOfEntry } from '../../store/audit-log.js';
import type { Store } from '../../store/index.js';
import type { Job } from '../../store/jobs.js';
import type { Zone } from '../zones/zones.js';

export const SCHEDULED_PURGE_JOB = 'scheduled_purge';

/** How many scheduled purges a list shows (and a cancel by a short id looks among). */
export const LIST_LIMIT = 50;
/** The short id people see and type: the job id's first characters. */
export const SHORT_ID = 8;

export type ScheduledWhat =
  | {
      kind: 'items';
      groups: Array<{ zone: Zone; files: string[]; tags: string[] }>;
      verify?: boolean;
      fromDefault?: boolean;
    }
  | { kind: 'everything'; zone: Zone; approvalId: string };

/** A scheduled purge asked over the HTTP API: its record there and the token that asked. */
export interface ScheduledApiRef {
  purgeId: string;
  tokenId: string;
  /** URLs only: once purged, asked of the edge again. */
  warm?: boolean;
}

export interface ScheduledPurgePayload {
  /** A Slack user, or `token:<name>` for one asked over the HTTP API (then `api` is set). */
  requesterId: string;
  api?: ScheduledApiRef;
  channelId?: string;
  dueAt: number;
  /** The requester's time zone when asked (users.info `tz`, else UTC): how their time was read. */
  timeZone: string;
  what: ScheduledWhat;
}

/** A scheduled purge as its list and messages show it. */
export interface ScheduledPurge {
  id: string;
  workspaceId: string;
  shortId: string;
  requesterId: string;
  channelId?: string;
  dueAt: number;
  timeZone: string;
  /** The time as the requester's clock reads it (`2026-12-03 02:00`). */
  localTime: string;
  zoneNames: string[];
  everything: boolean;
  files: number;
  tags: number;
}

/** The job key of a scheduled purge asked over the HTTP API: one per API record. */
export const scheduledApiKey = (apiPurgeId: string) => `api-scheduled:${apiPurgeId}`;

export function zonesOf(what: ScheduledWhat): Zone[] {
  return what.kind === 'items' ? what.groups.map((g) => g.zone) : [what.zone];
}

export function viewOf(job: Job<ScheduledPurgePayload, unknown>): ScheduledPurge {
  const { payload } = job;
  const { what } = payload;
  const groups = what.kind === 'items' ? what.groups : [];
  return {
    id: job.id,
    workspaceId: job.workspaceId,
    shortId: job.id.slice(0, SHORT_ID),
    requesterId: payload.requesterId,
    ...(payload.channelId ? { channelId: payload.channelId } : {}),
    dueAt: payload.dueAt,
    timeZone: payload.timeZone,
    localTime: DateTime.fromMillis(payload.dueAt, { zone: payload.timeZone }).toFormat(
      'yyyy-LL-dd HH:mm',
    ),
    zoneNames: what.kind === 'everything' ? [what.zone.name] : groups.map((g) => g.zone.name),
    everything: what.kind === 'everything',
    files: groups.reduce((n, g) => n + g.files.length, 0),
    tags: groups.reduce((n, g) => n + g.tags.length, 0),
  };
}

/** One step of a scheduled purge (asked, cancelled, ran, skipped) in the audit log. */
export async function auditScheduled(
  store: Store,
  jobId: string,
  workspaceId: string,
  payload: ScheduledPurgePayload,
  actorId: string,
  action: string,
  outcome: string,
  detail: Record<string, unknown>,
  key?: string,
): Promise<void> {
  const { what } = payload;
  const zone = what.kind === 'everything' ? what.zone : what.groups[0]?.zone;
  const onZone: ZoneOfEntry = zone
    ? { zoneId: zone.id, zoneName: zone.name, accountId: zone.accountId }
    : {};
  await store.audit.record({
    ...(key ? { key } : {}),
    workspaceId,
    actorId,
    action,
    ...onZone,
    outcome,
    detail: {
      scheduled: jobId,
      everything: what.kind === 'everything',
      ...(what.kind === 'items'
        ? {
            zones: what.groups.length,
            files: what.groups.reduce((n, g) => n + g.files.length, 0),
            tags: what.groups.reduce((n, g) => n + g.tags.length, 0),
          }
        : { approval: what.approvalId }),
      ...detail,
    },
  });
}
