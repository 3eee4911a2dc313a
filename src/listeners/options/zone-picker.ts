// Options for every zone picker: type-ahead over the workspace's zone index (at most 100, best first).
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
      await ack({
        options: zoneOptions(await deps.zones.search(workspaceId, options.value ?? '', 100)),
      });
    } catch (error) {
      // No key, or the CDN down: an empty list, and the reason in the logs.
      deps.logger.warn({ err: error, workspaceId }, 'zone picker has no options');
      await ack({ options: [] });
    }
  };
}
