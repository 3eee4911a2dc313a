// The Stop button next to a daily report on the App Home.
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { errorText, noticeModal } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { requireOperatorIn, workspaceOf } from '../commands/context.js';
import { publishHome } from '../events/app-home-opened.js';

export function homeStopReport(deps: AppDeps) {
  return async ({
    ack,
    action,
    body,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const workspaceId = workspaceOf(context, body);
    const userId = body.user.id;
    try {
      await requireOperatorIn({ client, workspaceId, deps }, userId, 'manage daily reports');
      const schedule = await deps.store.schedules.get(action.value ?? '');
      if (
        !schedule ||
        schedule.workspaceId !== workspaceId ||
        !(await deps.store.schedules.stop(schedule.id, workspaceId))
      ) {
        throw new AppError('invalid_input', 'That report is already stopped.');
      }
      await deps.store.audit.record({
        workspaceId,
        actorId: userId,
        action: 'report.stopped',
        zoneId: schedule.zoneId,
        zoneName: schedule.zoneName,
        outcome: 'ok',
        detail: { schedule: schedule.id },
      });
    } catch (error) {
      if (!(error instanceof AppError))
        deps.logger.warn({ err: error }, 'stopping a report failed');
      await client.views.open({
        trigger_id: body.trigger_id,
        view: noticeModal('Not possible', errorText(error)),
      });
    }
    // The refresh is a courtesy: the report is stopped (or not) whatever it does.
    await publishHome(deps, client, workspaceId, userId).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'App Home not refreshed'),
    );
  };
}
