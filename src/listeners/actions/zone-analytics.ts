// The Analytics button next to each zone of a zone list: the last 24 h, in the same conversation.
import { noticeMessage } from '../../blocks/errors.js';
import { readAccount } from '../../commands/parse.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { defaultGranularity } from '../../services/analytics/analytics.js';
import { postChart } from '../../slack/post-chart.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function zoneAnalytics(deps: AppDeps) {
  return async ({ ack, action, body, respond, client, context }: ButtonArgs) => {
    await ack();
    const channelId = body.channel?.id ?? body.container?.channel_id;
    if (!channelId) throw new AppError({ code: 'no_conversation' });
    // `<account>/<zone id>` from a list of several accounts' workspace; else the zone id alone.
    const { args, account } = readAccount([action.value ?? '']);
    const report = await deps.analytics.forCaller(callerOf(context), {
      zone: args[0] ?? '',
      where: { channelId, ...(account === undefined ? {} : { account }) },
      range: '24h',
      granularity: defaultGranularity('24h'),
    });
    const result = await postChart(client, channelId, report);
    if (!result.posted)
      await respond({
        replace_original: false,
        response_type: 'ephemeral',
        ...noticeMessage(result.text, ''),
      });
  };
}
