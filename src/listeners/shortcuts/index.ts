// Global and message shortcuts.
import type { App } from '@slack/bolt';
import { PURGE_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { tracked } from '../context.js';
import { unmatched } from '../unmatched.js';
import { purgeMessageShortcut } from './purge-message.js';
import { unknownShortcut } from './unknown.js';

export function register(app: App, deps: AppDeps): void {
  app.shortcut(
    { callback_id: PURGE_IDS.shortcut, type: 'message_action' },
    tracked(purgeMessageShortcut(deps)),
  );
  app.shortcut(
    { callback_id: unmatched([PURGE_IDS.shortcut]), type: 'message_action' },
    tracked(unknownShortcut(deps)),
  );
  // The bot offers no global shortcuts.
  app.shortcut({ callback_id: /.*/, type: 'shortcut' }, tracked(unknownShortcut(deps)));
}
