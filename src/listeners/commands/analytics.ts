// /cdn analytics [zone] [1h|6h|24h|7d|30d] [minute|5min|hour|day]: the zone's traffic as a chart; no
// zone named, the channel's default.
import { noticeMessage } from '../../blocks/errors.js';
import { problemText } from '../../blocks/problems.js';
import { md } from '../../blocks/text.js';
import { parseAnalyticsArgs } from '../../services/analytics/analytics.js';
import { postChart } from '../../slack/post-chart.js';
import { accountWords } from './account-words.js';
import type { SubcommandHandler } from './context.js';

const USAGE = 'Usage: `/cdn analytics [zone] [1h|6h|24h|7d|30d] [minute|5min|hour|day]`';

export const analytics: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond, client } = context;
  const { args, account } = accountWords(context);
  const parsed = parseAnalyticsArgs(args);
  if (!parsed.ok) {
    const problem = parsed.problem ? md`${problemText(parsed.problem)} ` : 'Name a zone. ';
    await respond(noticeMessage(md`${problem}${USAGE}`));
    return;
  }
  const report = await deps.analytics.forCaller(caller, {
    ...parsed,
    // A zone named is found in its account; none, the channel's default.
    zone:
      parsed.zone ??
      (() => deps.channels.choose(caller.workspaceId, command.channel_id, undefined, 'analytics')),
    where: { channelId: command.channel_id, ...(account === undefined ? {} : { account }) },
  });
  const result = await postChart(client, command.channel_id, report);
  if (!result.posted)
    await respond({ response_type: 'in_channel', ...noticeMessage(result.text, '') });
};
