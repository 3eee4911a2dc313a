// /cdn analytics <zone> [1h|6h|24h|7d|30d] [minute|hour|day]: the zone's traffic as a chart.
import { noticeMessage } from '../../blocks/errors.js';
import { parseAnalyticsArgs } from '../../services/analytics.js';
import { webDirectory } from '../../slack/directory.js';
import { postChart } from '../../slack/post-chart.js';
import type { SubcommandHandler } from './context.js';

export const analytics: SubcommandHandler = async ({
  args,
  deps,
  workspaceId,
  command,
  respond,
  client,
}) => {
  const parsed = parseAnalyticsArgs(args);
  if (!parsed.ok) {
    await respond(
      noticeMessage(
        `${parsed.problem} Usage: \`/cdn analytics <zone> [1h|6h|24h|7d|30d] [minute|hour|day]\``,
      ),
    );
    return;
  }
  const zone = await deps.zones.resolve(workspaceId, parsed.zone);
  // The chart is in the asker's time zone, as Slack knows it.
  const { timeZone } = await webDirectory(client, workspaceId, deps.groups).user(command.user_id);
  const report = await deps.analytics.report(workspaceId, zone, parsed, timeZone);
  const result = await postChart(client, command.channel_id, report);
  if (!result.posted)
    await respond({ response_type: 'in_channel', ...noticeMessage(result.text, '') });
};
