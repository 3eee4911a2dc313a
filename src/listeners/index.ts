// Every listener, surface by surface, behind the middleware every request goes through.
import type { App } from '@slack/bolt';
import type { AppDeps } from '../deps.js';
import type { GroupMembersCache } from '../slack/directory.js';
import * as actions from './actions/index.js';
import * as commands from './commands/index.js';
import { requestContext } from './context.js';
import { errorPolicy } from './error-policy.js';
import * as events from './events/index.js';
import * as functions from './functions/index.js';
import * as options from './options/index.js';
import { payloadGuard } from './payload-guard.js';
import { replayGuard } from './replay-guard.js';
import * as shortcuts from './shortcuts/index.js';
import * as views from './views/index.js';

export function registerListeners(
  app: App,
  deps: AppDeps,
  groups: GroupMembersCache,
  unhandledEvent: events.UnhandledEvent,
): void {
  // Order matters: hand-made payloads are dropped first; then every request gets its workspace
  // context, the error policy wraps everything after it, and a repeated delivery stops there.
  app.use(payloadGuard(deps.logger, deps.isSlackResponseUrl));
  app.use(requestContext(groups, deps.clients));
  app.use(errorPolicy(deps.logger));
  app.use(replayGuard(deps.replays, deps.logger));
  commands.register(app, deps);
  actions.register(app, deps);
  views.register(app, deps);
  options.register(app, deps);
  shortcuts.register(app, deps);
  functions.register(app, deps);
  events.register(app, deps, unhandledEvent);
}
