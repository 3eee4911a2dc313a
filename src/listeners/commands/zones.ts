// /cdn zones [active|pending|deleted] [name] [page N]
import { noticeMessage } from '../../blocks/errors.js';
import { zonesMessage } from '../../blocks/zones.js';
import { ZONE_STATUSES } from '../../services/zones/zones.js';
import { accountWords } from './account-words.js';
import type { SubcommandHandler } from './context.js';

const USAGE = 'Usage: `/cdn zones [active|pending|deleted] [name] [page N]`';
/** The longest domain name: a longer filter matches nothing. */
const MAX_NAME = 253;

/** The words after `/cdn zones`: a status, part of a zone's name (in any form), a page. */
export function parseZonesArgs(
  args: string[],
): { status?: string; name?: string; page: number } | undefined {
  let status: string | undefined;
  let name: string | undefined;
  let page = 1;
  for (let i = 0; i < args.length; i++) {
    const typed = args[i] ?? '';
    const word = typed.toLowerCase();
    if ((ZONE_STATUSES as readonly string[]).includes(word)) {
      if (status !== undefined) return undefined;
      status = word;
    } else if (word === 'page' && /^\d{1,6}$/.test(args[i + 1] ?? '')) page = Number(args[++i]);
    else if (/^\d{1,6}$/.test(word)) page = Number(word);
    else if (name === undefined && word !== 'page' && typed.length <= MAX_NAME) name = typed;
    else return undefined;
  }
  if (page < 1) return undefined;
  return { ...(status ? { status } : {}), ...(name ? { name } : {}), page };
}

export const zones: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond } = context;
  const { args, account } = accountWords(context);
  const parsed = parseZonesArgs(args);
  if (!parsed) {
    await respond(noticeMessage(USAGE));
    return;
  }
  const where = { channelId: command.channel_id, ...(account === undefined ? {} : { account }) };
  const page = await deps.accountScopes.page(caller, where, parsed);
  await respond(zonesMessage(page, parsed));
};
