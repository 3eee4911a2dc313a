// Every problem the bot reports, in words: short, specific, and saying what to do next. Sentences
// are md`…` templates, so values that came from a person or the CDN are escaped as they go in.
// (Over 400 lines: one switch over every problem code, kept whole so that none is left unworded.)
import type { Action, LimitName, PostPlace, PostRefusedThere, Problem } from '../errors.js';
import { zoneLabel } from '../zone-names.js';
import { actorLabel } from './actors.js';
import { channelAccountRemoved, purgeChannelsText } from './channels.js';
import { LIMIT_WORDS } from './config.js';
import {
  channel,
  clip,
  code,
  join,
  link,
  MAX_SENTENCE,
  type Mrkdwn,
  md,
  slackDate,
} from './text.js';

const DOING: Record<Action, string> = {
  set_key: 'set the CDN API key',
  remove_key: 'remove the CDN API key',
  configure_access: 'change who may operate the CDN',
  purge: 'purge cached content',
  create_zone: 'onboard domains',
  ratelimit: 'change rate limits',
  manage_reports: 'manage daily reports',
  approve: 'approve or deny purges',
  bind_channel: "set a channel's default zone",
  manage_watches: 'watch zones',
  read_zones: 'list zones or draw traffic charts',
  read_audit: 'read the audit log',
  read_config: 'see the CDN settings',
  manage_api_tokens: 'manage API tokens',
  read_cdn: "use this workspace's CDN (zone lists, charts)",
  manage_freezes: 'declare or remove change freezes',
};

const FROZEN_DOING: Record<Extract<Problem, { code: 'frozen' }>['action'], string> = {
  everything: 'Purging everything',
  ratelimit: 'Changing rate limits',
  create: 'Onboarding domains',
  purge: 'Purging URLs and tags',
};

const FROZEN_WORD: Record<Extract<Problem, { code: 'frozen' }>['action'], string> = {
  everything: 'everything',
  ratelimit: 'ratelimit',
  create: 'create',
  purge: 'purge',
};

const FREEZE_INVALID: Record<
  Exclude<Extract<Problem, { code: 'freeze_invalid' }>['why'], 'time_zone'>,
  string
> = {
  order: 'A freeze must end after it starts.',
  past: 'That window is already over.',
  too_many:
    'This workspace has as many freezes as it may keep: remove one first (`/cdn freeze list`).',
  exception_target:
    'An exception is asked for a zone (`everything`, `ratelimit`, `purge`) or, for `create`, an `account:<name>`.',
};

const EXCEPTION_STATUS: Record<
  Extract<Problem, { code: 'freeze_exception_closed' }>['status'],
  string
> = {
  approved: 'This exception was already approved.',
  denied: 'This exception was denied.',
  expired: 'This exception is closed: its freeze window ended.',
  used: 'This exception was already used.',
  cancelled: 'This exception is closed: its change freeze was removed, so none is needed.',
};

const PLACE: Record<PostPlace, string> = {
  chart: 'The chart was not posted',
  approval: 'The approval request was not posted',
  report: 'The report could not be posted',
  alert: 'The alert could not be posted',
};

/** What a form's checks were still waiting for when they ran out of time. */
const WAITING_FOR: Record<Extract<Problem, { code: 'checks_too_slow' }>['waitingFor'], string> = {
  slack: 'Slack did not say whether you are a workspace admin',
  dns: "the base URL's host name did not resolve",
  cdn: 'the CDN did not answer the key check',
};

/** Why Slack refused a post there, one reason for each of its codes. */
const CANNOT_POST_THERE: Record<PostRefusedThere, string> = {
  not_in_channel: 'I am not in that channel. Invite me with `/invite @cdn`',
  channel_not_found: 'I can’t see that channel. Invite me with `/invite @cdn`',
  is_archived: 'the channel is archived',
  restricted_action: 'a workspace setting keeps me from posting there',
  restricted_action_read_only_channel: 'that channel only lets some people post',
  restricted_action_thread_only_channel: 'that channel only takes replies in threads',
  ekm_access_denied: 'your organization’s administrators have suspended posting there',
};

/** Why Slack refused a post, for the Slack error codes that are about where we post. */
const CANNOT_POST: Record<string, string> = {
  ...CANNOT_POST_THERE,
  invalid_auth: 'the app was uninstalled or its token revoked',
  token_revoked: 'the app was uninstalled or its token revoked',
  account_inactive: 'the app was uninstalled or its token revoked',
};

/** Why a word of `/cdn audit`'s filters was not read. */
const AUDIT_FILTER: Record<Extract<Problem, { code: 'audit_filter' }>['reason'], string> = {
  kind: 'is not a kind: purge, purge-everything, ratelimit, key or config.',
  date: 'is not a date: write it `since:2026-11-01` or `until:2026-11-20` (year-month-day).',
  range: 'is an empty range: `since` must not be after `until`.',
  repeated: 'sets a filter a second time: give each filter once.',
  unknown:
    'is not a filter. Try `/cdn audit [zone] [@person | token:<name>] [kind:<kind>] [since:YYYY-MM-DD] [until:YYYY-MM-DD]`.',
  name: 'is not someone I can look up: pick the person from the @ menu, so Slack sends who they are.',
};

/** A DM between people: the bot is not part of it, and `/invite` cannot add it there. */
const NOT_IN_DM = 'I am not part of this DM. Run it in a channel I am in';

/** Whether a Slack error code is one the user can act on (else it is ours to log). */
export function isPostRefusal(slackError: string): boolean {
  return slackError in CANNOT_POST;
}

const HOLD_STATUS: Record<Extract<Problem, { code: 'purge_hold_closed' }>['status'], string> = {
  confirmed: 'This purge was already confirmed: it is running or done.',
  cancelled: 'This purge was cancelled: nothing of it was purged.',
  expired: 'This purge waited too long for an answer: nothing of it was purged. Run it again.',
};

const APPROVAL_STATUS: Record<Extract<Problem, { code: 'approval_closed' }>['status'], string> = {
  approved: 'This request was already approved.',
  denied: 'This request was already denied.',
  cancelled: 'This request was cancelled by the requester.',
  expired: 'This request has expired.',
};

/** How to name a zone, per command that may take the channel's default instead. */
const NAMED_ZONE: Record<Extract<Problem, { code: 'no_zone_named' }>['command'], string> = {
  purge: '`/cdn purge <zone> /path…` or full URLs',
  analytics: '`/cdn analytics <zone>`',
  ratelimit: '`/cdn ratelimit <zone> on|off`',
};

/** The sentence for a problem, as mrkdwn, short enough to be said anywhere. */
export function problemText(problem: Problem): Mrkdwn {
  return clip(sentence(problem), MAX_SENTENCE);
}

function sentence(problem: Problem): Mrkdwn {
  switch (problem.code) {
    case 'no_api_key':
      return md`This workspace has no CDN API key yet. A workspace admin can set one with \`/cdn login\`.`;
    case 'charts_busy':
      return md`I am drawing a lot of charts right now. Try again in a minute.`;
    case 'storage_unavailable':
      return md`My storage is unavailable right now, so nothing was done. Try again in a minute.`;
    case 'insecure_base_url':
      return md`This workspace's CDN base URL does not use https, so I won't call it. A workspace admin can set another with \`/cdn login\`.`;
    case 'not_admin':
      if (problem.organization)
        return md`Only your organization's admins and owners can ${DOING[problem.action]}: cdn-chatops is installed for the whole organization.`;
      return md`Only workspace admins and owners can ${DOING[problem.action]}.`;
    case 'not_operator':
      // Named in words: a <!subteam^…> mention would notify the whole group.
      if (problem.account)
        return md`Only members of the CDN account *${problem.account}*'s operators group can ${DOING[problem.action]} on it. \`/cdn accounts\` shows which group that is.`;
      return md`Only members of this workspace's CDN operators group can ${DOING[problem.action]}. \`/cdn config\` shows which group that is.`;
    case 'self_approval':
      return md`You asked for this purge, so someone else has to approve it.`;
    case 'not_approver':
      if (problem.account)
        return md`Only members of the CDN account *${problem.account}*'s purge approvers group can approve or deny its purges. \`/cdn accounts\` shows which group that is.`;
      return md`Only members of this workspace's purge approvers group can approve or deny. \`/cdn config\` shows which group that is.`;
    case 'stranger': {
      const doing = problem.action ? DOING[problem.action] : 'do that';
      if (problem.organization)
        return md`You are from another organization (this channel is shared with it through Slack Connect), so you can't ${doing} here. Ask someone from this workspace.`;
      return problem.external
        ? md`You are from another workspace (this channel is shared with it), so you can't ${doing} here. Ask someone from this workspace.`
        : md`I can't see your profile from this workspace (a guest from another organization?), so you can't ${doing} here.`;
    }
    case 'deactivated':
      return md`Your account in this workspace is deactivated, so you can't ${problem.action ? DOING[problem.action] : 'do that'} here.`;
    case 'guest':
      return problem.grantable
        ? md`Guests can't ${DOING[problem.action]} in this workspace. An admin can allow it with \`/cdn config guests operate\`.`
        : md`Guests can't ${DOING[problem.action]} in this workspace.`;
    case 'zone_not_found': {
      const hint =
        problem.suggestions.length > 0
          ? md` Did you mean ${join(
              problem.suggestions.slice(0, 3).map((name) => code(zoneLabel(name))),
              ' or ',
            )}?`
          : '';
      return md`No zone ${code(problem.query)} in this workspace.${hint}`;
    }
    case 'account_unknown':
      return md`No CDN account ${code(problem.name)} in this workspace. Its accounts: ${join(
        problem.accounts.map((name) => code(name)),
        ', ',
      )}.`;
    case 'account_bound':
      return md`This channel uses the CDN account ${code(problem.bound)}: ${code(problem.asked)} is not used here. Ask in a channel of that account, or without a channel account.`;
    case 'channel_default_elsewhere':
      return md`This channel's default zone *${zoneLabel(problem.zoneName)}* is in the CDN account ${code(problem.account)}, not ${code(problem.asked)}, so nothing was done. Name the zone (${code(`${problem.asked}/<zone>`)}), or leave the account out.`;
    case 'account_conflict':
      return md`Two CDN accounts named (${code(problem.first)} and ${code(problem.second)}): name one.`;
    case 'zone_ambiguous':
      return md`${code(zoneLabel(problem.zoneName))} is in several CDN accounts: ${join(
        problem.accounts.map((name) => code(`${name}/${problem.zoneName}`)),
        ' or ',
      )}. Write the one you mean.`;
    case 'account_needed':
      return md`This workspace has several CDN accounts: name one, as in ${join(
        problem.accounts.map((name) => code(`/cdn ${problem.command} account:${name}`)),
        ' or ',
      )}.`;
    case 'account_unsupported':
      return md`\`/cdn ${problem.command}\` acts on the CDN account \`default\` only for now, not ${code(problem.account)}.`;
    case 'invalid_domain':
      return md`${code(problem.domain)} is not a domain I can onboard: ${problem.reason}.`;
    case 'too_many_changes':
      return md`Slow down: that is more than ${problem.limit} changes (purges, new zones, rate-limit changes) from you in a minute. Nothing was sent to the CDN. Try again in ${problem.retryInSeconds} s.`;
    case 'too_many_reads':
      return problem.scope === 'person'
        ? md`Slow down: that is more than ${problem.limit} CDN reads (zone lists, charts) from you in a minute. Nothing was asked of the CDN. Try again in ${problem.retryInSeconds} s.`
        : md`This workspace has asked the CDN for more than ${problem.limit} reads (zone lists, charts) in the last minute. Nothing was asked of the CDN. Try again in ${problem.retryInSeconds} s.`;
    case 'too_many_verifications':
      return problem.scope === 'person'
        ? md`Slow down: that is more than ${problem.limit} edge checks (Verify) from you in a minute. Nothing was checked. Try again in ${problem.retryInSeconds} s.`
        : md`This workspace has asked for more than ${problem.limit} edge checks (Verify) in the last minute. Nothing was checked. Try again in ${problem.retryInSeconds} s.`;
    case 'too_many_exports': {
      const wait = retryText(problem.retryInSeconds);
      return problem.scope === 'person'
        ? md`Slow down: that is more than ${problem.limit} audit exports from you in an hour. Nothing was exported. Try again in ${wait}.`
        : md`This workspace has asked for more than ${problem.limit} audit exports in the last hour. Nothing was exported. Try again in ${wait}.`;
    }
    case 'text_too_long':
      return md`That ${problem.what} is too long to read: ${problem.length.toLocaleString('en')} characters, over Slack's own limit of ${problem.max.toLocaleString('en')}. Nothing was done.`;
    case 'purge_unknown':
      return md`That purge is not known here.`;
    case 'nothing_to_retry':
      return md`Nothing failed in that purge: there is nothing to retry.`;
    case 'nothing_to_verify':
      return md`That purge has no purged URL to check at the edge (tags cannot be checked).`;
    case 'workflow_step_refused':
      return md`Nothing was purged: ${join(
        problem.items.map((item) => code(item)),
        ', ',
      )} cannot be purged as asked.`;
    case 'nothing_to_repurge':
      return md`No URL of that check was still cached: there is nothing to purge again.`;
    case 'no_urls_in_message':
      return md`That message has no http(s) URLs to purge.`;
    case 'purge_hold_unknown':
      return md`That purge is not waiting for an answer here: run it again.`;
    case 'purge_hold_closed':
      return md`${HOLD_STATUS[problem.status]}`;
    case 'not_purge_requester':
      return md`Only the person who asked for this purge can confirm or cancel it.`;
    case 'schedule_time_invalid':
      return md`${code(problem.text.slice(0, 40))} is not a time I can read. Say \`at 02:00\`, \`at 2026-12-24 02:00\` (your time zone) or \`in 30m\` (\`m\`, \`h\`, \`d\`). Nothing was scheduled.`;
    case 'schedule_time_out_of_range':
      return problem.reason === 'past'
        ? md`That time has passed. Nothing was scheduled.`
        : md`A purge can be scheduled at most ${problem.maxDays} days ahead. Nothing was scheduled.`;
    case 'schedule_elsewhere':
      return md`${problem.count} of these URLs are not served by the zone named. A scheduled purge takes only URLs its zone serves: leave them out, or name no zone. Nothing was scheduled.`;
    case 'scheduled_purge_unknown':
      return md`No scheduled purge here has the id ${code(problem.id.slice(0, 40))}. \`/cdn purge scheduled\` lists them.`;
    case 'scheduled_purge_unapproved':
      return problem.status === 'expired'
        ? md`Nobody approved the purge of everything on ${zoneLabel(problem.zoneName)} before its time, so it did not run. Nothing was purged.`
        : md`The purge of everything on ${zoneLabel(problem.zoneName)} was ${problem.status} before its time, so it did not run. Nothing was purged.`;
    case 'scheduled_purge_not_yours':
      return md`Only the person who scheduled this purge, or an admin, can cancel it.`;
    case 'scheduled_purge_closed':
      return problem.state === 'running'
        ? md`That scheduled purge is running now: too late to cancel it.`
        : md`That scheduled purge is over (it ran, was skipped or was cancelled).`;
    case 'api_token_invalid':
      return problem.field === 'name'
        ? md`A token's name has 1 to 64 characters.`
        : problem.field === 'kinds'
          ? md`Choose at least one kind of purge the token may ask for.`
          : problem.field === 'account'
            ? md`A token for every CDN account purges all their zones: to pick zones, choose their account instead.`
            : md`Choose 1 to 100 zones, or every zone of the account.`;
    case 'api_token_zone_account':
      return md`*${zoneLabel(problem.zoneName)}* is a zone of the CDN account ${code(problem.zoneAccount)}, and this token is for ${code(problem.tokenAccount)}: pick zones of ${code(problem.tokenAccount)}, or make one token per account.`;
    case 'api_token_unknown':
      return md`That API token is not known here.`;
    case 'approval_unknown':
      return md`That request is not known here.`;
    case 'approval_closed':
      return md`${APPROVAL_STATUS[problem.status]}`;
    case 'approval_account_removed':
      return md`This request was cancelled: its CDN account${problem.account ? md` ${code(problem.account)}` : ''} was removed by ${actorLabel(problem.by)}.`;
    case 'approval_decided_meanwhile':
      return md`Someone else decided this request a moment ago.`;
    case 'frozen':
      return md`${FROZEN_DOING[problem.action]} is frozen on *${problem.target}* until ${slackDate(problem.endsAt)} (${problem.timeZone} window): ${problem.reason}. To go ahead anyway, ask for an exception a second person approves: \`/cdn freeze except ${problem.exceptTarget ?? problem.target} ${FROZEN_WORD[problem.action]} <reason>\`.`;
    case 'freeze_invalid':
      return problem.why === 'time_zone'
        ? md`${code(problem.word ?? '')} is not a time zone I know: use an IANA name such as \`Europe/Paris\` or \`UTC\`.`
        : md`${FREEZE_INVALID[problem.why]}`;
    case 'freeze_unknown':
      return md`No single freeze has the id ${code(problem.prefix)}. \`/cdn freeze list\` shows them.`;
    case 'freeze_none':
      return md`No freeze is in force over *${problem.target}* for that: go ahead without an exception.`;
    case 'freeze_exception_closed':
      return md`${EXCEPTION_STATUS[problem.status]}`;
    case 'approval_pending': {
      const where = problem.link
        ? link(problem.link, md`in ${channel(problem.channelId)}`)
        : md`in ${channel(problem.channelId)}`;
      return md`*${zoneLabel(problem.zoneName)}* already has an open request to purge everything (${where}). Approve, deny or cancel that one; there can be one at a time.`;
    }
    case 'not_requester':
      return md`Only the person who asked can cancel this request.`;
    case 'report_not_found':
      return md`No single daily report has the id ${code(problem.prefix)}. \`/cdn report list\` shows them.`;
    case 'report_already_stopped':
      return md`That report is already stopped.`;
    case 'invalid_threshold':
      return md`${code(problem.text)} is not a threshold: ${problem.reason}.`;
    case 'not_watching':
      return md`This channel does not watch ${code(zoneLabel(problem.zoneName))}. \`/cdn watch list\` shows what it watches.`;
    case 'alert_unknown':
      return md`That alert is gone: its watch was removed.`;
    case 'limit_reached':
      return limitReached(problem);
    case 'limit_out_of_range':
      return md`The ${LIMIT_WORDS[problem.limit]} limit is a whole number from 0 to ${problem.ceiling.toLocaleString('en')}.`;
    case 'watch_unknown':
      return md`That watch is gone: it was removed. \`/cdn watch list\` shows what is watched now.`;
    case 'dm_refused':
      return md`I couldn't send you that as a direct message. Run \`/cdn zones\` in a channel instead.`;
    case 'no_conversation':
      return md`Ask from a conversation: \`/cdn analytics <zone>\`.`;
    case 'not_in_conversation':
      return md`You are not in that conversation, so I won't post there for you. Pick one you are in.`;
    case 'cannot_post':
      return md`${PLACE[problem.place]}: ${problem.inDm ? NOT_IN_DM : (CANNOT_POST[problem.slackError] ?? md`Slack answered ${code(problem.slackError)}`)}.`;
    case 'audit_filter':
      return md`${code(problem.word)} ${AUDIT_FILTER[problem.reason]}`;
    case 'export_running':
      return md`Your audit export is still being made: one at a time. It arrives in your DM when it is done.`;
    case 'not_a_range':
      return md`${code(problem.word)} is not a range (1h, 6h, 24h, 7d, 30d) or a granularity (minute, 5min, hour, day).`;
    case 'too_many_points':
      return md`${problem.range} by ${problem.granularity} is ${problem.points.toLocaleString('en')} points; at most ${problem.max.toLocaleString('en')} make a readable chart. Try \`${problem.suggested}\`.`;
    case 'checks_too_slow':
      return md`Nothing was saved: ${WAITING_FOR[problem.waitingFor]} within ${problem.seconds} s. Try again in a minute.`;
    case 'trigger_expired':
      return md`This took too long — run the command again.`;
    case 'slack_unavailable':
      return problem.retryInSeconds === undefined
        ? md`Slack did not answer in time, so I stopped waiting. Try again in a minute.`
        : md`Slack is limiting how fast I may call it right now. Try again in ${problem.retryInSeconds} s.`;
    case 'no_zone_named':
      return md`Name a zone (${NAMED_ZONE[problem.command]}), or make one this channel's default with \`/cdn use <zone>\`.`;
    case 'channel_account_removed':
      return channelAccountRemoved(problem.account);
    case 'channel_default_stale':
      return md`This channel's default zone (*${zoneLabel(problem.zoneName)}*) was chosen before the workspace's CDN API key changed, so I dropped it. Name a zone, or choose the default again with \`/cdn use <zone>\`.`;
    case 'channel_default_gone':
      return md`This channel's default zone *${zoneLabel(problem.zoneName)}* ${problem.deleted ? 'is deleted' : 'no longer exists on the CDN'}, so nothing was done. Name a zone, or choose another default with \`/cdn use <zone>\`.`;
    case 'account_name_invalid':
      return md`${clip(code(problem.name), 40)} can't be an account name: use 1 to 32 letters, digits or inner hyphens (\`prod\`, \`eu-staging\`).`;
    case 'account_name_taken':
      return md`This workspace already has an account named *${problem.name}*. Choose another name.`;
    case 'account_not_found':
      return problem.name
        ? md`This workspace has no CDN account named *${problem.name}*. \`/cdn accounts\` lists them.`
        : md`That CDN account is gone. \`/cdn accounts\` lists the workspace's accounts.`;
    case 'zone_deleted':
      return md`*${zoneLabel(problem.zoneName)}* is deleted: choose a live zone.`;
    case 'purge_channel_restricted':
      return problem.channelIds.length === 0 && !problem.hidden
        ? md`Purges are not allowed from here. Nothing was purged.`
        : md`Purges may only be run in ${purgeChannelsText(problem.channelIds, problem.hidden)} (a workspace admin chose these with \`/cdn config purge-channels\`). Nothing was purged; ask there.`;
  }
}

/** What a limit counts, and how to make room under it, for limit_reached. */
const LIMITED: Record<
  Exclude<LimitName, 'rulesPerWatch'>,
  { has: (count: string) => Mrkdwn; room: string }
> = {
  watches: {
    has: (count) => md`This workspace has ${count} watches, its limit`,
    room: 'Remove one with `/cdn unwatch <zone>`',
  },
  watchesPerPerson: {
    has: (count) => md`You made ${count} watches, the most one person may`,
    room: 'Remove one with `/cdn unwatch <zone>`',
  },
  reports: {
    has: (count) => md`This workspace has ${count} daily reports, its limit`,
    room: 'Stop one with `/cdn report stop <id>`',
  },
  reportsPerPerson: {
    has: (count) => md`You made ${count} daily reports, the most one person may`,
    room: 'Stop one with `/cdn report stop <id>`',
  },
};

function limitReached(problem: Extract<Problem, { code: 'limit_reached' }>): Mrkdwn {
  const raise = code(`/cdn config limits ${LIMIT_WORDS[problem.limit]} <number>`);
  const count = problem.count.toLocaleString('en');
  if (problem.limit === 'rulesPerWatch')
    return md`A watch may have at most ${problem.max.toLocaleString('en')} thresholds, and this one would have ${count}; nothing was changed. A workspace admin can raise the limit with ${raise}.`;
  const limited = LIMITED[problem.limit];
  return md`${limited.has(count)} (${problem.max.toLocaleString('en')}); nothing was made. ${limited.room}, or ask a workspace admin to raise it with ${raise}.`;
}

/** How long until a retry, in seconds under a minute and in minutes beyond. */
function retryText(seconds: number): string {
  return seconds < 60 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}
