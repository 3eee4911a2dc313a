// The Analytics button next to each zone of a zone list: the last 24 h, in the same conversation.
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { errorMessage, noticeMessage } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { defaultGranularity } from '../../services/analytics.js';
import { webDirectory } from '../../slack/directory.js';
import { postChart } from '../../slack/post-chart.js';
import { workspaceOf } from '../commands/context.js';

export function zoneAnalytics(deps: AppDeps) {
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
    const channelId = body.channel?.id ?? body.container?.channel_id;
    try {
      if (!channelId)
        throw new AppError('invalid_input', 'Ask from a conversation: `/cdn analytics <zone>`.');
      const zone = await deps.zones.resolve(workspaceId, action.value ?? '');
      const { timeZone } = await webDirectory(client, workspaceId, deps.groups).user(body.user.id);
      const report = await deps.analytics.report(
        workspaceId,
        zone,
        { range: '24h', granularity: defaultGranularity('24h') },
        timeZone,
      );
      const result = await postChart(client, channelId, report);
      if (!result.posted)
        await respond({
          replace_original: false,
          response_type: 'ephemeral',
          ...noticeMessage(result.text, ''),
        });
    } catch (error) {
      if (!(error instanceof AppError)) deps.logger.warn({ err: error }, 'zone analytics failed');
      await respond({
        replace_original: false,
        response_type: 'ephemeral',
        ...errorMessage(error, 'drawing the chart'),
      });
    }
  };
}
