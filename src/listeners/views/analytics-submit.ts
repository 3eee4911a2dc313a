// The App Home analytics form: the chart is drawn and posted after the form closes.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { errorMessage } from '../../blocks/errors.js';
import { ANALYTICS_IDS, ZONE_PICKER_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { defaultGranularity, RANGES, type RangeKey } from '../../services/analytics.js';
import { webDirectory } from '../../slack/directory.js';
import { postChart } from '../../slack/post-chart.js';
import { workspaceOf } from '../commands/context.js';

export function analyticsSubmit(deps: AppDeps) {
  return async ({
    ack,
    body,
    view,
    client,
    context,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const workspaceId = workspaceOf(context, body);
    const userId = body.user.id;
    const values = view.state.values;
    const zoneId =
      values[ANALYTICS_IDS.zoneBlock]?.[ZONE_PICKER_IDS.action]?.selected_option?.value;
    const picked =
      values[ANALYTICS_IDS.rangeBlock]?.[ANALYTICS_IDS.rangeInput]?.selected_option?.value ?? '24h';
    const range: RangeKey = picked in RANGES ? (picked as RangeKey) : '24h';
    const channelId =
      values[ANALYTICS_IDS.channelBlock]?.[ANALYTICS_IDS.channelInput]?.selected_conversation;
    if (!zoneId)
      return ack({
        response_action: 'errors',
        errors: { [ANALYTICS_IDS.zoneBlock]: 'Pick a zone.' },
      });
    if (!channelId)
      return ack({
        response_action: 'errors',
        errors: { [ANALYTICS_IDS.channelBlock]: 'Pick where to post.' },
      });
    await ack();
    try {
      const zone = await deps.zones.resolve(workspaceId, zoneId);
      const { timeZone } = await webDirectory(client, workspaceId, deps.groups).user(userId);
      const report = await deps.analytics.report(
        workspaceId,
        zone,
        { range, granularity: defaultGranularity(range) },
        timeZone,
      );
      const result = await postChart(client, channelId, report);
      if (!result.posted) await client.chat.postMessage({ channel: userId, text: result.text });
    } catch (error) {
      if (!(error instanceof AppError))
        deps.logger.warn({ err: error }, 'analytics from the App Home failed');
      await client.chat
        .postMessage({ channel: userId, ...errorMessage(error, 'drawing the chart') })
        .catch(() => undefined);
    }
  };
}
