// /cdn zones [active|pending|deleted] [page N]
import { noticeMessage } from '../../blocks/errors.js';
import { zonesMessage } from '../../blocks/zones.js';
import { ZONE_STATUSES } from '../../services/zones.js';
import type { SubcommandHandler } from './context.js';

const USAGE = 'Usage: `/cdn zones [active|pending|deleted] [page N]`';

export function parseZonesArgs(args: string[]): { status?: string; page: number } | undefined {
  let status: string | undefined;
  let page = 1;
  for (let i = 0; i < args.length; i++) {
    const word = (args[i] ?? '').toLowerCase();
    if ((ZONE_STATUSES as readonly string[]).includes(word) && status === undefined) status = word;
    else if (word === 'page' && /^\d{1,6}$/.test(args[i + 1] ?? '')) page = Number(args[++i]);
    else if (/^\d{1,6}$/.test(word)) page = Number(word);
    else return undefined;
  }
  return page >= 1 ? { ...(status ? { status } : {}), page } : undefined;
}

export const zones: SubcommandHandler = async ({ args, deps, caller, respond }) => {
  const parsed = parseZonesArgs(args);
  if (!parsed) {
    await respond(noticeMessage(USAGE));
    return;
  }
  await respond(zonesMessage(await deps.zones.page(caller.workspaceId, parsed), parsed.status));
};
