// How a purge is shown while it runs and once it ends: where it stands, what each zone's run came
// to, and the view port the purge job speaks to (implemented over Slack messages in src/slack).
import type { PurgeReport } from '../../cdn/purge.js';
import type { PurgeJob } from '../../store/purges.js';
import type { ReplyTo } from '../reply.js';

/** One zone's purge: its record and what the CDN said to its batches. */
export interface PurgeRun {
  job: PurgeJob;
  report: PurgeReport;
}

/** Where a purge stands, for its progress message. */
export interface PurgeStatus {
  zoneNames: string[];
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
  files: number;
  tags: number;
  actorId: string;
  done: number;
  total: number;
}

export interface PurgeOutcome {
  /** One per zone that was purged, in order. */
  runs: PurgeRun[];
  actorId: string;
  /** Why the zones after the last run were not purged, when one failed outright. */
  error?: unknown;
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
}

/** How a running purge is shown to people; implemented over Slack messages in src/slack. */
export interface PurgeProgressView {
  started(status: PurgeStatus): Promise<void>;
  progressed(status: PurgeStatus): Promise<void>;
  /** The process is stopping; the purge resumes by itself (here or on another replica). */
  paused(status: PurgeStatus): Promise<void>;
  /**
   * Called once the purge ended, whatever happened: a message saying "Purging…" must not stay so.
   * ViewNotNow when it cannot be said yet (Slack's rate limit): the job says it again then. The
   * other three are progress: they skip what cannot be said now, and never throw ViewNotNow.
   */
  finished(outcome: PurgeOutcome): Promise<void>;
}

/** A purge asked for over the HTTP API: the API's record of it (see ApiPurgeService). */
export interface ApiPurgeOrigin {
  purgeId: string;
  sample?: string[];
}

/** Opens the view of a purge job: its message, carried across attempts by `state` and `save`. */
export type PurgeViews = (
  workspaceId: string,
  replyTo: ReplyTo,
  state: Record<string, unknown>,
  save: (state: Record<string, unknown>) => Promise<void>,
  /** The job's payload: a purge asked for over the HTTP API carries `api`. */
  payload?: { api?: ApiPurgeOrigin },
) => PurgeProgressView;
