// Approve and Deny under a freeze exception: a second person decides, once; the message then says
// what was decided (the service updates it).
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function freezeExceptionButton(deps: AppDeps, decision: 'approved' | 'denied') {
  return async ({ ack, action, context }: ButtonArgs) => {
    await ack();
    await deps.freezes.decideException(callerOf(context), action.value ?? '', decision);
  };
}
