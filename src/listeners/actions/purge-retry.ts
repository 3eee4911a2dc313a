// "Retry the N that failed": sends just the failed items of that purge again.
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { errorMessage } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { respondTarget } from '../../slack/message-target.js';
import { accessFor } from '../commands/context.js';
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
    const workspaceId = context.teamId ?? body.team?.id ?? body.user.team_id ?? '';
    const userId = body.user.id;
    try {
      const workspace = await deps.store.workspaces.ensure(workspaceId);
      await accessFor({ client, workspaceId, deps }).requireOperator(
        workspace,
        userId,
        'purge cached content',
      );
      const job = await deps.store.purges.get(action.value ?? '');
      if (!job || job.workspaceId !== workspaceId)
        throw new AppError('invalid_input', 'That purge is not known here.');
      if (job.failed.files.length + job.failed.tags.length === 0) {
        throw new AppError(
          'invalid_input',
          'Nothing failed in that purge: there is nothing to retry.',
        );
      }
      const zone = await deps.zones.resolve(workspaceId, job.zoneId);
      // A new message: the original stays as the record of what failed first.
      await runPurges(
        deps,
        workspaceId,
        [{ zone, files: job.failed.files, tags: job.failed.tags }],
        userId,
        respondTarget(respond, 'in_channel'),
        {
          retryOf: job.id,
        },
      );
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
