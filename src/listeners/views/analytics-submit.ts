// The App Home analytics form: the chart is drawn and posted after the form closes, only in a
// conversation the requester is in.
import { ANALYTICS_IDS, ZONE_PICKER_IDS } from '../../blocks/ids.js';
import { problemText } from '../../blocks/problems.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { pickedZone } from '../../services/accounts/account-lookup.js';
import { defaultGranularity, RANGES, type RangeKey } from '../../services/analytics/analytics.js';
import { postChart } from '../../slack/post-chart.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function analyticsSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    // `<account>/<zone id>` for a zone of a named CDN account, else the id alone.
    const zoneValue =
      values[ANALYTICS_IDS.zoneBlock]?.[ZONE_PICKER_IDS.action]?.selected_option?.value;
    const picked =
      values[ANALYTICS_IDS.rangeBlock]?.[ANALYTICS_IDS.rangeInput]?.selected_option?.value ?? '24h';
    const range: RangeKey = picked in RANGES ? (picked as RangeKey) : '24h';
    const channelId =
      values[ANALYTICS_IDS.channelBlock]?.[ANALYTICS_IDS.channelInput]?.selected_conversation;
    if (!zoneValue)
      return ack({
        response_action: 'errors',
        errors: { [ANALYTICS_IDS.zoneBlock]: 'Pick a zone.' },
      });
    if (!channelId)
      return ack({
        response_action: 'errors',
        errors: { [ANALYTICS_IDS.channelBlock]: 'Pick where to post.' },
      });
    // Checked here, by the server: a submission can name any conversation.
    try {
      await deps.access.requireInConversation(caller, channelId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return ack({
        response_action: 'errors',
        errors: { [ANALYTICS_IDS.channelBlock]: problemText(error.problem).text },
      });
    }
    await ack();
    // After the ack, a failure reaches the user as a DM (the error policy).
    const { zoneId, account } = pickedZone(zoneValue);
    const report = await deps.analytics.forCaller(caller, {
      zone: zoneId,
      ...(account === undefined ? {} : { where: { account } }),
      range,
      granularity: defaultGranularity(range),
    });
    const result = await postChart(client, channelId, report);
    if (!result.posted)
      await client.chat.postMessage({ channel: caller.userId, text: result.text.text });
  };
}
