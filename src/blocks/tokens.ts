// Tokens of the HTTP API in Slack: the list (`/cdn tokens`, the App Home's Tokens section) with
// Revoke (asked first), the creation form, and the one view that shows a new token's secret. Each
// says plainly which CDN account a token reaches (one, or every account as an admin chose).
import type { Button, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type {
  ApiToken,
  ApiTokenKind,
  ListedToken,
  TokenFormChoices,
  TokenReach,
} from '../services/api/api-tokens.js';
import type { Account } from '../store/accounts.js';
import { zoneLabel } from '../zone-names.js';
import { listBlocks } from './fit.js';
import { TOKENS_IDS, ZONE_PICKER_IDS } from './ids.js';
import { type Message, message } from './message.js';
import {
  channel,
  clip,
  code,
  join,
  MAX_SENTENCE,
  type Mrkdwn,
  md,
  mrkdwn,
  plain,
  slackDate,
  truncate,
  user,
} from './text.js';

/** How many tokens a list shows (each a section); the rest are counted. */
const SHOWN_TOKENS = 20;
/** How many of a token's zones its line names. */
const NAMED_ZONES = 5;

const KIND_WORDS: Record<ApiTokenKind, string> = {
  urls_tags: 'URLs and tags',
  everything: 'everything (with approval)',
};

/** What a token reaches, in words: its account, or every account (chosen so), or nothing. */
export function reachText(reach: TokenReach): Mrkdwn {
  switch (reach.kind) {
    case 'all':
      return md`*every CDN account* (those added later too)`;
    case 'account':
      return md`CDN account ${code(truncate(reach.name, 40))}`;
    case 'none':
      return md`:warning: its CDN account was removed: it purges nothing`;
  }
}

/** A token's line: name, hint, account, zones, kinds, channel, last use. */
export function tokenLine(token: ListedToken): Mrkdwn {
  const zones =
    token.zones === null
      ? md`all zones`
      : join(
          [
            ...token.zones.slice(0, NAMED_ZONES).map((z) => md`${truncate(zoneLabel(z), 100)}`),
            ...(token.zones.length > NAMED_ZONES
              ? [md`${token.zones.length - NAMED_ZONES} more`]
              : []),
          ],
          ', ',
        );
  const kinds = token.kinds.map((k) => KIND_WORDS[k]).join(', ');
  const used =
    token.lastUsedAt === null ? md`never used` : md`last used ${slackDate(token.lastUsedAt)}`;
  const state =
    token.revokedAt === null
      ? used
      : md`:no_entry: revoked ${slackDate(token.revokedAt)}${token.revokedBy ? md` by ${user(token.revokedBy)}` : ''}`;
  return clip(
    md`*${truncate(token.name, 100)}* ${code(`${truncate(token.hint, 20)}…`)}\n${reachText(token.reach)} · ${zones} · ${kinds}${token.channelId ? md` · announced in ${channel(token.channelId)}` : ''} · ${state} · made by ${user(token.createdBy)}`,
    MAX_SENTENCE,
  );
}

function revokeButton(token: ApiToken, actionId: string): Button {
  return {
    type: 'button',
    text: plain('Revoke'),
    style: 'danger',
    action_id: actionId,
    value: token.id,
    confirm: {
      title: plain('Revoke this token?', 100),
      text: mrkdwn(
        md`*${truncate(token.name, 100)}* stops working at once, on every replica: its next request is refused. This cannot be undone.`,
        300,
      ),
      confirm: plain('Revoke it', 30),
      deny: plain('Keep it', 30),
    },
  };
}

/** The tokens as blocks, each live one with Revoke; `home` picks the App Home's action ids. */
export function tokenBlocks(
  tokens: readonly ListedToken[],
  surface: 'message' | 'home',
): KnownBlock[] {
  const revokeId = surface === 'home' ? TOKENS_IDS.homeRevoke : TOKENS_IDS.revoke;
  const blocks: KnownBlock[] =
    tokens.length === 0
      ? [
          {
            type: 'context',
            elements: [mrkdwn(md`No tokens yet. A token lets CI purge over the HTTP API.`)],
          },
        ]
      : listBlocks(tokens, SHOWN_TOKENS, (token, index) => ({
          type: 'section',
          text: mrkdwn(tokenLine(token)),
          ...(token.revokedAt === null
            ? { accessory: revokeButton(token, `${revokeId}_${index}`) }
            : {}),
        }));
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        text: plain('Create token'),
        style: 'primary',
        action_id: surface === 'home' ? TOKENS_IDS.homeCreate : TOKENS_IDS.create,
      },
    ],
  });
  return blocks;
}

/** `/cdn tokens`: the workspace's tokens, for its admins. */
export function tokensMessage(tokens: readonly ListedToken[]): Message {
  return message(md`Tokens of the HTTP API: ${tokens.length}`, [
    { type: 'header', text: plain('Tokens for CI') },
    {
      type: 'context',
      elements: [
        mrkdwn(
          md`A token lets a pipeline purge over the HTTP API (\`POST /api/v1/purges\`); each purge is posted in the token's channel or the zone's default channel.`,
        ),
      ],
    },
    ...tokenBlocks(tokens, 'message'),
  ]);
}

/** How many accounts the form's select lists (Slack takes 100 options; one is every account). */
const LISTED_ACCOUNTS = 99;

function accountOption(account: Pick<Account, 'id' | 'name' | 'hasKey'>): PlainTextOption {
  return {
    text: plain(`${account.name}${account.hasKey ? '' : ' (no API key)'}`, 75),
    value: account.id,
  };
}

/**
 * The form that makes a token; `from` is where it was opened (the App Home is refreshed after);
 * `choices.accounts`, the workspace's: the token is for one of them (`choices.preselected` at
 * first, never every account) or, only when the admin picks it, for every account.
 */
export function tokenModal(
  choices: TokenFormChoices,
  from: 'message' | 'home' = 'message',
): ModalView {
  const listed = choices.accounts.slice(0, LISTED_ACCOUNTS);
  const first = listed.find((a) => a.id === choices.preselected);
  const options = [
    ...listed.map(accountOption),
    {
      text: plain('Every CDN account, including those added later'),
      value: TOKENS_IDS.allAccountsValue,
    },
  ];
  return {
    type: 'modal',
    callback_id: TOKENS_IDS.callback,
    private_metadata: from,
    title: plain('Create a CI token'),
    submit: plain('Create token'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: TOKENS_IDS.nameBlock,
        label: plain('Name'),
        hint: plain('Shown with each of its purges, and in /cdn audit token:<name>.'),
        element: {
          type: 'plain_text_input',
          action_id: TOKENS_IDS.nameInput,
          placeholder: plain('deploy-bot'),
          max_length: 64,
        },
      },
      {
        type: 'input',
        block_id: TOKENS_IDS.accountBlock,
        label: plain('CDN account'),
        hint: plain(
          'It purges zones of this account only. "Every CDN account" also reaches accounts added later, with all their zones.',
        ),
        element: {
          type: 'static_select',
          action_id: TOKENS_IDS.accountInput,
          placeholder: plain('Choose an account'),
          options,
          ...(first ? { initial_option: accountOption(first) } : {}),
        },
      },
      {
        type: 'input',
        block_id: TOKENS_IDS.zonesBlock,
        optional: true,
        label: plain('Zones'),
        // Both fields are optional to Slack, as either will do; one of them is required.
        hint: plain('Required unless "Every zone" below is ticked. Zones of the account above.'),
        element: {
          type: 'multi_external_select',
          action_id: ZONE_PICKER_IDS.action,
          placeholder: plain('Type to search zones'),
          min_query_length: 0,
          max_selected_items: 100,
        },
      },
      {
        type: 'input',
        block_id: TOKENS_IDS.allZonesBlock,
        optional: true,
        label: plain('Every zone'),
        hint: plain('Required unless zones are picked above.'),
        element: {
          type: 'checkboxes',
          action_id: TOKENS_IDS.allZonesInput,
          options: [{ text: plain('All zones, including those added later'), value: 'all' }],
        },
      },
      {
        type: 'input',
        block_id: TOKENS_IDS.kindsBlock,
        label: plain('It may purge'),
        element: {
          type: 'checkboxes',
          action_id: TOKENS_IDS.kindsInput,
          options: (Object.keys(KIND_WORDS) as ApiTokenKind[]).map((kind) => ({
            text: plain(KIND_WORDS[kind]),
            value: kind,
          })),
          initial_options: [{ text: plain(KIND_WORDS.urls_tags), value: 'urls_tags' }],
        },
      },
      {
        type: 'input',
        block_id: TOKENS_IDS.channelBlock,
        optional: true,
        label: plain('Announce its purges in'),
        hint: plain("None: each zone's default channel (/cdn use). The bot must be in it."),
        element: {
          type: 'conversations_select',
          action_id: TOKENS_IDS.channelInput,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
    ],
  };
}

/** The token's secret, shown here once: it is stored only as a hash and cannot be shown again. */
export function tokenCreatedView(token: ApiToken, secret: string, reach: TokenReach): ModalView {
  return {
    type: 'modal',
    title: plain('Token created'),
    close: plain('Done'),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          md`:white_check_mark: *${truncate(token.name, 100)}* is ready. Copy it now: it is shown *only this once* (the bot keeps only a hash of it).`,
        ),
      },
      {
        type: 'section',
        text: mrkdwn(
          clip(
            md`It purges in: ${reachText(reach)}, ${token.zones === null ? md`all zones` : md`${token.zones.length} ${token.zones.length === 1 ? 'zone' : 'zones'}`}.`,
            MAX_SENTENCE,
          ),
        ),
      },
      { type: 'section', text: mrkdwn(code(secret)) },
      {
        type: 'context',
        elements: [
          mrkdwn(
            md`Store it as a CI secret and send it as \`Authorization: Bearer <token>\`. Revoke it from \`/cdn tokens\` or the App Home.`,
          ),
        ],
      },
    ],
  };
}
