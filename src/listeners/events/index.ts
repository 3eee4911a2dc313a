// Events API subscriptions.
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { appHomeOpened } from './app-home-opened.js';
import { appUninstalled, tokensRevoked } from './revoked.js';

export function register(app: App, deps: AppDeps): void {
  app.event('app_home_opened', appHomeOpened(deps));
  app.event('app_uninstalled', appUninstalled(deps));
  app.event('tokens_revoked', tokensRevoked(deps));
}
