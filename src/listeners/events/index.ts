// Events API subscriptions.
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { unmatched } from '../unmatched.js';
import { appHomeOpened } from './app-home-opened.js';
import { appUninstalled, tokensRevoked } from './revoked.js';

/** Told of an event of a type no listener handles (logged and counted by the app). */
export type UnhandledEvent = (type: string) => void;

export function register(app: App, deps: AppDeps, unhandled: UnhandledEvent): void {
  app.event('app_home_opened', appHomeOpened(deps));
  app.event('app_uninstalled', appUninstalled(deps));
  app.event('tokens_revoked', tokensRevoked(deps));
  // An event the manifest no longer subscribes to (a stale app configuration), or one Slack sends
  // unasked: Bolt has acknowledged it; it is only logged and counted.
  app.event(
    unmatched(['app_home_opened', 'app_uninstalled', 'tokens_revoked']),
    async ({ event }) => unhandled(event.type),
  );
}
