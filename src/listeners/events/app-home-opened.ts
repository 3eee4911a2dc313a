// The App Home tab, rebuilt each time it is opened.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { homeView } from '../../blocks/home.js';
import type { AppDeps } from '../../deps.js';

export function appHomeOpened(deps: AppDeps) {
  return async ({
    event,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    const workspaceId = context.teamId ?? '';
    const [key, workspace, recent, schedules] = await Promise.all([
      deps.store.credentials.status(workspaceId),
      deps.store.workspaces.get(workspaceId),
      deps.store.audit.recent(workspaceId, { limit: 10 }),
      deps.store.schedules.listForWorkspace(workspaceId),
    ]);
    await client.views.publish({
      user_id: event.user,
      view: homeView({
        key,
        baseUrl: workspace?.cdnBaseUrl ?? deps.defaultBaseUrl,
        recent,
        schedules,
      }),
    });
  };
}
