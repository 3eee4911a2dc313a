// The workspace's CDN accounts: their list (`/cdn accounts`, the App Home), the add / rename /
// re-key modals, the confirmation of a removal that says what stops, and what follows each.
import type { Button, KnownBlock, ModalView } from '@slack/types';
import type {
  AccountsOverview,
  AccountView,
  KeyHealth,
  RemovalPreview,
  RoleHolder,
} from '../services/accounts/accounts.js';
import type { AccountUsage } from '../store/account-usage.js';
import type { Account } from '../store/accounts.js';
import { andMore } from './fit.js';
import { ACCOUNTS_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, group, join, type Mrkdwn, md, mrkdwn, plain } from './text.js';

/** Accounts listed in one message or Home (each takes two blocks with its buttons). */
const MAX_ACCOUNTS = 20;

const HEALTH: Record<KeyHealth, Mrkdwn> = {
  works: md`:white_check_mark: key works`,
  refused: md`:x: key refused by the CDN`,
  unreachable: md`:warning: CDN unreachable, key not checked`,
  unchecked: md`:grey_question: key not checked just now`,
  none: md`:warning: no key`,
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One account in a line: name, zones, whether its key works, its API, its own roles. */
function accountLine(account: AccountView): Mrkdwn {
  const zones =
    account.zoneCount === null
      ? md`zones not listed yet`
      : md`${plural(account.zoneCount, 'zone')}`;
  const roles = [
    account.operators
      ? md`operators: ${account.operators.groupId ? group(account.operators.groupId) : 'everyone'}`
      : undefined,
    account.approvers
      ? md`approvers: ${account.approvers.groupId ? group(account.approvers.groupId) : 'anyone but the requester'}`
      : undefined,
  ].filter((part): part is Mrkdwn => part !== undefined);
  const api = account.baseUrl ? md`\nAPI: ${code(account.baseUrl)}` : '';
  const own = roles.length > 0 ? md`\n${join(roles, ' · ')}` : '';
  return md`*${account.name}* · ${zones} · ${HEALTH[account.health]}${api}${own}`;
}

/** The accounts as blocks; for admins, each with Rename / Re-key / Remove, and Add at the end. */
export function accountsBlocks(overview: AccountsOverview): KnownBlock[] {
  const { accounts, mayManage } = overview;
  const blocks: KnownBlock[] = [];
  if (accounts.length === 0)
    blocks.push({
      type: 'context',
      elements: [mrkdwn(md`No CDN account yet. A workspace admin can add one.`)],
    });
  accounts.slice(0, MAX_ACCOUNTS).forEach((account, index) => {
    blocks.push({ type: 'section', text: mrkdwn(accountLine(account)) });
    if (mayManage)
      blocks.push({
        type: 'actions',
        block_id: `${ACCOUNTS_IDS.actionsBlock}_${index}`,
        elements: accountButtons(account, index),
      });
  });
  const more = andMore(accounts.length - MAX_ACCOUNTS, 'accounts');
  if (more) blocks.push({ type: 'context', elements: [mrkdwn(more)] });
  if (mayManage)
    blocks.push({
      type: 'actions',
      block_id: ACCOUNTS_IDS.addBlock,
      elements: [
        {
          type: 'button',
          text: plain('Add an account'),
          action_id: ACCOUNTS_IDS.add,
          style: 'primary',
        },
      ],
    });
  return blocks;
}

function accountButtons(account: Account, index: number): Button[] {
  const button = (label: string, id: string): Button => ({
    type: 'button',
    text: plain(label),
    action_id: `${id}_${index}`,
    value: account.id,
  });
  return [
    button('Rename', ACCOUNTS_IDS.rename),
    button(account.hasKey ? 'Re-key' : 'Set key', ACCOUNTS_IDS.rekey),
    { ...button('Remove', ACCOUNTS_IDS.remove), style: 'danger' as const },
  ];
}

/** `/cdn config operators @group account:staging`: who now holds the role on the account. */
export function accountRoleSavedMessage(
  accountName: string,
  role: 'operators' | 'approvers',
  holder: RoleHolder,
): Message {
  const who =
    holder === 'workspace'
      ? md`whoever holds it for the workspace (\`/cdn config\`)`
      : holder === 'everyone'
        ? md`everyone`
        : group(holder.group);
  const text = md`:white_check_mark: *${role === 'operators' ? 'Operators' : 'Approvers'}* of the CDN account *${accountName}*: ${who}.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}

/** `/cdn accounts`: the list, and what it means. */
export function accountsMessage(overview: AccountsOverview): Message {
  const count = overview.accounts.length;
  const head = md`*CDN accounts* (${count})`;
  return message(head, [
    { type: 'section', text: mrkdwn(head) },
    ...accountsBlocks(overview),
    {
      type: 'context',
      elements: [
        mrkdwn(
          md`Keys are checked against the CDN at most every 5 minutes. \`/cdn config operators @group account:<name>\` (admins) gives an account its own operators; \`approvers\` likewise.`,
        ),
      ],
    },
  ]);
}

const nameInput = (initial?: string): KnownBlock => ({
  type: 'input',
  block_id: ACCOUNTS_IDS.nameBlock,
  label: plain('Name'),
  hint: plain('1 to 32 letters, digits or inner hyphens: prod, staging, eu-web.'),
  element: {
    type: 'plain_text_input',
    action_id: ACCOUNTS_IDS.nameInput,
    max_length: 32,
    ...(initial ? { initial_value: initial } : {}),
  },
});

const keyInput = (): KnownBlock => ({
  type: 'input',
  block_id: ACCOUNTS_IDS.keyBlock,
  label: plain('API key'),
  element: {
    type: 'plain_text_input',
    action_id: ACCOUNTS_IDS.keyInput,
    placeholder: plain('Paste the key'),
    max_length: 512,
  },
});

const KEY_NOTE = md`The key is checked against the CDN, stored encrypted, and never shown again.`;

function modal(
  callbackId: string,
  title: string,
  submit: string,
  metadata: string,
  blocks: KnownBlock[],
): ModalView {
  return {
    type: 'modal',
    callback_id: callbackId,
    title: plain(title, 24),
    submit: plain(submit, 24),
    close: plain('Cancel'),
    private_metadata: metadata,
    blocks,
  };
}

export function accountAddModal(options: { defaultBaseUrl: string; metadata: string }): ModalView {
  return modal(ACCOUNTS_IDS.addCallback, 'Add a CDN account', 'Check and add', options.metadata, [
    {
      type: 'section',
      text: mrkdwn(md`A second CDN account (staging, another business unit). ${KEY_NOTE}`),
    },
    nameInput(),
    keyInput(),
    {
      type: 'input',
      block_id: ACCOUNTS_IDS.baseUrlBlock,
      optional: true,
      label: plain('API base URL (optional)'),
      hint: plain(
        `Leave empty to use ${options.defaultBaseUrl}. Must be an https URL ending with /v1, on a public address.`,
        2000,
      ),
      element: { type: 'url_text_input', action_id: ACCOUNTS_IDS.baseUrlInput },
    },
  ]);
}

export function accountRenameModal(account: Account, metadata: string): ModalView {
  return modal(ACCOUNTS_IDS.renameCallback, 'Rename account', 'Rename', metadata, [
    {
      type: 'section',
      text: mrkdwn(
        md`Renaming *${account.name}* changes how it is named in commands; nothing else changes.`,
      ),
    },
    nameInput(account.name),
  ]);
}

export function accountRekeyModal(account: Account, metadata: string): ModalView {
  return modal(ACCOUNTS_IDS.rekeyCallback, 'Replace the key', 'Check and save', metadata, [
    {
      type: 'section',
      text: mrkdwn(
        md`A new API key for *${account.name}*${account.baseUrl ? md` (API ${code(account.baseUrl)})` : ''}. ${KEY_NOTE}`,
      ),
    },
    keyInput(),
  ]);
}

/**
 * What stops with an account, in words (`asked`: before it is removed); empty when nothing does.
 * Its API tokens are not revoked: they purge nothing, and the token list says so.
 */
function usageLines(usage: AccountUsage, asked: boolean): Mrkdwn[] {
  return [
    usage.watches > 0 ? md`• *${plural(usage.watches, 'watch', 'watches')}* removed` : undefined,
    usage.reports > 0 ? md`• *${plural(usage.reports, 'daily report')}* stopped` : undefined,
    usage.bindings > 0
      ? md`• *${plural(usage.bindings, 'channel')}* bound to it (\`/cdn use\`) ${asked ? 'will refuse' : 'refuse'} zone commands until bound again or unbound`
      : undefined,
    usage.approvals > 0
      ? md`• *${plural(usage.approvals, 'pending purge-everything request')}* cancelled`
      : undefined,
    usage.tokens > 0
      ? md`• *${plural(usage.tokens, 'API token')}* ${asked ? 'will no longer purge' : 'no longer purge'} (${usage.tokens === 1 ? 'it reaches' : 'they reach'} this account only; revoke or replace ${usage.tokens === 1 ? 'it' : 'them'} in \`/cdn tokens\`)`
      : undefined,
  ].filter((line): line is Mrkdwn => line !== undefined);
}

/** Asks before removing: what stops, and that the audit log is kept. */
export function accountRemoveModal(preview: RemovalPreview, metadata: string): ModalView {
  const lines = usageLines(preview.usage, true);
  const stops =
    lines.length > 0
      ? md`This stops:\n${join(lines, '\n')}`
      : md`No watch, daily report, channel default, pending request or API token uses it.`;
  return modal(ACCOUNTS_IDS.removeCallback, 'Remove account?', 'Remove', metadata, [
    {
      type: 'section',
      text: mrkdwn(
        md`Remove the CDN account *${preview.account.name}* and its API key?\n\n${stops}`,
      ),
    },
    {
      type: 'context',
      elements: [mrkdwn(md`The audit log keeps its entries. Nothing is changed at the CDN.`)],
    },
  ]);
}

export function accountDoneView(title: string, text: Mrkdwn): ModalView {
  return {
    type: 'modal',
    title: plain(title, 24),
    close: plain('Done'),
    blocks: [{ type: 'section', text: mrkdwn(text) }],
  };
}

export function accountCheckingView(): ModalView {
  return accountDoneView(
    'CDN account',
    md`:hourglass_flowing_sand: Checking the key… Slack, DNS or the CDN is slow to answer. This view updates when the checks end.`,
  );
}

export const accountAddedText = (account: Account, zoneCount: number) =>
  md`:white_check_mark: Account *${account.name}* added. Its key works: ${plural(zoneCount, 'zone')} visible.`;
export const accountRekeyedText = (account: Account, zoneCount: number) =>
  md`:white_check_mark: The key of *${account.name}* is replaced. It works: ${plural(zoneCount, 'zone')} visible.`;
export const accountRenamedText = (account: Account) =>
  md`:white_check_mark: The account is now named *${account.name}*.`;
export function accountRemovedText(preview: RemovalPreview): Mrkdwn {
  const lines = usageLines(preview.usage, false);
  return md`:wastebasket: Account *${preview.account.name}* and its key are removed.${lines.length > 0 ? md`\n${join(lines, '\n')}` : ''}\nThe audit log keeps its entries.`;
}
