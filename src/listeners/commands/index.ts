// Slash commands: the one /cdn command.
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { cdnCommand } from './cdn.js';

export function register(app: App, deps: AppDeps): void {
  app.command('/cdn', cdnCommand(deps));
}
