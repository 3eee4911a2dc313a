// Approve…, Deny… and Cancel on a purge-everything request. Approve and Deny open a modal for an
// eligible person; the decision itself happens when that modal is submitted.
import type { ModalView } from '@slack/types';
import { approveModal, denyModal } from '../../blocks/approval.js';
import type { AppDeps } from '../../deps.js';
import type { Approval } from '../../services/approvals/approvals.js';
import { type ButtonArgs, callerOf } from '../context.js';

/** Approve… and Deny… open their modal, for an eligible person only. */
function opensDecision(deps: AppDeps, modal: (approval: Approval) => ModalView) {
  return async ({ ack, action, body, client, context }: ButtonArgs) => {
    await ack();
    const approval = await deps.approvals.decidable(callerOf(context), action.value ?? '');
    await client.views.open({ trigger_id: body.trigger_id, view: modal(approval) });
  };
}

export const approveButton = (deps: AppDeps) => opensDecision(deps, approveModal);
export const denyButton = (deps: AppDeps) => opensDecision(deps, denyModal);

export function cancelButton(deps: AppDeps) {
  return async ({ ack, action, context }: ButtonArgs) => {
    await ack();
    await deps.approvals.cancel(callerOf(context), action.value ?? '');
  };
}
