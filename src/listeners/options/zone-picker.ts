// Options for every zone picker: type-ahead over the workspace's (briefly cached) zone list.
import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from '@slack/bolt';
import { truncate } from '../../blocks/text.js';
import type { AppDeps } from '../../deps.js';

export function zonePicker(deps: AppDeps) {
  return async ({
    ack,
    body,
    options,
    context,
  }: SlackOptionsMiddlewareArgs<'block_suggestion'> & AllMiddlewareArgs) => {
    const workspaceId = context.teamId ?? body.team?.id ?? '';
    try {
      const zones = await deps.zones.search(workspaceId, options.value ?? '', 100);
      await ack({
        options: zones.map((zone) => ({
          text: { type: 'plain_text', text: truncate(`${zone.name} (${zone.status})`, 75) },
          value: zone.id,
        })),
      });
    } catch (error) {
      // No key, or the CDN down: an empty list, and the reason in the logs.
      deps.logger.warn({ err: error, workspaceId }, 'zone picker has no options');
      await ack({ options: [] });
    }
  };
}
