// Every renderer of src/blocks, fed oversized input (10,000 zones, 5,000-character names, 1,000
// failures), validated as real Slack would: each exported function of each module needs a case
// here, so a new renderer is covered (or fails this test) automatically.

import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as accountPick from '../../src/blocks/account-pick.js';
import * as accounts from '../../src/blocks/accounts.js';
import * as actors from '../../src/blocks/actors.js';
import * as analytics from '../../src/blocks/analytics.js';
import * as analyticsModal from '../../src/blocks/analytics-modal.js';
import * as apiPurgeBlocks from '../../src/blocks/api-purge.js';
import * as approval from '../../src/blocks/approval.js';
import * as audit from '../../src/blocks/audit.js';
import * as channels from '../../src/blocks/channels.js';
import * as config from '../../src/blocks/config.js';
import * as create from '../../src/blocks/create.js';
import * as delivery from '../../src/blocks/delivery.js';
import * as errors from '../../src/blocks/errors.js';
import * as freezes from '../../src/blocks/freezes.js';
import * as help from '../../src/blocks/help.js';
import * as home from '../../src/blocks/home.js';
import * as login from '../../src/blocks/login.js';
import * as logout from '../../src/blocks/logout.js';
import * as problems from '../../src/blocks/problems.js';
import * as purge from '../../src/blocks/purge.js';
import * as purgeHold from '../../src/blocks/purge-hold.js';
import * as ratelimit from '../../src/blocks/ratelimit.js';
import * as reports from '../../src/blocks/reports.js';
import * as scheduledPurges from '../../src/blocks/scheduled-purges.js';
import { Mrkdwn } from '../../src/blocks/text.js';
import * as tokens from '../../src/blocks/tokens.js';
import * as verify from '../../src/blocks/verify.js';
import * as watches from '../../src/blocks/watches.js';
import * as zones from '../../src/blocks/zones.js';
import { CdnError } from '../../src/cdn/errors.js';
import type { Zone } from '../../src/cdn/schemas.js';
import {
  validateBlocks,
  validateOptions,
  validateView,
} from '../../src/dev/fake-slack/validate.js';
import type { ChannelsOverview } from '../../src/services/access/channels.js';
import type { AccountView } from '../../src/services/accounts/accounts.js';
import type { ListedToken } from '../../src/services/api/api-tokens.js';
import type { HeldPurge } from '../../src/services/purge/purge-holds.js';
import type { PurgeRun } from '../../src/services/purge/purge-status.js';
import type { Approval } from '../../src/store/approvals.js';
import type { AuditEntry } from '../../src/store/audit-log.js';
import type { Freeze, FreezeException } from '../../src/store/freezes.js';
import type { WatchAlert } from '../../src/store/watch-alerts.js';
import { DEFAULT_LIMITS } from '../../src/store/workspaces.js';
import { zoneLabel } from '../../src/zone-names.js';
import {
  approvalWith,
  dailyReportWith,
  RECORD_ACCOUNT,
  scheduleWith,
  watchWith,
} from './records.js';

const N = 10_000;
const LONG = `${'<a&b>'.repeat(999)}.com`; // 5,000 characters, every one of them escaped
const many = <T>(n: number, make: (i: number) => T): T[] =>
  Array.from({ length: n }, (_, i) => make(i));
const zone = (i = 0): Zone => ({
  id: `z${i}`,
  accountId: RECORD_ACCOUNT,
  name: LONG,
  status: 'active',
  createdAt: '2026-01-01T00:00:00Z',
});
const ZONES = many(N, zone);
/** A held purge of 10,000 URLs, 10,000 of them served elsewhere, every name 5,000 characters. */
const held: HeldPurge = {
  id: 'h1',
  actorId: 'U1',
  zoneName: LONG,
  count: N,
  elsewhere: many(N, (i) => ({ item: LONG, host: LONG, ...(i % 2 ? { servedBy: LONG } : {}) })),
  expiresAt: 1,
};
const CHANNELS = many(N, (i) => `C${i}`);
/** A verification of N long URLs, each verdict in turn. */
const VERIFIED = {
  // The store's own id, not user input.
  jobId: 'job_0123456789abcdef',
  actorId: 'U1',
  zoneName: LONG,
  auto: false,
  skipped: N,
  counts: { fresh: N, cached: N, unknown: N, unchecked: N },
  results: many(N, (i) =>
    i % 4 === 0
      ? { url: LONG, verdict: 'unchecked' as const, reason: LONG }
      : {
          url: LONG,
          status: 200,
          method: 'HEAD' as const,
          verdict: (['fresh', 'cached', 'unknown'] as const)[i % 3] ?? 'fresh',
          evidence: LONG,
        },
  ),
};

const approvalOf = (status: Approval['status']) => approvalWith(LONG, status, 'failed', 'z1');
const entry = (i: number): AuditEntry => ({
  id: i,
  workspaceId: 'T1',
  actorId: i % 2 ? 'system' : 'U1',
  action: LONG,
  zoneId: 'z',
  zoneName: LONG,
  outcome: LONG,
  detail: { reason: LONG, error: LONG, purgeIds: many(100, () => LONG) },
  at: 0,
});
const schedule = (i: number) =>
  scheduleWith(LONG, {
    id: `s${i}`,
    zoneId: 'z',
    channelId: `C${i}`,
    status: i % 2 ? 'paused' : 'active',
  });
const watch = (i: number) =>
  watchWith(LONG, {
    id: `w${i}`,
    zoneId: 'z',
    channelId: `C${i}`,
    rules: many(1_000, () => 'requests>50k/5m'),
  });
/** Every watch with 1,000 muted rules, in a workspace without a key. */
const listing = {
  watches: many(N, (i) => ({ ...watch(i), muted: many(1_000, () => LONG) })),
  keySet: false,
};
const alert: WatchAlert = {
  id: 'al1',
  workspaceId: 'T1',
  accountId: RECORD_ACCOUNT,
  watchId: 'w1',
  zoneId: 'z',
  zoneName: LONG,
  channelId: 'C1',
  rule: 'requests>50k/5m',
  status: 'firing',
  startedAt: 0,
  resolvedAt: null,
  detail: { value: 1, bound: 2 },
  messageTs: '1.2',
};
const failures = many(1_000, (i) => `https://${LONG}/${i}?a=1&b=2`);
const run = (i: number): PurgeRun => ({
  job: {
    id: `j${i}`,
    workspaceId: 'T1',
    accountId: RECORD_ACCOUNT,
    zoneId: 'z',
    zoneName: LONG,
    actorId: 'U1',
    fileCount: 1_000,
    tagCount: 1_000,
    status: 'partial',
    failed: { files: failures, tags: failures },
    purgeIds: [LONG],
    retryOf: null,
    createdAt: 0,
    finishedAt: 1,
  },
  report: {
    ok: false,
    results: many(
      50,
      (k) =>
        ({
          kind: 'files',
          items: [],
          ok: false,
          error: new CdnError('invalid_request', `${k}${LONG}`),
        }) as never,
    ),
    failed: { files: failures, tags: failures },
    // The longest headline: some failed, some not confirmed.
    unknown: { files: failures, tags: [] },
    purgeIds: [LONG],
  },
});
const RUNS = many(1_000, run);
const report = {
  zone: zone(),
  range: { since: 0, until: 3_600_000, granularity: 'minute' as const, label: LONG },
  timeZone: 'UTC',
  traffic: { totals: { requests: 1, bandwidth: 1, cacheHitRate: 0.5 }, series: [] },
  markers: many(N, (i) => ({ at: i, label: LONG, kind: 'purge' as const })),
};
const subcommands = many(N, (i) => ({ name: `c${i}`, usage: LONG, summary: LONG }));
const overview: ChannelsOverview = {
  bindings: many(N, (i) => ({
    workspaceId: 'T1',
    accountId: RECORD_ACCOUNT,
    channelId: `C${i}`,
    zoneId: 'z',
    zoneName: LONG,
    generation: 'g',
    setBy: 'U1',
    setAt: 0,
  })),
  purgeChannels: CHANNELS,
};
const workspace = {
  id: 'T1',
  enterpriseId: null,
  operatorGroupId: 'S1',
  approverGroupId: null,
  approvalTtlMinutes: 30,
  guestAccess: 'read' as const,
  reportTimeOfDay: '09:00',
  limits: { ...DEFAULT_LIMITS },
  createdAt: 0,
  updatedAt: 0,
};
const status = {
  zoneNames: many(N, () => LONG),
  files: N,
  tags: N,
  actorId: 'U1',
  done: 1,
  total: 2 * N,
};

const account = (i: number): AccountView => ({
  id: `a${i}`,
  workspaceId: 'T1',
  name: LONG.slice(0, 32),
  baseUrl: LONG,
  hasKey: true,
  setBy: 'U1',
  setAt: 0,
  lastValidatedAt: 0,
  generation: 'g',
  zoneCount: N,
  createdAt: 0,
  health: i % 2 === 0 ? 'works' : 'refused',
  operators: { accountId: `a${i}`, role: 'operators', groupId: LONG, setBy: 'U1', setAt: 0 },
  approvers: { accountId: `a${i}`, role: 'approvers', groupId: null, setBy: 'U1', setAt: 0 },
});
const ACCOUNTS = { accounts: many(1_000, account), mayManage: true };
const REMOVAL = {
  account: account(0),
  usage: { watches: N, reports: N, bindings: N, approvals: N, tokens: N },
};

/** One or more oversized calls per exported function, named after it. */
/** A token with 100 zones of 5,000 characters, and a name of 5,000. */
const bigToken = (i: number): ListedToken => ({
  id: `t${i}`,
  workspaceId: 'T1',
  name: LONG,
  hint: LONG,
  accountId: i % 3 === 2 ? null : `a${i}`,
  allAccounts: i % 3 === 2,
  reach:
    i % 3 === 2
      ? { kind: 'all' }
      : i % 3 === 1
        ? { kind: 'none' }
        : { kind: 'account', id: `a${i}`, name: LONG },
  zones: many(100, () => LONG),
  kinds: ['urls_tags', 'everything'],
  channelId: 'C1',
  createdBy: 'U1',
  createdAt: 0,
  revokedAt: i % 2 === 0 ? null : 1,
  revokedBy: i % 2 === 0 ? null : 'U2',
  lastUsedAt: 2,
});
const bigApiPurge = {
  tokenName: LONG,
  reason: LONG,
  total: N,
  context: { repository: LONG, commit: LONG, run_url: `https://ci.example/${LONG}`, actor: LONG },
};
const bigApi = { tokenId: 't1', tokenName: LONG, actor: LONG, actorUserId: 'U9' };

/** One or more oversized calls per exported function, named after it. */
const FREEZE: Freeze = {
  id: LONG,
  workspaceId: 'T1',
  scope: 'zone',
  accountId: null,
  zoneId: 'z1',
  targetName: LONG,
  rule: {
    kind: 'weekly',
    start: { weekday: 5, time: '16:00' },
    end: { weekday: 1, time: '08:00' },
  },
  timeZone: LONG,
  reason: LONG,
  channelId: 'C1',
  purges: true,
  createdBy: 'U1',
  createdAt: 0,
  announcedStart: 0,
  announcedEnd: 0,
};
const EXCEPTION: FreezeException = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  workspaceId: 'T1',
  freezeId: LONG,
  action: 'everything',
  zoneId: 'z1',
  accountId: null,
  targetName: LONG,
  requesterId: 'U1',
  reason: LONG,
  channelId: 'C1',
  messageTs: '1.2',
  status: 'pending',
  decidedBy: null,
  decidedAt: null,
  usedAt: null,
  expiresAt: 1,
  createdAt: 0,
};
const WINDOW = { start: 1_800_000_000_000, end: 1_800_100_000_000 };
const LISTED = many(100, () => ({ freeze: FREEZE, window: WINDOW, active: true }));

const CASES: Record<string, () => unknown[]> = {
  ruleText: () => [freezes.ruleText(FREEZE.rule, LONG)],
  freezeAddedMessage: () => [
    freezes.freezeAddedMessage({ freeze: FREEZE, window: WINDOW, timeZoneFrom: 'slack' }, 0),
  ],
  freezeLines: () => [freezes.freezeLines(LISTED, 0)],
  freezeListMessage: () => [freezes.freezeListMessage(LISTED, 0)],
  freezeRemovedMessage: () => [freezes.freezeRemovedMessage(FREEZE)],
  freezeAnnouncement: () =>
    (['declared', 'started', 'ended', 'removed'] as const).map((event) =>
      freezes.freezeAnnouncement(FREEZE, event, WINDOW),
    ),
  freezeExceptionMessage: () =>
    (['pending', 'approved', 'denied', 'used', 'expired'] as const).map((status) =>
      freezes.freezeExceptionMessage({ ...EXCEPTION, status, decidedBy: 'U2', usedAt: 1 }),
    ),
  freezeExceptionAskedMessage: () => [freezes.freezeExceptionAskedMessage(EXCEPTION)],
  freezeAddModal: () => [
    freezes.freezeAddModal({ timeZone: LONG, channelId: 'C1', metadata: 'm' }),
  ],
  accountsBlocks: () => [{ type: 'home', blocks: accounts.accountsBlocks(ACCOUNTS) }],
  accountRoleSavedMessage: () => [
    accounts.accountRoleSavedMessage('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'operators', {
      group: 'S1',
    }),
    accounts.accountRoleSavedMessage('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'approvers', 'workspace'),
    accounts.accountRoleSavedMessage('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'approvers', 'everyone'),
  ],
  accountsMessage: () => [accounts.accountsMessage(ACCOUNTS)],
  accountAddModal: () => [accounts.accountAddModal({ defaultBaseUrl: LONG, metadata: 'm' })],
  accountRenameModal: () => [accounts.accountRenameModal(account(0), 'm')],
  accountRekeyModal: () => [accounts.accountRekeyModal(account(0), 'm')],
  accountRemoveModal: () => [accounts.accountRemoveModal(REMOVAL, 'm')],
  accountDoneView: () => [accounts.accountDoneView(LONG, accounts.accountRemovedText(REMOVAL))],
  accountCheckingView: () => [accounts.accountCheckingView()],
  accountAddedText: () => [accounts.accountAddedText(account(0), N)],
  accountRekeyedText: () => [accounts.accountRekeyedText(account(0), N)],
  accountRenamedText: () => [accounts.accountRenamedText(account(0))],
  accountRemovedText: () => [accounts.accountRemovedText(REMOVAL)],
  actorLabel: () => [actors.actorLabel(`token:${LONG}`)],
  tokenLabel: () => [actors.tokenLabel(LONG, LONG)],
  requesterLabel: () => [actors.requesterLabel({ requesterId: 'x', api: bigApi })],
  actorMappingNote: () => [actors.actorMappingNote(bigApi)],
  runLink: () => [apiPurgeBlocks.runLink(`https://ci.example/${LONG}`)],
  apiPurgeHeader: () => [
    {
      blocks: apiPurgeBlocks.apiPurgeHeader(
        bigApiPurge,
        many(3, () => LONG),
      ),
    },
  ],
  withApiHeader: () => [
    apiPurgeBlocks.withApiHeader(
      apiPurgeBlocks.apiPurgeHeader(
        bigApiPurge,
        many(3, () => LONG),
      ),
      purge.purgeResultMessage(RUNS, `token:${LONG}`),
    ),
  ],
  tokenLine: () => [tokens.tokenLine(bigToken(0))],
  tokenBlocks: () => [{ blocks: tokens.tokenBlocks(many(20, bigToken), 'home') }],
  tokensMessage: () => [tokens.tokensMessage(many(200, bigToken))],
  tokenModal: () => [
    tokens.tokenModal(
      { accounts: many(1_000, (i) => ({ ...account(i), name: `${LONG}${i}` })), preselected: 'a5' },
      'home',
    ),
  ],
  tokenCreatedView: () => [
    tokens.tokenCreatedView(bigToken(0), `cdnb_${'x'.repeat(43)}`, bigToken(0).reach),
  ],
  reachText: () => [tokens.reachText({ kind: 'account', id: 'a1', name: LONG })],
  analyticsComment: () => [analytics.analyticsComment(report)],
  noTrafficText: () => [analytics.noTrafficText(report)],
  analyticsModal: () => [analyticsModal.analyticsModal()],
  approvalMessage: () =>
    (['pending', 'approved', 'denied', 'expired', 'cancelled'] as const)
      .map((s) => approval.approvalMessage(approvalOf(s), { cacheHitRate: 0.5 }))
      .concat([
        approval.approvalMessage({ ...approvalOf('pending'), api: bigApi }),
        approval.approvalMessage({ ...approvalOf('cancelled'), accountRemoved: true }),
      ]),
  approveModal: () => [approval.approveModal(approvalOf('pending'))],
  denyModal: () => [approval.denyModal(approvalOf('pending'))],
  auditLine: () => [audit.auditLine(entry(0))],
  auditPageMessage: () => [
    audit.auditPageMessage(
      { entries: many(20, entry), hasNext: true, hasPrevious: true, timeZone: LONG },
      { zone: LONG, actor: { kind: 'token', name: LONG }, since: LONG, until: LONG },
    ),
  ],
  auditExportStartedText: () => [audit.auditExportStartedText({ zone: LONG })],
  auditExportDoneText: () => [audit.auditExportDoneText(3, { zone: LONG })],
  auditExportFailedText: () => [audit.auditExportFailedText(LONG)],
  auditExportRefusedText: () => [audit.auditExportRefusedText(LONG)],
  channelList: () => [channels.channelList(CHANNELS)],
  channelDefaultMessage: () => [
    channels.channelDefaultMessage({ kind: 'stale', zoneName: LONG }),
    channels.channelDefaultMessage({ kind: 'set', binding: overview.bindings[0] as never }),
    channels.channelDefaultMessage({
      kind: 'set',
      binding: overview.bindings[0] as never,
      account: LONG,
    }),
    channels.channelDefaultMessage({ kind: 'stale', zoneName: LONG, account: LONG }),
    channels.channelDefaultMessage({ kind: 'removed', account: LONG }),
  ],
  channelBoundMessage: () => [channels.channelBoundMessage(zone(), 'U1')],
  channelAccountBoundMessage: () => [
    channels.channelAccountBoundMessage({ account: LONG, zone: zone() }, 'U1'),
    channels.channelAccountBoundMessage({ account: LONG }, 'U1'),
  ],
  channelUnboundMessage: () => [channels.channelUnboundMessage('U1')],
  channelsOverviewText: () => [channels.channelsOverviewText(overview)],
  purgeChannelsText: () => [channels.purgeChannelsText(CHANNELS, N)],
  channelAccountRemoved: () => [channels.channelAccountRemoved(LONG)],
  configMessage: () => [config.configMessage(workspace, LONG, { purgeChannels: CHANNELS })],
  purgeChannelsSavedMessage: () => [config.purgeChannelsSavedMessage(workspace, CHANNELS)],
  createModal: () => [create.createModal('metadata')],
  cnameRecord: () => [create.cnameRecord(LONG, LONG)],
  zoneCreatedMessage: () => [
    create.zoneCreatedMessage(
      { kind: 'created', zone: zone(), name: LONG, confirmedBy: 'response' },
      { plan: 'free', actorId: 'U1', cnameTarget: LONG },
    ),
  ],
  watchPausedText: () => [delivery.watchPausedText(watch(0), LONG)],
  chartInThreadText: () => [delivery.chartInThreadText(alert)],
  errorText: () => [errors.errorText(new CdnError('conflict', LONG, { requestId: LONG }))],
  inlineErrorText: () => [errors.inlineErrorText(new CdnError('conflict', LONG))],
  errorMessage: () => [errors.errorMessage(new CdnError('conflict', LONG))],
  warningMessage: () => [errors.warningMessage(LONG)],
  noticeMessage: () => [errors.noticeMessage(LONG)],
  noticeModal: () => [errors.noticeModal(LONG, LONG)],
  usageLine: () => [help.usageLine(subcommands[0] as never)],
  helpMessage: () => [help.helpMessage(subcommands, { unknown: LONG })],
  unknownSubcommandMessage: () => [help.unknownSubcommandMessage(LONG, LONG)],
  homeView: () => [
    home.homeView({
      permissions: { readZones: true, readRecords: true, setKey: true, operate: true },
      keySet: true,
      key: { workspaceId: 'T1', setBy: 'U1', setAt: 0, lastValidatedAt: 1 },
      baseUrl: LONG,
      recent: many(N, entry),
      schedules: { shown: many(N, schedule), hidden: N },
      watches: { shown: many(N, watch), hidden: N },
      commands: subcommands,
      channels: overview,
      accounts: ACCOUNTS,
      scheduled: { shown: many(N, scheduledPurge), hidden: N, everyone: true },
    }),
  ],
  loginModal: () => [
    login.loginModal({
      defaultBaseUrl: 'https://x/v1',
      currentBaseUrl: null,
      hasKey: true,
      metadata: 'm',
      problem: LONG,
    }),
  ],
  loginCheckingView: () => [login.loginCheckingView()],
  loginDoneView: () => [login.loginDoneView({ zoneCount: N, baseUrl: LONG })],
  loginConfirmation: () => [login.loginConfirmation(N)],
  keyRefusedText: () => [login.keyRefusedText({ host: LONG, status: 401, said: LONG })],
  keyUncheckedText: () => [login.keyUncheckedText(LONG)],
  isPostRefusal: () => [String(problems.isPostRefusal(LONG))],
  problemText: () => [
    problems.problemText({ code: 'zone_not_found', query: LONG, suggestions: many(N, () => LONG) }),
    problems.problemText({ code: 'purge_channel_restricted', channelIds: CHANNELS }),
  ],
  verifyProgressMessage: () => [
    verify.verifyProgressMessage({ zoneName: LONG, urls: N, actorId: 'U1' }),
  ],
  verifySummaryMessage: () => [verify.verifySummaryMessage(VERIFIED)],
  verifyDetailsMessage: () => [verify.verifyDetailsMessage(VERIFIED)],
  verifyAlreadyAskedMessage: () => [verify.verifyAlreadyAskedMessage()],
  purgeProgressMessage: () => [purge.purgeProgressMessage(status)],
  purgePausedMessage: () => [purge.purgePausedMessage(status)],
  purgeResultMessage: () => [purge.purgeResultMessage(RUNS, 'U1')],
  purgeRefusedMessage: () => [
    purge.purgeRefusedMessage({
      groups: [],
      rejected: failures.map((item) => ({ item, reason: LONG })),
      elsewhere: [],
      duplicates: 0,
    }),
  ],
  purgeFormModal: () => [purge.purgeFormModal({ metadata: 'm', zone: zone(), items: failures })],
  purgeEverythingModal: () => [purge.purgeEverythingModal({ zone: zone(), metadata: 'm' })],
  purgeHoldMessage: () => [purgeHold.purgeHoldMessage(held)],
  purgeHoldModal: () => [purgeHold.purgeHoldModal(held, 'm')],
  accountPickMessage: () => [
    accountPick.accountPickMessage({
      id: 'p1',
      actorId: 'U1',
      zoneName: LONG,
      accounts: many(N, (i) => `account-${i}`),
      expiresAt: 1,
    }),
  ],
  accountPickedMessage: () => [
    accountPick.accountPickedMessage(
      { id: 'p1', actorId: 'U1', zoneName: LONG, accounts: [], expiresAt: 1 },
      LONG,
    ),
  ],
  dueText: () => [scheduledPurges.dueText(scheduledPurge(0))],
  scheduledPurgeLine: () => [
    scheduledPurges.scheduledPurgeLine(scheduledPurge(0)),
    scheduledPurges.scheduledPurgeLine({ ...scheduledPurge(0), requesterId: `token:${LONG}` }),
  ],
  scheduledPurgeMessage: () => [
    scheduledPurges.scheduledPurgeMessage(scheduledPurge(0)),
    scheduledPurges.scheduledPurgeMessage({ ...scheduledPurge(0), everything: true }),
  ],
  scheduledPurgeListMessage: () => [
    scheduledPurges.scheduledPurgeListMessage({ shown: many(N, scheduledPurge), hidden: N }),
  ],
  scheduledPurgeCancelledMessage: () => [
    scheduledPurges.scheduledPurgeCancelledMessage(scheduledPurge(0), LONG),
  ],
  scheduledPurgeSkippedMessage: () => [
    scheduledPurges.scheduledPurgeSkippedMessage(scheduledPurge(0), {
      code: 'scheduled_purge_unapproved',
      zoneName: LONG,
      status: 'expired',
    }),
  ],
  purgeHoldDecidedMessage: () => [
    purgeHold.purgeHoldDecidedMessage(held, 'confirmed'),
    purgeHold.purgeHoldDecidedMessage(held, 'cancelled'),
  ],
  purgeRefusedInline: () => [
    purge.purgeRefusedInline({
      groups: [],
      rejected: failures.map((item) => ({ item, reason: LONG })),
      elsewhere: [],
      duplicates: 0,
    }),
  ],
  rateLimitMessage: () => [
    ratelimit.rateLimitMessage({ zone: zone(), enabled: true, actorId: 'U1', propagatedAt: 1 }),
  ],
  rateLimitStateMessage: () => [
    ratelimit.rateLimitStateMessage({ zone: zone() }),
    ratelimit.rateLimitStateMessage({
      zone: zone(),
      last: { enabled: false, actorId: 'U1', at: 1 },
    }),
  ],
  shortId: () => [reports.shortId(schedule(0))],
  scheduleLine: () => [reports.scheduleLine(schedule(1)), reports.scheduleLine(schedule(0), false)],
  scheduledMessage: () => [
    reports.scheduledMessage(schedule(0)),
    reports.scheduledMessage(schedule(0), false),
  ],
  scheduleListMessage: () => [
    reports.scheduleListMessage({ schedules: many(N, schedule), keySet: true }),
    reports.scheduleListMessage({ schedules: many(N, schedule), keySet: false }),
  ],
  delta: () => [reports.delta(1, 2)],
  dailyReportText: () => [
    reports.dailyReportText(
      dailyReportWith(
        LONG,
        { requests: 1, bandwidth: 1, cacheHitRate: 1 },
        { requests: 1, bandwidth: 1, cacheHitRate: 1 },
      ),
      LONG,
    ),
  ],
  reportPausedText: () => [reports.reportPausedText(schedule(1), LONG)],
  scheduleStoppedMessage: () => [reports.scheduleStoppedMessage(schedule(0))],
  watchLine: () => [
    watches.watchLine(watch(0)),
    watches.watchLine(
      { ...watch(0), pausedReason: LONG },
      { keySet: false, muted: many(1_000, () => LONG) },
    ),
  ],
  watchingMessage: () => [
    watches.watchingMessage(watch(0), { created: true, zoneStatus: 'pending' }),
  ],
  watchListMessage: () => [watches.watchListMessage(listing)],
  unwatchedMessage: () => [watches.unwatchedMessage(watch(0))],
  zoneLiveText: () => [watches.zoneLiveText(watch(0), 'active')],
  alertText: () => [watches.alertText(alert)],
  alertMessage: () => [watches.alertMessage(alert, 'F1')],
  alertResolvedText: () => [watches.alertResolvedText(alert)],
  alertSnoozedText: () => [watches.alertSnoozedText('U1', 0)],
  alertMutedText: () => [watches.alertMutedText(alert, 'U1')],
  alertMutedMessage: () => [watches.alertMutedMessage(alert, 'U1')],
  alertFollowUpByDm: () => [
    watches.alertFollowUpByDm(
      alert,
      watches.alertMutedText(alert, 'U1'),
      watches.alertMutedMessage(alert, 'U1').blocks,
    ),
  ],
  alertUnmutedMessage: () => [watches.alertUnmutedMessage(alert, 'U1')],
  logoutConfirmMessage: () => {
    const work = {
      watches: many(N, watch),
      reports: many(N, schedule),
      bindings: overview.bindings,
    };
    return [
      logout.logoutConfirmMessage({ keySet: true, ...work }),
      logout.logoutConfirmMessage({ keySet: false, ...work }),
      logout.logoutConfirmMessage({ keySet: true, ...work, otherAccounts: many(N, () => LONG) }),
      logout.logoutConfirmMessage({ keySet: true, ...work, tokens: many(N, () => LONG) }),
      logout.logoutConfirmMessage({
        keySet: false,
        watches: [],
        reports: [],
        bindings: [],
        otherAccounts: many(N, () => LONG),
        noDefault: true,
      }),
    ];
  },
  loggedOutMessage: () => [
    logout.loggedOutMessage({
      keyRemoved: true,
      deleted: false,
      watches: N,
      reports: N,
      bindings: N,
      otherAccounts: many(N, () => LONG),
    }),
  ],
  logoutCancelledMessage: () => [logout.logoutCancelledMessage()],
  alertRateLimitedText: () => [watches.alertRateLimitedText(alert, 'U1')],
  alertRateLimitAlreadyText: () => [watches.alertRateLimitAlreadyText('U1')],
  notifyLiveButton: () => [watches.notifyLiveButton(LONG)],
  statusLabel: () => [zones.statusLabel(LONG)],
  zonesMessage: () => [
    zones.zonesMessage(
      { zones: ZONES, page: 1, perPage: N, total: N, pages: 1 },
      {
        status: LONG,
        name: LONG,
      },
    ),
  ],
  zoneOption: () => [zones.zoneOption(zone())],
  zoneOptions: () => [{ options: zones.zoneOptions(ZONES.slice(0, 100)) }],
  zonePicker: () => [zones.zonePicker(zone())],
  purgeZoneOptions: () => [
    {
      options: zones.purgeZoneOptions(
        ZONES.map((z) => ({ ...z, accountId: 'a1', accountName: 'staging' })),
        true,
      ),
    },
  ],
  purgeZonePicker: () => [
    zones.purgeZonePicker({ ...zone(), accountId: 'a1', accountName: 'staging' }, true),
  ],
};

/** A scheduled purge of N URLs on long-named zones (the first on N of them), all else long. */
const scheduledPurge = (i: number) => ({
  id: `job-${i}`,
  workspaceId: 'T1',
  shortId: LONG,
  requesterId: LONG,
  channelId: LONG,
  dueAt: 1_800_000_000_000,
  timeZone: LONG,
  localTime: LONG,
  zoneNames: many(i === 0 ? N : 3, () => LONG),
  everything: false,
  files: N,
  tags: N,
});

/** Modules that hold no renderer (ids, shared text and list helpers), by file name. */
const NOT_RENDERERS = new Set(['ids.ts', 'message.ts', 'text.ts', 'fit.ts']);

/**
 * A text on its own goes out as a message's `text` (or a file's comment, a form's inline error):
 * chat.postMessage answers msg_too_long past 40,000 characters (docs.slack.dev/reference/methods/
 * chat.postMessage); a text put in a block is clipped to the block's limit by mrkdwn().
 */
const MAX_TEXT = 40_000;

/** What Slack would refuse in one rendered value, whatever it is. */
function refusals(value: unknown): string[] {
  const text = value instanceof Mrkdwn ? value.text : value;
  if (typeof text === 'string') return text.length > MAX_TEXT ? [`text of ${text.length}`] : [];
  const object = value as Record<string, unknown>;
  if (object.type === 'modal' || object.type === 'home') return validateView(object);
  if (Array.isArray(object.blocks)) {
    const text = String(object.text ?? '');
    return [
      ...validateBlocks(object.blocks, 'message'),
      ...(text.length > MAX_TEXT ? ['text'] : []),
    ];
  }
  if (Array.isArray(object.options)) return validateOptions(object);
  if (object.type === 'actions' || object.type === 'section')
    return validateBlocks([object], 'message');
  if (typeof object.type === 'string')
    return validateBlocks([{ type: 'actions', elements: [object] }], 'message');
  return validateOptions({ options: [object] });
}

describe('every renderer, with oversized input, stays within Slack limits', () => {
  let exported: string[] = [];
  beforeAll(async () => {
    const dir = join(import.meta.dirname, '../../src/blocks');
    const files = readdirSync(dir).filter(
      (f) => f.endsWith('.ts') && !NOT_RENDERERS.has(basename(f)),
    );
    for (const file of files) {
      const module = (await import(join(dir, file))) as Record<string, unknown>;
      exported.push(
        ...Object.entries(module)
          .filter(([, v]) => typeof v === 'function')
          .map(([k]) => k),
      );
    }
    exported = [...new Set(exported)];
  });

  it('has a case for every exported function of src/blocks', () => {
    expect(exported.length).toBeGreaterThan(40);
    expect(exported.filter((name) => !(name in CASES))).toEqual([]);
  });

  it.each(Object.keys(CASES))('%s', (name) => {
    const rendered = (CASES[name] as () => unknown[])();
    expect(rendered.length).toBeGreaterThan(0);
    for (const value of rendered) expect(refusals(value)).toEqual([]);
  });

  it('shows long IDNs in both forms, longer than their names, within the limits too', () => {
    // 5,000 characters of punycode (`&` allowed in a WHATWG host), shown with its Unicode beside.
    const idn = `${'xn--&b-wka.'.repeat(454)}com`;
    expect(zoneLabel(idn).length).toBeGreaterThan(6_500);
    const named = (i = 0): Zone => ({ ...zone(i), name: idn });
    const idnZones = many(N, named);
    const rendered = [
      zones.zonesMessage(
        { zones: idnZones, page: 1, perPage: N, total: N, pages: 1 },
        { name: idn },
      ),
      { options: zones.zoneOptions(idnZones.slice(0, 100)) },
      channels.channelBoundMessage(named(), 'U1'),
      purge.purgeEverythingModal({ zone: named(), metadata: 'm' }),
      ratelimit.rateLimitStateMessage({ zone: named() }),
      purge.purgeResultMessage(
        RUNS.map((r) => ({ ...r, job: { ...r.job, zoneName: idn } })),
        'U1',
      ),
      watches.watchListMessage({
        watches: many(N, (i) => ({ ...watch(i), zoneName: idn, muted: [] })),
        keySet: true,
      }),
    ];
    for (const value of rendered) expect(refusals(value)).toEqual([]);
  });

  it('says how many were left out of a long list', () => {
    const result = purge.purgeResultMessage(RUNS, 'U1');
    expect(JSON.stringify(result.blocks)).toContain('…and 982 more zones');
    expect(JSON.stringify(watches.watchListMessage(listing).blocks)).toContain('…and 9,955 more');
  });
});
