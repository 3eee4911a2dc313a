// /cdn logout as admins see it: the question (what stops with the key of the CDN account
// the login account, and which other accounts are left as they are), its answer, and how the lists say
// that work waits for a key.
import type { KnownBlock } from '@slack/types';
import type { LogoutOutcome, LogoutPreview } from '../services/accounts/credentials.js';
import { LOGIN_ACCOUNT } from '../store/credentials.js';
import { noticeMessage } from './errors.js';
import { summarise } from './fit.js';
import { LOGOUT_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { channel, code, type Mrkdwn, md, mrkdwn, plain, truncate } from './text.js';

/** Why a watch or a report of a workspace without a key waits, as lists say it. */
export const NO_KEY_REASON: Mrkdwn = md`no CDN key (\`/cdn login\` resumes it)`;

/** How many items of each kind the question names. */
const NAMED = 10;

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** The account whose key `/cdn login` sets and `/cdn logout` removes. */
const LOGIN = code(LOGIN_ACCOUNT);

/** The other accounts, named: `` `prod` ``, `` `prod`, `staging` ``… */
const named = (names: readonly string[]) => summarise(names, NAMED, (name) => code(name), ', ');

/** That the other accounts go on, in a sentence; empty without any. */
function othersGoOn(names: readonly string[]): Mrkdwn {
  if (names.length === 0) return md``;
  return names.length === 1
    ? md`The CDN account ${named(names)} keeps its key, watches, daily reports and channel default zones.`
    : md`The CDN accounts ${named(names)} keep their keys, watches, daily reports and channel default zones.`;
}

/**
 * Nothing for `/cdn logout` to do, in a workspace with other accounts: say whose key it removes
 * and where one of the others is removed.
 */
function nothingOfDefault(preview: LogoutPreview, others: readonly string[]): Message {
  const head = preview.noDefault
    ? md`This workspace has no CDN account ${LOGIN} (the one \`/cdn login\` sets), so \`/cdn logout\` has no key to remove. Its CDN accounts: ${named(others)}.`
    : md`The CDN account ${LOGIN} has no API key to remove. The other CDN accounts: ${named(others)}.`;
  return noticeMessage(
    md`${head} To remove one of them, and what stops with it, an admin uses *Remove* beside it in the App Home (or in \`/cdn accounts\`).`,
    ':information_source:',
  );
}

function workLines(preview: LogoutPreview, verb: string): Mrkdwn[] {
  const lines: Mrkdwn[] = [];
  if (preview.watches.length > 0)
    lines.push(
      md`• *${count(preview.watches.length, 'watch', 'watches')}* ${verb}: ${summarise(
        preview.watches,
        NAMED,
        (watch) => md`*${watch.zoneName}* → ${channel(watch.channelId)}`,
        ', ',
      )}`,
    );
  if (preview.reports.length > 0)
    lines.push(
      md`• *${count(preview.reports.length, 'daily report', 'daily reports')}* ${verb}: ${summarise(
        preview.reports,
        NAMED,
        (report) =>
          md`*${report.zoneName}* → ${channel(report.channelId)} at ${report.timeOfDay} (${report.timeZone})`,
        ', ',
      )}`,
    );
  return lines;
}

function deleteButton(preview: LogoutPreview, label: string) {
  return {
    type: 'button' as const,
    action_id: LOGOUT_IDS.delete,
    style: 'danger' as const,
    text: plain(label, 75),
    confirm: {
      title: plain('Delete them for good?', 100),
      // A confirm dialog's text takes at most 300 characters.
      text: mrkdwn(
        md`${count(preview.watches.length, 'watch', 'watches')} and ${count(preview.reports.length, 'daily report', 'daily reports')} are deleted: a new key will not bring them back.`,
        300,
      ),
      confirm: plain('Delete', 30),
      deny: plain('Keep them', 30),
    },
  };
}

const cancelButton = {
  type: 'button' as const,
  action_id: LOGOUT_IDS.cancel,
  text: plain('Cancel'),
};

/**
 * The question `/cdn logout` asks before anything changes: what stops with the key (watches and
 * reports pause, channel defaults are cleared, API tokens of that account purge nothing), and the choice to delete the watches and reports
 * instead. Without a key, only deleting what waits for one is offered.
 */
export function logoutConfirmMessage(preview: LogoutPreview): Message {
  const hasWork = preview.watches.length > 0 || preview.reports.length > 0;
  const others = preview.otherAccounts ?? [];
  if (!preview.keySet && !hasWork)
    return others.length > 0
      ? nothingOfDefault(preview, others)
      : noticeMessage('There was no CDN API key to remove.');
  const blocks: KnownBlock[] = [];
  if (preview.keySet) {
    const lines = workLines(preview, 'to pause');
    if (preview.bindings.length > 0)
      lines.push(
        md`• *${count(preview.bindings.length, 'channel default zone', 'channel default zones')}* (\`/cdn use\`) ${preview.bindings.length === 1 ? 'is' : 'are'} cleared: ${summarise(
          preview.bindings,
          NAMED,
          (binding) => md`${channel(binding.channelId)} → *${binding.zoneName}*`,
          ', ',
        )}`,
      );
    const tokens = preview.tokens ?? [];
    if (tokens.length > 0)
      lines.push(
        md`• *${count(tokens.length, 'API token', 'API tokens')}* of ${LOGIN} ${tokens.length === 1 ? 'stops' : 'stop'} purging until a key is set again (they are not revoked): ${summarise(
          tokens,
          NAMED,
          (name) => md`*${truncate(name, 100)}*`,
          ', ',
        )}`,
      );
    const head =
      lines.length > 0
        ? md`:warning: *Log out of the CDN?* The API key of the CDN account ${LOGIN} is removed, and:`
        : md`:warning: *Log out of the CDN?* The API key of the CDN account ${LOGIN} is removed; nothing else depends on it.`;
    blocks.push({ type: 'section', text: mrkdwn(head) });
    for (const line of lines) blocks.push({ type: 'section', text: mrkdwn(line) });
    const notes = [
      ...(hasWork
        ? [
            md`Paused watches and reports resume by themselves once a key is set again with \`/cdn login\`. To stop them for good, choose *Log out and delete watches and reports*.`,
          ]
        : []),
      ...(others.length > 0 ? [othersGoOn(others)] : []),
    ];
    if (notes.length > 0)
      blocks.push({ type: 'context', elements: notes.map((note) => mrkdwn(note)) });
    blocks.push({
      type: 'actions',
      block_id: LOGOUT_IDS.actionsBlock,
      elements: [
        {
          type: 'button',
          action_id: LOGOUT_IDS.confirm,
          style: 'danger',
          text: plain('Log out'),
        },
        ...(hasWork ? [deleteButton(preview, 'Log out and delete watches and reports')] : []),
        cancelButton,
      ],
    });
    return message(md`Log out of the CDN?`, blocks);
  }
  blocks.push(
    {
      type: 'section',
      text: mrkdwn(
        others.length > 0
          ? md`:double_vertical_bar: The CDN account ${LOGIN} has no API key: its watches and reports wait for one (\`/cdn login\`).`
          : md`:double_vertical_bar: This workspace has no CDN API key: its watches and reports wait for one (\`/cdn login\`).`,
      ),
    },
    ...workLines(preview, 'waiting').map((line) => ({
      type: 'section' as const,
      text: mrkdwn(line),
    })),
    ...(others.length > 0
      ? [{ type: 'context' as const, elements: [mrkdwn(othersGoOn(others))] }]
      : []),
    {
      type: 'actions',
      block_id: LOGOUT_IDS.actionsBlock,
      elements: [deleteButton(preview, 'Delete watches and reports'), cancelButton],
    },
  );
  return message(md`No CDN API key: watches and reports wait for one`, blocks);
}

/** What the logout did. */
export function loggedOutMessage(outcome: LogoutOutcome): Message {
  // Only what there was: '1 daily report is paused', never '0 watches and 1 daily report'.
  const parts = [
    ...(outcome.watches > 0 ? [count(outcome.watches, 'watch', 'watches')] : []),
    ...(outcome.reports > 0 ? [count(outcome.reports, 'daily report', 'daily reports')] : []),
  ];
  const work = md`${parts.join(' and ')}`;
  const some = outcome.watches + outcome.reports > 0;
  const others = outcome.otherAccounts ?? [];
  const removed = outcome.keyRemoved
    ? md`The API key of the CDN account ${LOGIN} is removed.`
    : md`There was no CDN API key to remove.`;
  const rest = outcome.deleted
    ? md` ${work} ${outcome.watches + outcome.reports === 1 ? 'is' : 'are'} deleted.`
    : some
      ? md` ${work} ${outcome.watches + outcome.reports === 1 ? 'is' : 'are'} paused: they resume by themselves once an admin runs \`/cdn login\`.`
      : outcome.keyRemoved
        ? others.length > 0
          ? md` Commands on the CDN account ${LOGIN} are off until an admin runs \`/cdn login\`.`
          : md` Commands that need the CDN are off until an admin runs \`/cdn login\`.`
        : md``;
  const defaults =
    outcome.bindings > 0
      ? md` ${count(outcome.bindings, 'channel default zone was', 'channel default zones were')} cleared.`
      : md``;
  const untouched = others.length > 0 ? md` ${othersGoOn(others)}` : md``;
  return noticeMessage(
    md`${removed}${rest}${defaults}${untouched}`,
    outcome.keyRemoved ? ':wave:' : ':white_check_mark:',
  );
}

export function logoutCancelledMessage(): Message {
  return noticeMessage('Logout cancelled: nothing changed.');
}
