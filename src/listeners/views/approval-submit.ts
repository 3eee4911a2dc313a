// The approve and deny modals: the one submission that wins the request decides it.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { errorText, noticeModal } from '../../blocks/errors.js';
import { APPROVAL_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { pendingApproval } from '../actions/approval-buttons.js';
import { accessFor, workspaceOf } from '../commands/context.js';

type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** Re-checks the request and the person (the modal may have stayed open a while). */
async function eligible(deps: AppDeps, args: SubmitArgs) {
  const workspaceId = workspaceOf(args.context, args.body);
  const approval = await pendingApproval(deps, workspaceId, args.view.private_metadata);
  const workspace = await deps.store.workspaces.ensure(workspaceId);
  await accessFor({ client: args.client, workspaceId, deps }).requireApprover(
    workspace,
    approval.requesterId,
    args.body.user.id,
  );
  return approval;
}

async function refuse(deps: AppDeps, args: SubmitArgs, error: unknown): Promise<void> {
  if (!(error instanceof AppError)) deps.logger.error({ err: error }, 'approval decision failed');
  await args.ack({
    response_action: 'update',
    view: noticeModal('Not possible', errorText(error)),
  });
}

export function approveSubmit(deps: AppDeps) {
  return async (args: SubmitArgs) => {
    try {
      const approval = await eligible(deps, args);
      const decided = await deps.approvals.decide(approval.id, 'approved', {
        userId: args.body.user.id,
      });
      if (!decided.won)
        throw new AppError('invalid_input', 'Someone else decided this request a moment ago.');
      await args.ack();
      await deps.approvals.execute(decided.approval);
    } catch (error) {
      await refuse(deps, args, error);
    }
  };
}

export function denySubmit(deps: AppDeps) {
  return async (args: SubmitArgs) => {
    const reason = (
      args.view.state.values[APPROVAL_IDS.denyReasonBlock]?.[APPROVAL_IDS.denyReasonInput]?.value ??
      ''
    ).trim();
    if (reason === '') {
      await args.ack({
        response_action: 'errors',
        errors: { [APPROVAL_IDS.denyReasonBlock]: 'Say why: the requester will read it.' },
      });
      return;
    }
    try {
      const approval = await eligible(deps, args);
      const decided = await deps.approvals.decide(approval.id, 'denied', {
        userId: args.body.user.id,
        note: reason,
      });
      if (!decided.won)
        throw new AppError('invalid_input', 'Someone else decided this request a moment ago.');
      await args.ack();
      await deps.approvals.closed(decided.approval);
    } catch (error) {
      await refuse(deps, args, error);
    }
  };
}
