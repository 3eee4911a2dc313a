// "Retry the N that failed": sends just the failed items of that purge again.
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { errorMessage } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { respondTarget } from '../../slack/message-target.js';
import { requireOperatorIn, workspaceOf } from '../commands/context.js';
import { runPurges } from '../purge-run.js';

export function purgeRetry(deps: AppDeps) {
  return async ({
    ack,
    action,
    body,
    respond,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const workspaceId = workspaceOf(context, body);
    const userId = body.user.id;
    try {
      await requireOperatorIn({ client, workspaceId, deps }, userId, 'purge cached content');
      const jobId = action.value ?? '';
      const group = await deps.purges.retryGroup(workspaceId, jobId);
      await deps.flood.take(workspaceId, userId);
      // A new message: the original stays as the record of what failed first.
      await runPurges(deps, workspaceId, [group], userId, respondTarget(respond, 'in_channel'), {
        retryOf: jobId,
      });
    } catch (error) {
      if (!(error instanceof AppError)) deps.logger.warn({ err: error }, 'purge retry failed');
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...errorMessage(error, 'retrying the purge'),
      });
    }
  };
}
