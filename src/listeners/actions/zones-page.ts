// The zone list's Previous/Next buttons: the same message, another page.
import { type ZonesPagerValue, zonesMessage } from '../../blocks/zones.js';
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';

function parseValue(value: string | undefined): ZonesPagerValue {
  try {
    const parsed = JSON.parse(value ?? '{}') as Partial<ZonesPagerValue>;
    const page =
      Number.isInteger(parsed.page) && (parsed.page ?? 0) >= 1 ? (parsed.page as number) : 1;
    return {
      ...(typeof parsed.status === 'string' ? { status: parsed.status } : {}),
      ...(typeof parsed.name === 'string' ? { name: parsed.name } : {}),
      ...(typeof parsed.account === 'string' ? { account: parsed.account } : {}),
      page,
    };
  } catch {
    return { page: 1 };
  }
}

export function zonesPage(deps: AppDeps) {
  return async ({ ack, action, body, respond, context }: ButtonArgs) => {
    await ack();
    const { account, ...target } = parseValue(action.value);
    const where = {
      ...(body.channel ? { channelId: body.channel.id } : {}),
      ...(account === undefined ? {} : { account }),
    };
    const page = await deps.accountScopes.page(callerOf(context), where, target);
    await respond({ replace_original: true, ...zonesMessage(page, target) });
  };
}
