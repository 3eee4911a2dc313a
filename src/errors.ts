// The shape every project error shares, and the problems the bot reports to users: data (a code and
// its parameters), never words. src/blocks/problems.ts turns each into a sentence.

export interface CodedError extends Error {
  code: string;
}

/** The workspace limits an admin sets with `/cdn config limits` (see store/workspaces.ts). */
export type LimitName =
  | 'rulesPerWatch'
  | 'watches'
  | 'watchesPerPerson'
  | 'reports'
  | 'reportsPerPerson';

/** What a person may be refused: each renders as "Only … can <doing>". */
export type Action =
  | 'set_key'
  | 'remove_key'
  | 'configure_access'
  | 'purge'
  | 'create_zone'
  | 'ratelimit'
  | 'manage_reports'
  | 'approve'
  | 'bind_channel'
  | 'manage_watches'
  | 'read_zones'
  | 'read_audit'
  | 'read_config'
  /** Creating, listing and revoking tokens of the HTTP API. */
  | 'manage_api_tokens'
  /** Reads the bot makes of the CDN for someone: zone lists, charts. */
  | 'read_cdn'
  /** Declaring and removing change freezes. */
  | 'manage_freezes';

/** Where the bot could not post (the Slack error code says why). */
export type PostPlace = 'chart' | 'approval' | 'report' | 'alert';

/**
 * Slack's refusals of a post because of where it goes (chat.postMessage's errors,
 * https://docs.slack.dev/reference/methods/chat.postMessage): the bot is not in the conversation or
 * cannot see it, it is archived, or only some may post there (a workspace preference, a read-only
 * channel, a thread-only channel), or the organization's administrators revoked its content's keys
 * (`ekm_access_denied`, in the Errors table of every method page).
 */
export const POST_REFUSED_THERE = [
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'ekm_access_denied',
] as const;
export type PostRefusedThere = (typeof POST_REFUSED_THERE)[number];

export type Problem =
  /** The workspace has no CDN API key yet. */
  | { code: 'no_api_key' }
  /** The database did not answer in time (an outage, a failover, a partition). */
  | { code: 'storage_unavailable' }
  /** Every chart worker is busy and the queue in front of them is full. */
  | { code: 'charts_busy' }
  /** The workspace's stored base URL is plain http: it is not called. */
  | { code: 'insecure_base_url' }
  /** `organization`: the app is installed for a whole Grid organization, which its admins administer. */
  | { code: 'not_admin'; action: Action; organization?: boolean }
  /** `account`: the CDN account has its own operators group, and the caller is not in it. */
  | { code: 'not_operator'; action: Action; account?: string }
  /** The requester of a purge-everything tried to approve it. */
  | { code: 'self_approval' }
  | { code: 'not_approver'; account?: string }
  /**
   * Not one of this workspace's people: users.info does not know them or calls them a stranger,
   * or (`external`) they belong to another workspace sharing the channel, of another organization
   * (`organization`: Grid on either side, through Slack Connect). Refused `action`.
   */
  | { code: 'stranger'; action?: Action; external?: boolean; organization?: boolean }
  /** One of this workspace's people whose account is deactivated (users.info `deleted`). Refused `action`. */
  | { code: 'deactivated'; action?: Action }
  /**
   * A guest of this workspace (multi- or single-channel) refused `action`. `grantable`: an admin
   * can allow it (`/cdn config guests operate`); otherwise it stays with full members.
   */
  | { code: 'guest'; action: Action; grantable: boolean }
  | { code: 'zone_not_found'; query: string; suggestions: string[] }
  /** A CDN account was named that the workspace does not have: its accounts are listed. */
  | { code: 'account_unknown'; name: string; accounts: string[] }
  /** The channel is bound to `bound`; another account (`asked`) is never used from it. */
  | { code: 'account_bound'; bound: string; asked: string }
  /**
   * An account typed (`asked`) with no zone named, in a channel whose default zone is of another
   * account: that zone is not used in its place.
   */
  | { code: 'channel_default_elsewhere'; zoneName: string; account: string; asked: string }
  /** Two accounts typed in one command. */
  | { code: 'account_conflict'; first: string; second: string }
  /** The zone name is in several accounts: the command is asked again with one of them. */
  | { code: 'zone_ambiguous'; zoneName: string; accounts: string[] }
  /**
   * A command that names no zone (`/cdn zones`, `/cdn create`) in a workspace with several CDN
   * accounts, none named: it is asked again with one of `accounts`.
   */
  | { code: 'account_needed'; command: string; accounts: string[] }
  /** This command does not act on a named CDN account. */
  | { code: 'account_unsupported'; command: string; account: string }
  | { code: 'invalid_domain'; domain: string; reason: string }
  | { code: 'too_many_changes'; limit: number; retryInSeconds: number }
  /**
   * Reads of the CDN (zone lists, charts) past the bound of one person (`person`) or of the whole
   * workspace (`workspace`) in a minute: refused before the CDN is called.
   */
  | { code: 'too_many_reads'; scope: 'person' | 'workspace'; limit: number; retryInSeconds: number }
  /**
   * Edge checks of purged URLs (Verify) past the bound of one person or of the whole workspace in
   * a minute: refused before the edge is asked.
   */
  | {
      code: 'too_many_verifications';
      scope: 'person' | 'workspace';
      limit: number;
      retryInSeconds: number;
    }
  /** Audit exports past the bound of one person or of the whole workspace in an hour: none made. */
  | {
      code: 'too_many_exports';
      scope: 'person' | 'workspace';
      limit: number;
      retryInSeconds: number;
    }
  /** Command or message text longer than Slack's own limit: refused before it is read. */
  | { code: 'text_too_long'; what: 'command' | 'message'; length: number; max: number }
  | { code: 'purge_unknown' }
  | { code: 'nothing_to_retry' }
  /** A purge with no URL that went through (tags only, or all failed): nothing to check at the edge. */
  | { code: 'nothing_to_verify' }
  /** A workflow step's items, some of which cannot be purged as asked (a step holds nothing). */
  | { code: 'workflow_step_refused'; items: string[] }
  /** A verification that found no URL still cached (or one not known here). */
  | { code: 'nothing_to_repurge' }
  | { code: 'no_urls_in_message' }
  /** A held purge (some URLs served by another zone) that is not known here. */
  | { code: 'purge_hold_unknown' }
  /** A held purge already confirmed, cancelled, or left until it lapsed. */
  | { code: 'purge_hold_closed'; status: 'confirmed' | 'cancelled' | 'expired' }
  /** Someone other than its requester tried to confirm or cancel a held purge. */
  | { code: 'not_purge_requester' }
  /** A purge's time (`at …`, `in …`, the form's field, `not_before`) that is not one. */
  | { code: 'schedule_time_invalid'; text: string }
  /** A purge's time in the past, or further ahead than a scheduled purge may wait. */
  | { code: 'schedule_time_out_of_range'; reason: 'past' | 'too_far'; maxDays: number }
  /** A scheduled purge takes only URLs its zone serves (no held purge waits for a later time). */
  | { code: 'schedule_elsewhere'; count: number }
  /** No scheduled purge of this workspace has this id. */
  | { code: 'scheduled_purge_unknown'; id: string }
  /** Only its requester or an admin cancels a scheduled purge. */
  | { code: 'scheduled_purge_not_yours' }
  /** A scheduled purge of everything nobody approved before its time: it did not run. */
  | {
      code: 'scheduled_purge_unapproved';
      zoneName: string;
      status: 'expired' | 'denied' | 'cancelled';
    }
  /** Too late to cancel: it is running or over. */
  | { code: 'scheduled_purge_closed'; state: 'running' | 'over' }
  | { code: 'approval_unknown' }
  /** An API token that is not this workspace's (or no longer exists). */
  | { code: 'api_token_unknown' }
  /**
   * A new API token's name, kinds or zones are not acceptable (limits in the sentence); `account`:
   * it is for every CDN account and names zones (a zone is one account's).
   */
  | { code: 'api_token_invalid'; field: 'name' | 'kinds' | 'zones' | 'account' }
  /** A zone picked for a new API token is of another CDN account than the token's. */
  | { code: 'api_token_zone_account'; zoneName: string; zoneAccount: string; tokenAccount: string }
  | { code: 'approval_closed'; status: 'approved' | 'denied' | 'cancelled' | 'expired' }
  /** A request cancelled because an admin (`by`) removed its CDN account (`account`, if named). */
  | { code: 'approval_account_removed'; by: string; account?: string }
  | { code: 'approval_decided_meanwhile' }
  /**
   * A change freeze is in force over the zone or account (`target`): `action` is refused until
   * `endsAt` (epoch ms; its window as read in `timeZone`) unless an exception was approved.
   */
  | {
      code: 'frozen';
      action: 'everything' | 'ratelimit' | 'create' | 'purge';
      freezeId: string;
      target: string;
      /** What `/cdn freeze except` is asked on: the zone changed, or `account:<name>`. */
      exceptTarget?: string;
      reason: string;
      endsAt: number;
      timeZone: string;
    }
  /**
   * A freeze that cannot be declared: an unknown time zone (`word`), an end before its start, a
   * window already over, too many freezes, or an exception asked on something it cannot cover.
   */
  | {
      code: 'freeze_invalid';
      why: 'time_zone' | 'order' | 'past' | 'too_many' | 'exception_target';
      word?: string;
    }
  /** No single freeze of this workspace has an id starting with `prefix`. */
  | { code: 'freeze_unknown'; prefix: string }
  /** An exception asked where no freeze is in force (`target`: the zone or account). */
  | { code: 'freeze_none'; target: string }
  /** An exception already decided, used, or past its freeze's window. */
  | {
      code: 'freeze_exception_closed';
      status: 'approved' | 'denied' | 'expired' | 'used' | 'cancelled';
    }
  /** The zone already has an open purge-everything request (at most one per zone). */
  | { code: 'approval_pending'; zoneName: string; channelId: string; link?: string }
  | { code: 'not_requester' }
  | { code: 'report_not_found'; prefix: string }
  | { code: 'report_already_stopped' }
  /** The user's DM with the bot is closed (apps' DMs can be turned off for a workspace). */
  | { code: 'dm_refused' }
  /** A button that needs a conversation was used where there is none. */
  | { code: 'no_conversation' }
  /** The bot was asked to post, for someone, in a conversation they are not in. */
  | { code: 'not_in_conversation' }
  /** `inDm`: the conversation is a DM between people, which the bot cannot be invited to. */
  | { code: 'cannot_post'; place: PostPlace; slackError: string; inDm?: boolean }
  /** A word that is neither an analytics range nor a granularity. */
  | { code: 'not_a_range'; word: string }
  /**
   * A word of `/cdn audit`'s filters that cannot be read: an unknown kind, a date not written
   * YYYY-MM-DD, since after until, a filter given twice, a person typed as a name Slack did not
   * turn into a mention, or a word that is no filter.
   */
  | {
      code: 'audit_filter';
      word: string;
      reason: 'kind' | 'date' | 'range' | 'repeated' | 'unknown' | 'name';
    }
  /** The person already has an audit export under way: one at a time. */
  | { code: 'export_running' }
  | {
      code: 'too_many_points';
      range: string;
      granularity: string;
      points: number;
      max: number;
      suggested: string;
    }
  /**
   * Checks of a submitted form (the API key's) that did not finish in time, and what they were
   * still waiting for: nothing was saved.
   */
  | { code: 'checks_too_slow'; waitingFor: 'slack' | 'dns' | 'cdn'; seconds: number }
  /** Slack's trigger for a modal expired (3 s) or was unknown before the bot could use it. */
  | { code: 'trigger_expired' }
  /** Slack did not answer within the bot's bound (a timeout, a 5xx) or is rate limiting it. */
  | { code: 'slack_unavailable'; retryInSeconds?: number }
  /** A command that needs a zone got none, and the channel has no default zone. */
  | { code: 'no_zone_named'; command: 'purge' | 'analytics' | 'ratelimit' }
  /**
   * The channel is bound to a CDN account that was removed (`account`: its name, when known): its
   * zone commands are refused until it is bound again or unbound, never sent to another account.
   */
  | { code: 'channel_account_removed'; account?: string }
  /** The channel's default zone was chosen under an older CDN API key: it was dropped. */
  | { code: 'channel_default_stale'; zoneName: string }
  /** The channel's default zone is deleted, or the CDN no longer has it. */
  | { code: 'channel_default_gone'; zoneName: string; deleted: boolean }
  /** A deleted zone cannot become a channel's default. */
  | { code: 'zone_deleted'; zoneName: string }
  /** Purges are limited to some channels (`/cdn config purge-channels`), not this one. */
  | {
      code: 'purge_channel_restricted';
      /** The allowed channels the person is in. */
      channelIds: string[];
      /** How many other allowed channels there are, which the person is not in (not named). */
      hidden?: number;
    }
  /** A threshold typed after `/cdn watch <zone>` that does not parse. */
  | { code: 'invalid_threshold'; text: string; reason: string }
  /** `/cdn unwatch <zone>` where this channel does not watch it. */
  | { code: 'not_watching'; zoneName: string }
  /** A button of an alert that is gone (its watch removed). */
  | { code: 'alert_unknown' }
  /** A button of a watch that is gone (unwatched, or deleted at logout). */
  | { code: 'watch_unknown' }
  /**
   * Storing this would pass one of the workspace's limits (`/cdn config limits`): nothing was
   * stored. `count`: how many there are (for rules per watch, how many the watch would have).
   */
  | { code: 'limit_reached'; limit: LimitName; max: number; count: number }
  /** `/cdn config limits <limit> <number>` with a number that is not a whole 0 to `ceiling`. */
  | { code: 'limit_out_of_range'; limit: LimitName; ceiling: number }
  /** An account name that is no slug (1 to 32 letters, digits or inner hyphens). */
  | { code: 'account_name_invalid'; name: string }
  | { code: 'account_name_taken'; name: string }
  /** No CDN account of that name (or id) in this workspace. */
  | { code: 'account_not_found'; name?: string };

export type ProblemCode = Problem['code'];

/** An expected failure: what went wrong, as data for src/blocks to put in words. */
export class AppError<P extends Problem = Problem> extends Error implements CodedError {
  override readonly name = 'AppError';
  readonly code: P['code'];
  constructor(
    readonly problem: P,
    options?: { cause?: unknown },
  ) {
    // The message is for logs: the code, never user input.
    super(problem.code, options);
    this.code = problem.code;
  }
}

/**
 * How loud a background failure is: the database being away is expected (it is answered, and the
 * work waits for it); anything else is a bug worth an error.
 */
export function logLevelOf(error: unknown): 'warn' | 'error' {
  return isStorageUnavailable(error) ? 'warn' : 'error';
}

/** The database did not answer: a failure that passes by itself. */
export function isStorageUnavailable(error: unknown): boolean {
  return error instanceof AppError && error.code === 'storage_unavailable';
}
