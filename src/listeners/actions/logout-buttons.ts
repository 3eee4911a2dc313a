// /cdn logout's buttons: Log out (watches and reports wait for the next key), Log out and delete
// watches and reports, Cancel. Each answer replaces the question.
import { loggedOutMessage, logoutCancelledMessage } from '../../blocks/logout.js';
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function logoutButton(deps: AppDeps, deleteWork: boolean) {
  return async ({ ack, context, respond }: ButtonArgs) => {
    await ack();
    const outcome = await deps.credentials.remove(callerOf(context), { deleteWork });
    await respond({ replace_original: true, ...loggedOutMessage(outcome) });
  };
}

export function logoutCancel() {
  return async ({ ack, respond }: ButtonArgs) => {
    await ack();
    await respond({ replace_original: true, ...logoutCancelledMessage() });
  };
}
