// Slash commands: the one /cdn command, routed by the subcommand list in src/commands.
import type { App } from '@slack/bolt';
import { routeCommand } from '../../commands/router.js';
import type { AppDeps } from '../../deps.js';
import { tracked } from '../context.js';

export function register(app: App, deps: AppDeps): void {
  app.command('/cdn', tracked(routeCommand(deps)));
}
