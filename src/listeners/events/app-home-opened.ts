// The App Home tab, rebuilt each time it is opened.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { homeView } from '../../blocks/home.js';
import type { AppDeps } from '../../deps.js';

export function appHomeOpened(deps: AppDeps) {
  return async ({
    event,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, context.teamId ?? '', event.user);
  };
}

/** Builds and publishes a user's App Home (also after a change made from it). */
export async function publishHome(
  deps: AppDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
): Promise<void> {
  const [key, workspace, recent, schedules] = await Promise.all([
    deps.store.credentials.status(workspaceId),
    deps.store.workspaces.get(workspaceId),
    deps.store.audit.recent(workspaceId, { limit: 10 }),
    deps.store.schedules.listForWorkspace(workspaceId),
  ]);
  await client.views.publish({
    user_id: userId,
    view: homeView({
      key,
      baseUrl: workspace?.cdnBaseUrl ?? deps.defaultBaseUrl,
      recent,
      schedules,
    }),
  });
}
