// The App Home tab, rebuilt each time it is opened.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { homeView } from '../../blocks/home.js';
import type { AppDeps } from '../../deps.js';
import { HELP_ENTRIES } from '../commands/registry.js';
import { callerOf } from '../context.js';

export function appHomeOpened(deps: AppDeps) {
  return async ({
    event,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, callerOf(context).workspaceId, event.user);
  };
}

/** Builds and publishes a user's App Home (also after a change made from it). */
export async function publishHome(
  deps: AppDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
): Promise<void> {
  const [overview, channels] = await Promise.all([
    deps.activity.home(workspaceId),
    deps.channels.overview(workspaceId),
  ]);
  await client.views.publish({
    user_id: userId,
    view: homeView({ ...overview, commands: HELP_ENTRIES, channels }),
  });
}
