// Every Block Kit builder, fed hostile strings wherever a user or the CDN API supplies text: no
// mention, broadcast or disguised link may survive into anything Slack parses as mrkdwn.

import { describe, expect, it } from 'vitest';
import * as accountBlocks from '../../src/blocks/accounts.js';
import * as actorBlocks from '../../src/blocks/actors.js';
import * as analyticsBlocks from '../../src/blocks/analytics.js';
import * as analyticsModalBlocks from '../../src/blocks/analytics-modal.js';
import * as apiPurgeBlocks from '../../src/blocks/api-purge.js';
import * as approvalBlocks from '../../src/blocks/approval.js';
import * as auditBlocks from '../../src/blocks/audit.js';
import * as channelBlocks from '../../src/blocks/channels.js';
import * as configBlocks from '../../src/blocks/config.js';
import * as createBlocks from '../../src/blocks/create.js';
import * as errorBlocks from '../../src/blocks/errors.js';
import * as helpBlocks from '../../src/blocks/help.js';
import * as homeBlocks from '../../src/blocks/home.js';
import * as loginBlocks from '../../src/blocks/login.js';
import * as logoutBlocks from '../../src/blocks/logout.js';
import * as problemBlocks from '../../src/blocks/problems.js';
import * as purgeBlocks from '../../src/blocks/purge.js';
import * as purgeHoldBlocks from '../../src/blocks/purge-hold.js';
import * as rateLimitBlocks from '../../src/blocks/ratelimit.js';
import * as reportBlocks from '../../src/blocks/reports.js';
import { Mrkdwn, md } from '../../src/blocks/text.js';
import * as tokenBlocks from '../../src/blocks/tokens.js';
import * as watchBlocks from '../../src/blocks/watches.js';
import * as zoneBlocks from '../../src/blocks/zones.js';
import { CdnError } from '../../src/cdn/errors.js';
import type { Zone } from '../../src/cdn/schemas.js';
import { mrkdwnToText } from '../../src/dev/console/render.js';
import { AppError, type Problem, type ProblemCode } from '../../src/errors.js';
import { HELP_ENTRIES } from '../../src/listeners/commands/registry.js';
import type { AccountView } from '../../src/services/accounts/accounts.js';
import type { AnalyticsReport } from '../../src/services/analytics/analytics.js';
import type { ListedToken, TokenReach } from '../../src/services/api/api-tokens.js';
import type { HeldPurge } from '../../src/services/purge/purge-holds.js';
import type { PurgeRun } from '../../src/services/purge/purge-status.js';
import type { Approval } from '../../src/store/approvals.js';
import type { AuditEntry } from '../../src/store/audit-log.js';
import type { ChannelBinding } from '../../src/store/channel-bindings.js';
import type { WatchAlert } from '../../src/store/watch-alerts.js';
import { DEFAULT_LIMITS } from '../../src/store/workspaces.js';
import { INJECTED, mrkdwnOf } from '../helpers/mrkdwn.js';
import {
  approvalWith,
  dailyReportWith,
  RECORD_ACCOUNT,
  scheduleWith,
  watchWith,
} from './records.js';

/** Typed or CDN-supplied text: mentions, a disguised link, and `&`, `<`, `>` in plain use. */
const H =
  '<!channel> <!here> <!everyone> <@UEVIL> <http://evil.example|innocent> a&b requests>50k hitrate<80%';
const zone: Zone = {
  id: H,
  name: H,
  status: H,
  createdAt: '2026-11-01T00:00:00Z',
  accountId: RECORD_ACCOUNT,
};
const approval = (status: Approval['status'], outcome: Approval['outcome'] = null) =>
  approvalWith(H, status, outcome, H);
const entry: AuditEntry = {
  id: 1,
  workspaceId: 'T1',
  actorId: 'U1',
  action: H,
  zoneId: H,
  zoneName: H,
  outcome: H,
  detail: { reason: H, note: H, error: H, purgeIds: [H], files: H, tags: H },
  at: 0,
};
const schedule = scheduleWith(H, {
  id: 'schedule-1',
  zoneId: H,
  channelId: 'C1',
  status: 'paused',
});
const run = (failed: boolean): PurgeRun => ({
  job: {
    id: 'j1',
    workspaceId: 'T1',
    accountId: RECORD_ACCOUNT,
    zoneId: H,
    zoneName: H,
    actorId: 'U1',
    fileCount: 2,
    tagCount: 1,
    status: failed ? 'partial' : 'succeeded',
    failed: failed ? { files: [H], tags: [H] } : { files: [], tags: [] },
    purgeIds: [H],
    retryOf: null,
    createdAt: 0,
    finishedAt: 1,
  },
  report: {
    ok: !failed,
    results: failed
      ? [
          {
            kind: 'files',
            items: [H],
            ok: false,
            error: new CdnError('invalid_request', H),
          } as never,
        ]
      : [],
    failed: failed ? { files: [H], tags: [H] } : { files: [], tags: [] },
    unknown: { files: [], tags: [] },
    purgeIds: [H],
  },
});
const report: AnalyticsReport = {
  zone,
  range: { since: 0, until: 3_600_000, granularity: 'minute', label: H },
  timeZone: 'UTC',
  traffic: { totals: { requests: 1, bandwidth: 1, cacheHitRate: 0.5 }, series: [] },
  markers: [{ at: 1, label: H, kind: 'purge' }],
  requestedBy: 'U1',
};

const workspace = {
  id: 'T1',
  enterpriseId: null,
  cdnBaseUrl: H,
  operatorGroupId: null,
  approverGroupId: null,
  approvalTtlMinutes: 30,
  guestAccess: 'read' as const,
  reportTimeOfDay: '09:00',
  limits: { ...DEFAULT_LIMITS },
  createdAt: 0,
  updatedAt: 0,
};

const binding = (): ChannelBinding => ({
  workspaceId: 'T1',
  accountId: RECORD_ACCOUNT,
  channelId: 'C1',
  zoneId: H,
  zoneName: H,
  generation: H,
  setBy: 'U1',
  setAt: 0,
});

/** Exports that take no untrusted text of their own, and why. */
/** A held purge whose every text came from a person or the CDN. */
const held: HeldPurge = {
  id: H,
  actorId: 'U1',
  zoneName: H,
  count: 2,
  elsewhere: [
    { item: H, host: H, servedBy: H },
    { item: H, host: H },
  ],
  fromDefault: true,
  expiresAt: 1,
};

const EXEMPT: Record<string, string> = {
  cnameRecord: 'a zone-file line, shown only through zoneCreatedMessage, which escapes it',
  noticeMessage: 'takes mrkdwn its caller built and escaped (the e2e sweep checks the callers)',
  noticeModal: 'takes mrkdwn its caller built and escaped (the e2e sweep checks the callers)',
  shortId: 'a slice of an id the bot made',
  keyRefusedText: 'plain text for a modal error (Slack does not parse it as mrkdwn)',
  inlineErrorText: 'plain text for a modal error (Slack does not parse it as mrkdwn)',
  keyUncheckedText: 'plain text for a modal error (Slack does not parse it as mrkdwn)',
  purgeRefusedInline: 'plain text for a modal error (Slack does not parse it as mrkdwn)',
};

/** One of every problem, with hostile values wherever a person or the CDN supplies one. */
const PROBLEMS: { [C in ProblemCode]: Extract<Problem, { code: C }> } = {
  no_api_key: { code: 'no_api_key' },
  storage_unavailable: { code: 'storage_unavailable' },
  charts_busy: { code: 'charts_busy' },
  insecure_base_url: { code: 'insecure_base_url' },
  not_admin: { code: 'not_admin', action: 'set_key' },
  not_operator: { code: 'not_operator', action: 'purge', account: H },
  self_approval: { code: 'self_approval' },
  not_approver: { code: 'not_approver', account: H },
  stranger: { code: 'stranger' },
  deactivated: { code: 'deactivated', action: 'read_audit' },
  guest: { code: 'guest', action: 'purge', grantable: true },
  zone_not_found: { code: 'zone_not_found', query: H, suggestions: [H, H] },
  account_unknown: { code: 'account_unknown', name: H, accounts: [H, H] },
  account_bound: { code: 'account_bound', bound: H, asked: H },
  channel_default_elsewhere: {
    code: 'channel_default_elsewhere',
    zoneName: H,
    account: H,
    asked: H,
  },
  account_conflict: { code: 'account_conflict', first: H, second: H },
  zone_ambiguous: { code: 'zone_ambiguous', zoneName: H, accounts: [H, H] },
  account_needed: { code: 'account_needed', command: 'zones', accounts: [H, H] },
  account_unsupported: { code: 'account_unsupported', command: 'watch', account: H },
  invalid_domain: { code: 'invalid_domain', domain: H, reason: 'has a space' },
  too_many_changes: { code: 'too_many_changes', limit: 10, retryInSeconds: 5 },
  too_many_reads: { code: 'too_many_reads', scope: 'person', limit: 30, retryInSeconds: 2 },
  too_many_verifications: {
    code: 'too_many_verifications',
    scope: 'workspace',
    limit: 30,
    retryInSeconds: 2,
  },
  too_many_exports: { code: 'too_many_exports', scope: 'person', limit: 10, retryInSeconds: 300 },
  text_too_long: { code: 'text_too_long', what: 'command', length: 400_000, max: 40_000 },
  purge_unknown: { code: 'purge_unknown' },
  schedule_time_invalid: { code: 'schedule_time_invalid', text: H },
  schedule_time_out_of_range: { code: 'schedule_time_out_of_range', reason: 'too_far', maxDays: 7 },
  schedule_elsewhere: { code: 'schedule_elsewhere', count: 2 },
  scheduled_purge_unknown: { code: 'scheduled_purge_unknown', id: H },
  scheduled_purge_not_yours: { code: 'scheduled_purge_not_yours' },
  scheduled_purge_unapproved: {
    code: 'scheduled_purge_unapproved',
    zoneName: H,
    status: 'expired',
  },
  scheduled_purge_closed: { code: 'scheduled_purge_closed', state: 'running' },
  nothing_to_retry: { code: 'nothing_to_retry' },
  nothing_to_verify: { code: 'nothing_to_verify' },
  workflow_step_refused: { code: 'workflow_step_refused', items: ['<@U1> *x*'] },
  nothing_to_repurge: { code: 'nothing_to_repurge' },
  no_urls_in_message: { code: 'no_urls_in_message' },
  not_in_conversation: { code: 'not_in_conversation' },
  purge_hold_unknown: { code: 'purge_hold_unknown' },
  purge_hold_closed: { code: 'purge_hold_closed', status: 'expired' },
  not_purge_requester: { code: 'not_purge_requester' },
  approval_unknown: { code: 'approval_unknown' },
  api_token_unknown: { code: 'api_token_unknown' },
  api_token_invalid: { code: 'api_token_invalid', field: 'zones' },
  api_token_zone_account: {
    code: 'api_token_zone_account',
    zoneName: H,
    zoneAccount: H,
    tokenAccount: H,
  },
  approval_closed: { code: 'approval_closed', status: 'denied' },
  approval_account_removed: { code: 'approval_account_removed', by: 'U0ADMIN', account: H },
  approval_decided_meanwhile: { code: 'approval_decided_meanwhile' },
  frozen: {
    code: 'frozen',
    action: 'everything',
    freezeId: H,
    target: H,
    reason: H,
    endsAt: 1_800_000_000_000,
    timeZone: H,
  },
  freeze_invalid: { code: 'freeze_invalid', why: 'time_zone', word: H },
  freeze_unknown: { code: 'freeze_unknown', prefix: H },
  freeze_none: { code: 'freeze_none', target: H },
  freeze_exception_closed: { code: 'freeze_exception_closed', status: 'used' },
  approval_pending: {
    code: 'approval_pending',
    zoneName: H,
    channelId: 'C1',
    link: 'https://x.slack.com/archives/C1/p1',
  },
  not_requester: { code: 'not_requester' },
  report_not_found: { code: 'report_not_found', prefix: H },
  report_already_stopped: { code: 'report_already_stopped' },
  dm_refused: { code: 'dm_refused' },
  no_conversation: { code: 'no_conversation' },
  cannot_post: { code: 'cannot_post', place: 'chart', slackError: H },
  not_a_range: { code: 'not_a_range', word: H },
  audit_filter: { code: 'audit_filter', word: H, reason: 'kind' },
  export_running: { code: 'export_running' },
  too_many_points: {
    code: 'too_many_points',
    range: 'last 30 days',
    granularity: 'minute',
    points: 43_200,
    max: 1_500,
    suggested: 'day',
  },
  checks_too_slow: { code: 'checks_too_slow', waitingFor: 'slack', seconds: 60 },
  trigger_expired: { code: 'trigger_expired' },
  slack_unavailable: { code: 'slack_unavailable', retryInSeconds: 30 },
  no_zone_named: { code: 'no_zone_named', command: 'purge' },
  channel_default_stale: { code: 'channel_default_stale', zoneName: H },
  channel_account_removed: { code: 'channel_account_removed', account: H },
  channel_default_gone: { code: 'channel_default_gone', zoneName: H, deleted: true },
  zone_deleted: { code: 'zone_deleted', zoneName: H },
  purge_channel_restricted: {
    code: 'purge_channel_restricted',
    channelIds: ['C1', 'C2'],
    hidden: 2,
  },
  invalid_threshold: { code: 'invalid_threshold', text: H, reason: 'a window is 1 to 60 minutes' },
  not_watching: { code: 'not_watching', zoneName: H },
  alert_unknown: { code: 'alert_unknown' },
  watch_unknown: { code: 'watch_unknown' },
  limit_reached: { code: 'limit_reached', limit: 'watchesPerPerson', max: 50, count: 50 },
  limit_out_of_range: { code: 'limit_out_of_range', limit: 'rulesPerWatch', ceiling: 100 },
  account_name_invalid: { code: 'account_name_invalid', name: H },
  account_name_taken: { code: 'account_name_taken', name: H },
  account_not_found: { code: 'account_not_found', name: H },
};

const watch = watchWith(H, { id: 'w1', zoneId: 'z1', channelId: 'C1', rules: [H] });
const alert = (rule: string): WatchAlert => ({
  id: 'a1',
  workspaceId: 'T1',
  accountId: RECORD_ACCOUNT,
  watchId: 'w1',
  zoneId: 'z1',
  zoneName: H,
  channelId: 'C1',
  rule,
  status: 'firing',
  startedAt: 0,
  resolvedAt: null,
  detail: { value: 1, bound: 2, median: 3 },
  messageTs: '1.2',
});

/** One or more calls per builder, named after it; a new builder without a case fails below. */
const hostileAccount: AccountView = {
  id: 'a1',
  workspaceId: 'T1',
  name: H,
  baseUrl: H,
  hasKey: true,
  setBy: 'U1',
  setAt: 0,
  lastValidatedAt: 0,
  generation: 'g',
  zoneCount: 1,
  createdAt: 0,
  health: 'refused',
  operators: { accountId: 'a1', role: 'operators', groupId: 'S1', setBy: 'U1', setAt: 0 },
};
const hostileAccounts = { accounts: [hostileAccount], mayManage: true };
const removal = {
  account: hostileAccount,
  usage: { watches: 1, reports: 2, bindings: 3, approvals: 4, tokens: 5 },
};

/** A token whose every free string is hostile. */
const apiToken = (revoked: boolean): ListedToken => ({
  id: 't1',
  workspaceId: 'T1',
  name: H,
  hint: H,
  accountId: 'a1',
  allAccounts: false,
  reach: { kind: 'account', id: 'a1', name: H },
  zones: [H, H, H, H, H, H, H],
  kinds: ['urls_tags', 'everything'],
  channelId: 'C1',
  createdBy: 'U1',
  createdAt: 0,
  revokedAt: revoked ? 1 : null,
  revokedBy: revoked ? 'U2' : null,
  lastUsedAt: revoked ? null : 2,
});
/** Every kind of reach, names hostile. */
const REACHES: TokenReach[] = [
  { kind: 'all' },
  { kind: 'account', id: 'a1', name: H },
  { kind: 'none' },
];
/** An approval asked for over the HTTP API, its token, actor and reason hostile. */
const apiApproval = (api: Approval['api']) => ({
  ...approval('pending'),
  requesterId: `token:${H}`,
  ...(api ? { api } : {}),
});
const apiPurge = {
  tokenName: H,
  accountName: H,
  reason: H,
  total: 10,
  context: { repository: H, commit: H, run_url: `https://ci.example/${H}`, actor: H },
};

const CASES: Record<string, () => unknown[]> = {
  accountsBlocks: () => accountBlocks.accountsBlocks(hostileAccounts),
  accountRoleSavedMessage: () => [
    accountBlocks.accountRoleSavedMessage('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'operators', {
      group: 'S1',
    }),
    accountBlocks.accountRoleSavedMessage(
      'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      'approvers',
      'workspace',
    ),
    accountBlocks.accountRoleSavedMessage(
      'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      'approvers',
      'everyone',
    ),
  ],
  accountsMessage: () => [accountBlocks.accountsMessage(hostileAccounts)],
  accountAddModal: () => [accountBlocks.accountAddModal({ defaultBaseUrl: H, metadata: H })],
  accountRenameModal: () => [accountBlocks.accountRenameModal(hostileAccount, H)],
  accountRekeyModal: () => [accountBlocks.accountRekeyModal(hostileAccount, H)],
  accountRemoveModal: () => [accountBlocks.accountRemoveModal(removal, H)],
  accountDoneView: () => [
    accountBlocks.accountDoneView('t', accountBlocks.accountRemovedText(removal)),
  ],
  accountCheckingView: () => [accountBlocks.accountCheckingView()],
  accountAddedText: () => [accountBlocks.accountAddedText(hostileAccount, 1)],
  accountRekeyedText: () => [accountBlocks.accountRekeyedText(hostileAccount, 1)],
  accountRenamedText: () => [accountBlocks.accountRenamedText(hostileAccount)],
  accountRemovedText: () => [accountBlocks.accountRemovedText(removal)],
  actorLabel: () => [actorBlocks.actorLabel(`token:${H}`), actorBlocks.actorLabel('system')],
  tokenLabel: () => [actorBlocks.tokenLabel(H, H), actorBlocks.tokenLabel(H)],
  requesterLabel: () => [
    actorBlocks.requesterLabel(apiApproval({ tokenId: 't1', tokenName: H, actor: H })),
    actorBlocks.requesterLabel({ requesterId: `token:${H}` }),
  ],
  actorMappingNote: () =>
    (['not_email', 'not_found', 'unchecked'] as const).map((unmapped) =>
      actorBlocks.actorMappingNote({ tokenId: 't1', tokenName: H, actor: H, unmapped }),
    ),
  runLink: () => [apiPurgeBlocks.runLink(`https://ci.example/${H}`), apiPurgeBlocks.runLink(H)],
  apiPurgeHeader: () => [apiPurgeBlocks.apiPurgeHeader(apiPurge, [H, `tag:${H}`])],
  withApiHeader: () => [
    apiPurgeBlocks.withApiHeader(
      apiPurgeBlocks.apiPurgeHeader(apiPurge, [H]),
      purgeBlocks.purgeResultMessage([run(true)], `token:${H}`),
    ),
  ],
  tokenLine: () => [tokenBlocks.tokenLine(apiToken(false)), tokenBlocks.tokenLine(apiToken(true))],
  tokenBlocks: () => [tokenBlocks.tokenBlocks([apiToken(false), apiToken(true)], 'home')],
  tokensMessage: () => [tokenBlocks.tokensMessage([apiToken(false)])],
  tokenModal: () => [
    tokenBlocks.tokenModal({ accounts: [hostileAccount], preselected: hostileAccount.id }),
    tokenBlocks.tokenModal({ accounts: [{ ...hostileAccount, hasKey: false }] }, 'home'),
  ],
  tokenCreatedView: () => [
    tokenBlocks.tokenCreatedView(apiToken(false), 'cdnb_x', apiToken(false).reach),
  ],
  reachText: () => REACHES.map(tokenBlocks.reachText),
  analyticsModal: () => [analyticsModalBlocks.analyticsModal()],
  analyticsComment: () => [analyticsBlocks.analyticsComment(report)],
  noTrafficText: () => [analyticsBlocks.noTrafficText(report)],
  approvalMessage: () =>
    (['pending', 'approved', 'denied', 'expired', 'cancelled'] as const)
      .flatMap((status) => [
        approvalBlocks.approvalMessage(approval(status), { cacheHitRate: 0.5 }),
        approvalBlocks.approvalMessage(
          {
            ...apiApproval({
              tokenId: 't1',
              tokenName: H,
              account: H,
              actor: H,
              actorUserId: 'U9',
            }),
            status,
          },
          { cacheHitRate: 0.5 },
        ),
        approvalBlocks.approvalMessage(approval(status, 'failed'), { purging: true }),
        approvalBlocks.approvalMessage(approval(status, 'succeeded')),
      ])
      .concat([
        approvalBlocks.approvalMessage({
          ...approval('cancelled'),
          accountRemoved: true,
          accountName: H,
        }),
      ]),
  approveModal: () => [
    approvalBlocks.approveModal(approval('pending')),
    approvalBlocks.approveModal({
      ...apiApproval({ tokenId: 't1', tokenName: H, account: H }),
      status: 'pending',
    }),
  ],
  denyModal: () => [approvalBlocks.denyModal(approval('pending'))],
  auditLine: () => [auditBlocks.auditLine(entry)],
  auditPageMessage: () => [
    // Nothing matches; an entry withheld from the viewer; no filters at all.
    auditBlocks.auditPageMessage(
      { entries: [], hasNext: false, hasPrevious: false, timeZone: H },
      { zone: H, kind: 'purge' },
    ),
    auditBlocks.auditPageMessage(
      { entries: [{ ...entry, withheld: true }], hasNext: true, hasPrevious: false, timeZone: H },
      {},
    ),
    auditBlocks.auditPageMessage(
      { entries: [entry], hasNext: true, hasPrevious: true, timeZone: H },
      { zone: H, actor: { kind: 'token', name: H }, since: H, until: H },
    ),
  ],
  auditExportStartedText: () => [auditBlocks.auditExportStartedText({ zone: H })],
  auditExportDoneText: () => [auditBlocks.auditExportDoneText(3, { zone: H })],
  auditExportFailedText: () => [auditBlocks.auditExportFailedText(H)],
  auditExportRefusedText: () => [auditBlocks.auditExportRefusedText(H)],
  channelList: () => [channelBlocks.channelList(['C1', 'C2'])],
  channelDefaultMessage: () => [
    channelBlocks.channelDefaultMessage({ kind: 'none' }),
    // One account in the workspace: not named.
    channelBlocks.channelDefaultMessage({ kind: 'stale', zoneName: H }),
    channelBlocks.channelDefaultMessage({ kind: 'set', binding: binding() }),
    channelBlocks.channelDefaultMessage({ kind: 'set', binding: binding(), account: H }),
    channelBlocks.channelDefaultMessage({
      kind: 'set',
      binding: { ...binding(), zoneId: '', zoneName: '' },
      account: H,
    }),
    channelBlocks.channelDefaultMessage({ kind: 'stale', zoneName: H, account: H }),
    channelBlocks.channelDefaultMessage({ kind: 'removed', account: H }),
    channelBlocks.channelDefaultMessage({ kind: 'removed' }),
  ],
  channelAccountRemoved: () => [
    channelBlocks.channelAccountRemoved(H),
    channelBlocks.channelAccountRemoved(undefined, false),
  ],
  channelBoundMessage: () => [channelBlocks.channelBoundMessage(zone, 'U1')],
  channelAccountBoundMessage: () => [
    channelBlocks.channelAccountBoundMessage({ account: H, zone }, 'U1'),
    channelBlocks.channelAccountBoundMessage({ account: H }, 'U1'),
  ],
  channelUnboundMessage: () => [channelBlocks.channelUnboundMessage('U1')],
  channelsOverviewText: () => [
    channelBlocks.channelsOverviewText({ bindings: [binding()], purgeChannels: ['C1'] }),
    channelBlocks.channelsOverviewText(
      { bindings: Array.from({ length: 3 }, binding), purgeChannels: [] },
      2,
    ),
  ],
  purgeChannelsText: () => [
    channelBlocks.purgeChannelsText(['C1'], 2),
    channelBlocks.purgeChannelsText([], 1),
  ],
  configMessage: () => [
    configBlocks.configMessage(workspace, 'Operators updated.', { purgeChannels: ['C1'] }),
    configBlocks.configMessage(workspace, undefined, {
      purgeChannels: ['C1'],
      hiddenPurgeChannels: 1,
    }),
  ],
  purgeChannelsSavedMessage: () => [
    configBlocks.purgeChannelsSavedMessage(workspace, []),
    configBlocks.purgeChannelsSavedMessage(workspace, ['C1']),
  ],
  createModal: () => [createBlocks.createModal(H)],
  zoneCreatedMessage: () => [
    createBlocks.zoneCreatedMessage(
      { kind: 'created', zone, name: H, confirmedBy: 'response' },
      { plan: 'free', actorId: 'U1', cnameTarget: H },
    ),
    createBlocks.zoneCreatedMessage({ kind: 'accepted', name: H } as never, {
      plan: 'free',
      actorId: 'U1',
      cnameTarget: H,
    }),
  ],
  errorText: () =>
    [
      new CdnError('unauthorized', H, { requestId: H }),
      new CdnError('not_found', H),
      new CdnError('unavailable', H),
      new CdnError('network', H),
      new CdnError('unexpected_response', H),
      new Error(H),
    ].map((error) => errorBlocks.errorText(error, H)),
  errorMessage: () => [errorBlocks.errorMessage(new CdnError('conflict', H))],
  usageLine: () => [helpBlocks.usageLine({ name: H, usage: H, summary: H, audience: 'admins' })],
  helpMessage: () => [helpBlocks.helpMessage([{ name: H, usage: H, summary: H }], { unknown: H })],
  unknownSubcommandMessage: () => [helpBlocks.unknownSubcommandMessage(H, H)],
  warningMessage: () => [
    errorBlocks.warningMessage(errorBlocks.errorText(new CdnError('conflict', H))),
  ],
  problemText: () => Object.values(PROBLEMS).map((problem) => problemBlocks.problemText(problem)),
  isPostRefusal: () => [String(problemBlocks.isPostRefusal(H))],
  delta: () => [reportBlocks.delta(1, 2), reportBlocks.delta(1, 0)],
  dailyReportText: () => [
    reportBlocks.dailyReportText(
      dailyReportWith(
        H,
        { requests: 1, bandwidth: 2, cacheHitRate: 0.5 },
        { requests: 0, bandwidth: 0, cacheHitRate: 0 },
      ),
      H,
    ),
  ],
  reportPausedText: () => [reportBlocks.reportPausedText(schedule, 'a reason we wrote')],
  scheduleStoppedMessage: () => [reportBlocks.scheduleStoppedMessage(schedule)],
  zoneOption: () => [zoneBlocks.zoneOption(zone)],
  zoneOptions: () => zoneBlocks.zoneOptions([zone]),
  zonePicker: () => [zoneBlocks.zonePicker(zone)],
  purgeZoneOptions: () => [
    ...zoneBlocks.purgeZoneOptions([{ ...zone, accountId: H, accountName: H }], true),
    ...zoneBlocks.purgeZoneOptions([zone], false),
  ],
  purgeZonePicker: () => [
    zoneBlocks.purgeZonePicker({ ...zone, accountId: H, accountName: H }, true),
    zoneBlocks.purgeZonePicker(),
  ],
  homeView: () => [
    homeBlocks.homeView({
      permissions: { readZones: true, readRecords: true, setKey: true, operate: true },
      keySet: true,
      key: { workspaceId: 'T1', setBy: 'U1', setAt: 0, lastValidatedAt: null },
      baseUrl: H,
      recent: [entry, { ...entry, withheld: true }],
      schedules: { shown: [schedule], hidden: 2 },
      commands: [{ name: H, usage: H, summary: H }],
      channels: {
        bindings: [binding()],
        purgeChannels: ['C1'],
        hidden: { bindings: 1, purgeChannels: 1 },
      },
    }),
    homeBlocks.homeView({
      permissions: { readZones: true, readRecords: true, setKey: true, operate: true },
      keySet: false,
      baseUrl: H,
      recent: [],
      schedules: { shown: [{ ...schedule, status: 'active' }], hidden: 0 },
      watches: { shown: [watch], hidden: 0 },
      commands: [],
    }),
  ],
  loginModal: () => [
    loginBlocks.loginModal({
      metadata: H,
      hasKey: true,
      defaultBaseUrl: H,
      currentBaseUrl: H,
      problem: H,
    } as never),
  ],
  loginCheckingView: () => [loginBlocks.loginCheckingView()],
  loginDoneView: () => [loginBlocks.loginDoneView({ zoneCount: 1, baseUrl: H })],
  loginConfirmation: () => [loginBlocks.loginConfirmation(1)],
  purgeProgressMessage: () => [
    purgeBlocks.purgeProgressMessage({
      zoneNames: [H],
      files: 1,
      tags: 1,
      actorId: 'U1',
      done: 0,
      total: 2,
    }),
  ],
  purgePausedMessage: () => [
    purgeBlocks.purgePausedMessage({
      zoneNames: [H],
      files: 1,
      tags: 1,
      actorId: 'U1',
      done: 1,
      total: 2,
    }),
  ],
  purgeResultMessage: () => [
    purgeBlocks.purgeResultMessage([run(false), run(true)], 'U1'),
    purgeBlocks.purgeResultMessage(
      Array.from({ length: 8 }, () => run(true)),
      'U1',
    ),
  ],
  purgeRefusedMessage: () => [
    purgeBlocks.purgeRefusedMessage({
      groups: [],
      rejected: [{ item: H, reason: H }],
      elsewhere: [],
      duplicates: 0,
    }),
  ],
  purgeFormModal: () => [purgeBlocks.purgeFormModal({ metadata: H, zone, items: [H] })],
  purgeEverythingModal: () => [purgeBlocks.purgeEverythingModal({ zone, metadata: H })],
  purgeHoldMessage: () => [purgeHoldBlocks.purgeHoldMessage(held)],
  purgeHoldModal: () => [purgeHoldBlocks.purgeHoldModal(held, H)],
  purgeHoldDecidedMessage: () => [
    purgeHoldBlocks.purgeHoldDecidedMessage(held, 'confirmed'),
    purgeHoldBlocks.purgeHoldDecidedMessage(held, 'cancelled'),
  ],
  rateLimitMessage: () => [
    rateLimitBlocks.rateLimitMessage({ zone, enabled: true, actorId: 'U1', fromDefault: true }),
    rateLimitBlocks.rateLimitMessage({ zone, enabled: false, actorId: 'U1', propagatedAt: 1 }),
  ],
  rateLimitStateMessage: () => [
    rateLimitBlocks.rateLimitStateMessage({ zone }),
    rateLimitBlocks.rateLimitStateMessage({ zone, last: { enabled: true, actorId: 'U1', at: 1 } }),
  ],
  scheduleLine: () => [
    reportBlocks.scheduleLine(schedule),
    reportBlocks.scheduleLine({ ...schedule, status: 'active' }, false),
  ],
  scheduledMessage: () => [
    reportBlocks.scheduledMessage(schedule),
    reportBlocks.scheduledMessage(schedule, false),
  ],
  scheduleListMessage: () => [
    reportBlocks.scheduleListMessage({ schedules: [schedule], keySet: true }),
    reportBlocks.scheduleListMessage({
      schedules: [{ ...schedule, status: 'active' }],
      keySet: false,
    }),
  ],
  statusLabel: () => [zoneBlocks.statusLabel(H)],
  zonesMessage: () => [
    zoneBlocks.zonesMessage(
      { zones: [zone], page: 1, perPage: 10, total: 11, pages: 2 },
      {
        status: H,
        name: H,
      },
    ),
  ],
  watchLine: () => [
    watchBlocks.watchLine(watch),
    watchBlocks.watchLine({ ...watch, pausedReason: H }, { muted: [H, 'spike'] }),
    watchBlocks.watchLine(watch, { keySet: false }),
  ],
  watchingMessage: () => [
    watchBlocks.watchingMessage(watch, { created: true, zoneStatus: 'pending' }),
    watchBlocks.watchingMessage(watch, { created: false, zoneStatus: 'active' }),
  ],
  watchListMessage: () => [
    watchBlocks.watchListMessage({
      watches: [
        { ...watch, muted: [H] },
        { ...watch, muted: [] },
      ],
      keySet: false,
    }),
    watchBlocks.watchListMessage({ watches: [], keySet: true }),
  ],
  unwatchedMessage: () => [watchBlocks.unwatchedMessage(watch)],
  zoneLiveText: () => [
    watchBlocks.zoneLiveText(watch, 'active'),
    watchBlocks.zoneLiveText(watch, 'deleted'),
  ],
  alertText: () => [watchBlocks.alertText(alert('spike'))],
  alertMessage: () => [
    watchBlocks.alertMessage(alert('spike'), 'F1'),
    watchBlocks.alertMessage(alert(H)),
    watchBlocks.alertMessage({ ...alert('hitrate_fall'), status: 'resolved', resolvedAt: 2 }),
  ],
  alertResolvedText: () => [watchBlocks.alertResolvedText(alert('drop'))],
  alertSnoozedText: () => [watchBlocks.alertSnoozedText('U1', 1)],
  alertMutedText: () => [watchBlocks.alertMutedText(alert(H), 'U1')],
  alertMutedMessage: () => [watchBlocks.alertMutedMessage(alert(H), 'U1')],
  alertFollowUpByDm: () => [
    watchBlocks.alertFollowUpByDm(alert(H), watchBlocks.alertSnoozedText('U1', 1)),
    watchBlocks.alertFollowUpByDm(
      alert(H),
      watchBlocks.alertMutedText(alert(H), 'U1'),
      watchBlocks.alertMutedMessage(alert(H), 'U1').blocks,
    ),
  ],
  alertUnmutedMessage: () => [
    watchBlocks.alertUnmutedMessage(alert(H), 'U1'),
    watchBlocks.alertUnmutedMessage(alert(H), 'U1', true),
  ],
  logoutConfirmMessage: () => {
    const work = { watches: [watch], reports: [schedule], bindings: [binding()] };
    return [
      logoutBlocks.logoutConfirmMessage({ keySet: true, ...work }),
      logoutBlocks.logoutConfirmMessage({ keySet: true, watches: [], reports: [], bindings: [] }),
      // API tokens of `default`, named as their admins typed them.
      logoutBlocks.logoutConfirmMessage({ keySet: true, ...work, tokens: [H, H] }),
      logoutBlocks.logoutConfirmMessage({ keySet: false, ...work }),
      logoutBlocks.logoutConfirmMessage({ keySet: false, watches: [], reports: [], bindings: [] }),
      // Other accounts (named by slugs, but rendered as if anything): with and without `default`.
      ...[false, true].flatMap((noDefault) => [
        logoutBlocks.logoutConfirmMessage({ keySet: true, ...work, otherAccounts: [H] }),
        logoutBlocks.logoutConfirmMessage({ keySet: false, ...work, otherAccounts: [H, H] }),
        logoutBlocks.logoutConfirmMessage({
          keySet: false,
          watches: [],
          reports: [],
          bindings: [],
          otherAccounts: [H],
          noDefault,
        }),
      ]),
    ];
  },
  loggedOutMessage: () =>
    [true, false].flatMap((keyRemoved) =>
      [true, false].map((deleted) =>
        logoutBlocks.loggedOutMessage({
          keyRemoved,
          deleted,
          watches: 2,
          reports: 1,
          bindings: 1,
          otherAccounts: [H],
        }),
      ),
    ),
  logoutCancelledMessage: () => [logoutBlocks.logoutCancelledMessage()],
  alertRateLimitedText: () => [watchBlocks.alertRateLimitedText(alert('spike'), 'U1')],
  alertRateLimitAlreadyText: () => [
    watchBlocks.alertRateLimitAlreadyText('U1'),
    watchBlocks.alertRateLimitAlreadyText('U1', false),
  ],
  notifyLiveButton: () => [watchBlocks.notifyLiveButton(H)],
};

describe('every Block Kit builder, with hostile strings', () => {
  it('has a case here', () => {
    const builders = [
      actorBlocks,
      analyticsModalBlocks,
      analyticsBlocks,
      apiPurgeBlocks,
      approvalBlocks,
      auditBlocks,
      channelBlocks,
      configBlocks,
      createBlocks,
      errorBlocks,
      problemBlocks,
      helpBlocks,
      homeBlocks,
      loginBlocks,
      logoutBlocks,
      purgeBlocks,
      purgeHoldBlocks,
      rateLimitBlocks,
      reportBlocks,
      tokenBlocks,
      zoneBlocks,
      watchBlocks,
    ].flatMap((module) =>
      Object.entries(module)
        .filter(([, value]) => typeof value === 'function')
        .map(([name]) => name),
    );
    expect(builders.filter((name) => !(name in CASES) && !(name in EXEMPT))).toEqual([]);
  });

  it.each(Object.keys(CASES))('%s escapes what it is given', (name) => {
    const built = (CASES[name] as () => unknown[])();
    expect(built.length).toBeGreaterThan(0);
    const texts = mrkdwnOf(built);
    expect(texts.filter((text) => INJECTED.test(text))).toEqual([]);
  });

  it('escapes an IDN shown in both forms (`&` is allowed in a WHATWG host)', () => {
    const idn: Zone = { ...zone, name: 'xn--&b-wka.com' };
    const texts = mrkdwnOf([
      zoneBlocks.zonesMessage({ zones: [idn], page: 1, perPage: 10, total: 1, pages: 1 }),
      channelBlocks.channelBoundMessage(idn, 'U1'),
      problemBlocks.problemText({ code: 'zone_not_found', query: H, suggestions: [idn.name] }),
    ]);
    expect(texts.join('\n')).toContain('ü&amp;b.com (xn--&amp;b-wka.com)');
    expect(texts.filter((text) => INJECTED.test(text))).toEqual([]);
    for (const text of texts) expect(text.replace(/&(amp|lt|gt);/g, '')).not.toMatch(/&/);
  });

  it('renders every problem, and AppErrors through errorText the same way', () => {
    for (const problem of Object.values(PROBLEMS)) {
      const text = errorBlocks.errorText(new AppError(problem));
      expect(text).toEqual(problemBlocks.problemText(problem));
      expect(text.text).not.toMatch(INJECTED);
      // The log message is the code: never what a person typed.
      expect(new AppError(problem).message).toBe(problem.code);
    }
  });
});

/**
 * Slack's own sequences, which only the bot writes: mentions, channels, groups, dates, the links it
 * builds, and a quote's `>` at the start of a line.
 */
const SLACK_SEQUENCE =
  /<https?:\/\/[^|<>\s]*\|the CI run>|<@U[A-Z0-9]+>|<#C[A-Z0-9]+>|<!subteam\^S[A-Z0-9]+>|<!date\^\d+\^[^|>]*\|[^<>]*>|<https:\/\/x\.slack\.com\/[^|<>]*\|[^<>]*<#C[A-Z0-9]+>>|^>/gm;

describe('every Block Kit builder escapes exactly once', () => {
  const cases = Object.entries(CASES);

  it.each(cases)('%s: no raw control character, no double escape', (_name, build) => {
    for (const text of mrkdwnOf(build())) {
      expect(text.replace(SLACK_SEQUENCE, '')).not.toMatch(/[<>]/);
      expect(text).not.toMatch(/&amp;(amp|lt|gt);/);
      expect(text.replace(/&(amp|lt|gt);/g, '')).not.toMatch(/&/);
    }
  });

  it('shows what was typed, character for character, through a mrkdwn renderer', () => {
    const shown = (value: unknown) =>
      mrkdwnOf(value)
        .map((text) => mrkdwnToText(text))
        .join('\n');
    expect(shown(watchBlocks.watchLine({ ...watch, zoneName: H }))).toContain(H);
    expect(shown(errorBlocks.errorText(new CdnError('conflict', H)))).toContain(H);
    expect(
      shown(
        zoneBlocks.zonesMessage({
          zones: [{ ...zone, name: H }],
          page: 1,
          perPage: 10,
          total: 1,
          pages: 1,
        }),
      ),
    ).toContain(H);
    expect(
      shown(
        purgeBlocks.purgeRefusedMessage({
          groups: [],
          rejected: [{ item: 'https://a.example/?x=1&y=2', reason: H }],
          elsewhere: [],
          duplicates: 0,
        }),
      ),
    ).toContain('https://a.example/?x=1&y=2');
  });

  it('shows help and usage texts as written: <zone>, requests>50k, hitrate<80%', () => {
    const help = mrkdwnOf(helpBlocks.helpMessage(HELP_ENTRIES))
      .map((text) => mrkdwnToText(text))
      .join('\n');
    for (const entry of HELP_ENTRIES) expect(help).toContain(entry.usage);
    expect(help).toContain('/cdn watch <zone> [requests>50k/5m] [hitrate<80%] | list');
    const notice = mrkdwnToText(errorBlocks.noticeMessage('Usage: `/cdn unwatch <zone>`').text);
    expect(notice).toBe('Usage: `/cdn unwatch <zone>`');
    const problem = mrkdwnToText(
      problemBlocks.problemText({ code: 'no_zone_named', command: 'purge' }).text,
    );
    expect(problem).toContain('`/cdn purge <zone> /path…`');
    expect(problem).toContain('`/cdn use <zone>`');
  });

  it('keeps plain_text free of entities, and modal errors plain', () => {
    const texts: string[] = [];
    JSON.stringify(
      Object.values(CASES).map((build) => build()),
      (_k, v) => {
        if (v && typeof v === 'object' && v.type === 'plain_text') texts.push(v.text);
        return v instanceof Mrkdwn ? v.text : v;
      },
    );
    expect(
      texts.filter((text) => /&(amp|lt|gt);/.test(text) && !text.includes('&amp;'.repeat(1))),
    ).toEqual([]);
    expect(errorBlocks.inlineErrorText(new CdnError('conflict', 'a&b <c>'))).toBe(
      'The CDN refused: a&b <c>.',
    );
  });

  it('refuses a Mrkdwn put in a plain string, so it cannot be escaped twice', () => {
    expect(() => `${md`a`}`).toThrow(TypeError);
    expect(md`${md`a&b`} ${'a&b'}`.text).toBe('a&amp;b a&amp;b');
  });
});
