// Approve…, Deny… and Cancel on a purge-everything request. Approve and Deny open a modal for an
// eligible person; the decision itself happens when that modal is submitted.
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { approveModal, denyModal } from '../../blocks/approval.js';
import { errorText } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Approval } from '../../store/approvals.js';
import { accessFor, workspaceOf } from '../commands/context.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

const STATUS_WORDS: Record<string, string> = {
  approved: 'already approved',
  denied: 'already denied',
  cancelled: 'cancelled by the requester',
  expired: 'expired',
};

/** The request, if it can still be decided; otherwise AppError saying what became of it. */
export async function pendingApproval(
  deps: AppDeps,
  workspaceId: string,
  id: string,
): Promise<Approval> {
  const approval = await deps.store.approvals.get(id);
  if (!approval || approval.workspaceId !== workspaceId)
    throw new AppError('invalid_input', 'That request is not known here.');
  if (approval.status === 'pending' && approval.expiresAt <= deps.clock.now()) {
    await deps.approvals.expireDue();
    throw new AppError('invalid_input', 'This request has expired.');
  }
  if (approval.status !== 'pending')
    throw new AppError('invalid_input', `This request was ${STATUS_WORDS[approval.status]}.`);
  return approval;
}

function button(
  deps: AppDeps,
  handle: (args: ButtonArgs, approval: Approval, workspaceId: string) => Promise<void>,
) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const workspaceId = workspaceOf(args.context, args.body);
    try {
      await handle(
        args,
        await pendingApproval(deps, workspaceId, args.action.value ?? ''),
        workspaceId,
      );
    } catch (error) {
      if (!(error instanceof AppError)) deps.logger.error({ err: error }, 'approval action failed');
      await args.respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: `:warning: ${errorText(error)}`,
      });
    }
  };
}

/** Approve… and Deny… open their modal, for an eligible person only. */
function opensDecision(deps: AppDeps, modal: (approval: Approval) => ModalView) {
  return button(deps, async ({ body, client }, approval, workspaceId) => {
    const workspace = await deps.store.workspaces.ensure(workspaceId);
    await accessFor({ client, workspaceId, deps }).requireApprover(
      workspace,
      approval.requesterId,
      body.user.id,
    );
    await client.views.open({ trigger_id: body.trigger_id, view: modal(approval) });
  });
}

export const approveButton = (deps: AppDeps) => opensDecision(deps, approveModal);
export const denyButton = (deps: AppDeps) => opensDecision(deps, denyModal);

export function cancelButton(deps: AppDeps) {
  return button(deps, async ({ body }, approval) => {
    if (body.user.id !== approval.requesterId) {
      throw new AppError('not_allowed', 'Only the person who asked can cancel this request.');
    }
    const decided = await deps.approvals.decide(approval.id, 'cancelled', { userId: body.user.id });
    if (!decided.won)
      throw new AppError(
        'invalid_input',
        `This request was ${STATUS_WORDS[decided.current?.status ?? ''] ?? 'already decided'}.`,
      );
    await deps.approvals.closed(decided.approval);
  });
}
