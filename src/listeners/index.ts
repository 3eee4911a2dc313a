// Every listener, surface by surface.
import type { App } from '@slack/bolt';
import type { AppDeps } from '../deps.js';
import * as actions from './actions/index.js';
import * as commands from './commands/index.js';
import * as events from './events/index.js';
import * as options from './options/index.js';
import { payloadGuard } from './payload-guard.js';
import * as shortcuts from './shortcuts/index.js';
import * as views from './views/index.js';

export function registerListeners(app: App, deps: AppDeps): void {
  app.use(payloadGuard(deps.logger));
  commands.register(app, deps);
  actions.register(app, deps);
  views.register(app, deps);
  options.register(app, deps);
  shortcuts.register(app, deps);
  events.register(app, deps);
}
