// Slash commands: the one /cdn command, routed by the subcommand list (registry.ts).
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { tracked } from '../context.js';
import { routeCommand } from './router.js';

export function register(app: App, deps: AppDeps): void {
  app.command('/cdn', tracked(routeCommand(deps)));
}
