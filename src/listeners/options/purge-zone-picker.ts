// Options for the purge form's zone picker: the zones of every CDN account the person may purge in
// from the form's channel, `<account>/<zone>` when several accounts are in play.
import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from '@slack/bolt';
import { purgeZoneOptions } from '../../blocks/zones.js';
import type { AppDeps } from '../../deps.js';
import { decodeOrigin } from '../commands/context.js';
import { callerOf } from '../context.js';

export function purgeZonePicker(deps: AppDeps) {
  return async ({
    ack,
    options,
    body,
    context,
  }: SlackOptionsMiddlewareArgs<'block_suggestion'> & AllMiddlewareArgs) => {
    const caller = callerOf(context);
    // The form's channel, from its private_metadata: a modal's block_suggestion carries its view
    // (docs.slack.dev/reference/interaction-payloads/block_suggestion-payload; Bolt's
    // BlockSuggestion.view).
    const { channelId } = decodeOrigin(body.view?.private_metadata, deps.isSlackResponseUrl);
    try {
      const { zones, labelled } = await deps.purgeForm.choices(
        caller,
        channelId,
        options.value ?? '',
        100,
      );
      await ack({ options: purgeZoneOptions(zones, labelled) });
    } catch (error) {
      // No key, the CDN down, or purges not the person's to run here: an empty list, and why.
      deps.logger.warn(
        { err: error, workspaceId: caller.workspaceId },
        'purge zone picker has no options',
      );
      await ack({ options: [] });
    }
  };
}
