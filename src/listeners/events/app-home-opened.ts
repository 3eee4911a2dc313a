// The App Home tab, rebuilt each time it is opened.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { homeView } from '../../blocks/home.js';
import type { AppDeps } from '../../deps.js';
import type { Caller } from '../../services/access/access.js';
import { HELP_ENTRIES } from '../commands/registry.js';
import { callerOf } from '../context.js';

export function appHomeOpened(deps: AppDeps) {
  return async ({
    event,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, callerOf(context));
  };
}

/**
 * Builds and publishes the caller's App Home (also after a change made from it): what they may
 * see and do, nothing more.
 */
export async function publishHome(deps: AppDeps, client: WebClient, caller: Caller): Promise<void> {
  const overview = await deps.activity.home(caller);
  const [channels, accounts] = overview.permissions.readRecords
    ? await Promise.all([deps.channels.overview(caller), deps.accounts.overview(caller)])
    : [undefined, undefined];
  // Admins manage the tokens of the HTTP API here too (setKey: the same admin check).
  const tokens = overview.permissions.setKey ? await deps.apiTokens.list(caller) : undefined;
  // The viewer's own scheduled purges; an admin's: all of them.
  const scheduled = await deps.scheduledPurges.forHome(caller);
  const freezes = overview.permissions.readRecords
    ? { listed: await deps.freezes.listed(caller.workspaceId), now: deps.clock.now() }
    : undefined;
  await client.views.publish({
    user_id: caller.userId,
    view: homeView({
      ...overview,
      commands: HELP_ENTRIES,
      ...(channels ? { channels } : {}),
      ...(accounts ? { accounts } : {}),
      ...(tokens ? { tokens } : {}),
      ...(freezes ? { freezes } : {}),
      scheduled,
    }),
  });
}
