// A shortcut this bot does not offer (a stale app configuration): acknowledged, nothing done.
import type { AllMiddlewareArgs, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';

export function unknownShortcut(deps: AppDeps) {
  return async ({ ack, shortcut }: SlackShortcutMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    deps.logger.info({ callbackId: shortcut.callback_id }, 'a shortcut no listener handles');
  };
}
