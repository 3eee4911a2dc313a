// Options for every zone picker: type-ahead over the workspace's zone index (at most 100, best
// first), across its CDN accounts: `<account>/<zone>` when several are in play.
import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from '@slack/bolt';
import { zoneOptions } from '../../blocks/zones.js';
import type { AppDeps } from '../../deps.js';
import { callerOf } from '../context.js';

export function zonePicker(deps: AppDeps) {
  return async ({
    ack,
    options,
    context,
  }: SlackOptionsMiddlewareArgs<'block_suggestion'> & AllMiddlewareArgs) => {
    const { workspaceId } = callerOf(context);
    try {
      const { zones, labelled } = await deps.zoneChoices.search(
        workspaceId,
        undefined,
        options.value ?? '',
        100,
      );
      await ack({ options: zoneOptions(zones, labelled) });
    } catch (error) {
      // No key, or the CDN down: an empty list, and the reason in the logs.
      deps.logger.warn({ err: error, workspaceId }, 'zone picker has no options');
      await ack({ options: [] });
    }
  };
}
