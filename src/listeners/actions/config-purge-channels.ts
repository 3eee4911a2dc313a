// The /cdn config message's channel picker: admins choose the only channels purges may be run
// from (none chosen: any channel); the message is redrawn with what was saved.
import type {
  AllMiddlewareArgs,
  BlockAction,
  MultiChannelsSelectAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { purgeChannelsSavedMessage } from '../../blocks/config.js';
import type { AppDeps } from '../../deps.js';
import { callerOf } from '../context.js';

type PickerArgs = SlackActionMiddlewareArgs<BlockAction<MultiChannelsSelectAction>> &
  AllMiddlewareArgs;

export function configPurgeChannels(deps: AppDeps) {
  return async ({ ack, action, respond, context }: PickerArgs) => {
    await ack();
    const caller = callerOf(context);
    const saved = await deps.channels.setPurgeChannels(caller, action.selected_channels ?? []);
    const workspace = await deps.config.get(caller.workspaceId);
    await respond({
      replace_original: true,
      ...purgeChannelsSavedMessage(workspace, saved),
    });
  };
}
