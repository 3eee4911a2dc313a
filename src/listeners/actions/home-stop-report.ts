// The Stop button next to a daily report on the App Home.
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';
import { publishHome } from '../events/app-home-opened.js';

export function homeStopReport(deps: AppDeps) {
  return async ({ ack, action, client, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    try {
      await deps.schedules.stop(caller, action.value ?? '');
    } finally {
      // The refresh is a courtesy: the report is stopped (or not) whatever it does.
      await publishHome(deps, client, caller).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'App Home not refreshed'),
      );
    }
  };
}
