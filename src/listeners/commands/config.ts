// /cdn config [operators|approvers @group|everyone] | guests read|operate |
// purge-channels #channel…|anywhere | limits <limit> <number>: admins say who may change and who
// may approve, what guests may do, the only channels purges may be run from, and how much may be
// stored.
import { accountRoleSavedMessage } from '../../blocks/accounts.js';
import { configMessage, LIMIT_WORDS, purgeChannelsSavedMessage } from '../../blocks/config.js';
import { noticeMessage } from '../../blocks/errors.js';
import { GUEST_ACCESS } from '../../services/workspace/workspace-config.js';
import type { SubcommandHandler } from './context.js';

const USAGE =
  "Usage: `/cdn config`, `/cdn config operators @group|everyone [account:<name>]`, `/cdn config approvers @group|everyone [account:<name>]` (`workspace` with an account: the workspace's again), `/cdn config guests read|operate`, `/cdn config purge-channels #channel… | anywhere`, `/cdn config limits <limit> <number>`";

/** Words that lift the limit on where purges may be run. */
// Not 'none' or 'all': an admin typing "none" may mean no channel at all, the opposite.
const ANYWHERE = new Set(['anywhere', 'everywhere']);

export const config: SubcommandHandler = async (context) => {
  const { args, deps, caller, respond } = context;
  if (args.length === 0) {
    const workspace = await deps.config.view(caller);
    await respond(configMessage(workspace, undefined, await purgeChannelsFor(context)));
    return;
  }
  if (args[0]?.toLowerCase() === 'purge-channels') {
    await purgeChannels(context);
    return;
  }
  if (args[0]?.toLowerCase() === 'guests') {
    await guests(context);
    return;
  }
  if (args[0]?.toLowerCase() === 'limits') {
    await limits(context);
    return;
  }
  const accountWord = args.findIndex((word) => word.toLowerCase().startsWith('account:'));
  if (accountWord >= 0) {
    await accountRole(context, accountWord);
    return;
  }
  const [role, target] = args;
  const everyone = target?.toLowerCase() === 'everyone' || target?.toLowerCase() === 'none';
  const group = context.tokens[1]?.kind === 'usergroup' ? context.tokens[1] : undefined;
  if (
    args.length !== 2 ||
    (role !== 'operators' && role !== 'approvers') ||
    (!everyone && !group)
  ) {
    await respond(noticeMessage(`${USAGE}. Mention the group with @ so Slack sends its id.`));
    return;
  }
  const updated = await deps.config.setRole(caller, role, everyone ? null : (group?.id ?? null));
  await respond(
    configMessage(
      updated,
      `${role === 'operators' ? 'Operators' : 'Approvers'} updated.`,
      await purgeChannelsFor(context),
    ),
  );
};

/**
 * `operators @group account:staging`: the account's own operators (or approvers); `everyone`
 * opens it to all, `workspace` makes it follow the workspace's again.
 */
async function accountRole(context: Parameters<SubcommandHandler>[0], at: number) {
  const { args, tokens, deps, caller, respond } = context;
  const accountName = args[at]?.slice('account:'.length) ?? '';
  const rest = args.filter((_, i) => i !== at);
  const restTokens = tokens.filter((_, i) => i !== at);
  const [role, target] = rest;
  const word = target?.toLowerCase();
  const group = restTokens[1]?.kind === 'usergroup' ? restTokens[1] : undefined;
  const holder =
    word === 'everyone'
      ? 'everyone'
      : word === 'workspace'
        ? 'workspace'
        : group
          ? { group: group.id }
          : undefined;
  if (
    rest.length !== 2 ||
    (role !== 'operators' && role !== 'approvers') ||
    !holder ||
    !accountName
  ) {
    await respond(noticeMessage(`${USAGE}. Mention the group with @ so Slack sends its id.`));
    return;
  }
  const account = await deps.accounts.setRole(caller, accountName, role, holder);
  await respond(accountRoleSavedMessage(account.name, role, holder));
}

/** The purge channels as the caller may see them, for configMessage. */
async function purgeChannelsFor({ deps, caller }: Parameters<SubcommandHandler>[0]) {
  const { shown, hidden } = await deps.channels.purgeChannelsFor(caller);
  return { purgeChannels: shown, hiddenPurgeChannels: hidden };
}

/** `guests read` keeps guests to reading (the default); `guests operate` lets them change things. */
const guests: SubcommandHandler = async (context) => {
  const { args, deps, caller, respond } = context;
  const access = GUEST_ACCESS.find((known) => known === args[1]?.toLowerCase());
  if (args.length !== 2 || access === undefined) {
    await respond(noticeMessage(`${USAGE}.`));
    return;
  }
  const updated = await deps.config.setGuestAccess(caller, access);
  await respond(
    configMessage(
      updated,
      access === 'operate'
        ? 'Guests may now change things as members do (they still cannot approve).'
        : 'Guests may now only read.',
      await purgeChannelsFor(context),
    ),
  );
};

/** `purge-channels #a #b` limits purges to those channels; `purge-channels anywhere` lifts it. */
const purgeChannels: SubcommandHandler = async ({ args, tokens, deps, caller, respond }) => {
  const words = args.slice(1);
  const anywhere = words.length === 1 && ANYWHERE.has(words[0]?.toLowerCase() ?? '');
  const ids = tokens.slice(1).flatMap((token) => (token.kind === 'channel' ? [token.id] : []));
  if (words.length === 0 || (!anywhere && ids.length !== words.length)) {
    await respond(
      noticeMessage(
        `${USAGE}. Name the channels with # so Slack sends their ids, or say \`anywhere\` to allow every channel.`,
      ),
    );
    return;
  }
  const saved = await deps.channels.setPurgeChannels(caller, anywhere ? [] : ids);
  const workspace = await deps.config.get(caller.workspaceId);
  await respond(purgeChannelsSavedMessage(workspace, saved));
};

/** `limits watches 300`: how many of something the workspace (or each person) may store. */
const limits: SubcommandHandler = async (context) => {
  const { args, deps, caller, respond } = context;
  const words = Object.entries(LIMIT_WORDS) as [keyof typeof LIMIT_WORDS, string][];
  const limit = words.find(([, word]) => word === args[1]?.toLowerCase())?.[0];
  const value = /^\d{1,9}$/.test(args[2] ?? '') ? Number(args[2]) : undefined;
  if (args.length !== 3 || limit === undefined || value === undefined) {
    await respond(
      noticeMessage(
        `Usage: \`/cdn config limits <limit> <number>\`, where <limit> is one of ${words.map(([, word]) => `\`${word}\``).join(', ')}.`,
      ),
    );
    return;
  }
  const updated = await deps.config.setLimit(caller, limit, value);
  await respond(
    configMessage(
      updated,
      `The ${LIMIT_WORDS[limit]} limit is now ${value.toLocaleString('en')}.`,
      await purgeChannelsFor(context),
    ),
  );
};
