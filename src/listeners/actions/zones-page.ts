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
      page,
    };
  } catch {
    return { page: 1 };
  }
}

export function zonesPage(deps: AppDeps) {
  return async ({ ack, action, respond, context }: ButtonArgs) => {
    await ack();
    const target = parseValue(action.value);
    const page = await deps.zones.page(callerOf(context), target);
    await respond({ replace_original: true, ...zonesMessage(page, target) });
  };
}
