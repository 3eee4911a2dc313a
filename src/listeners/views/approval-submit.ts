// The approve and deny modals: the one submission that wins the request decides it. A refusal
// (no longer pending, not eligible, someone else was first) replaces the modal (the error policy).
import { APPROVAL_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function approveSubmit(deps: AppDeps) {
  return async ({ ack, view, context }: SubmitArgs) => {
    const approval = await deps.approvals.approve(callerOf(context), view.private_metadata);
    // Stored before the answer: from here any replica finishes it (and the sweeper stores a job
    // for an approval whose process died before this line).
    await deps.approvals.execute(approval);
    await ack();
  };
}

export function denySubmit(deps: AppDeps) {
  return async ({ ack, view, context }: SubmitArgs) => {
    const reason = (
      view.state.values[APPROVAL_IDS.denyReasonBlock]?.[APPROVAL_IDS.denyReasonInput]?.value ?? ''
    ).trim();
    if (reason === '') {
      await ack({
        response_action: 'errors',
        errors: { [APPROVAL_IDS.denyReasonBlock]: 'Say why: the requester will read it.' },
      });
      return;
    }
    const denied = await deps.approvals.deny(callerOf(context), view.private_metadata, reason);
    await ack();
    await deps.approvals.closed(denied);
  };
}
