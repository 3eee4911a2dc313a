// A click on a button this version of the bot has no listener for (a message from an older
// version, or a hand-made payload): acknowledged at once, and the user told what to do.
import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import { noticeMessage } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';

export function unknownAction(deps: AppDeps) {
  return async ({ ack, body, respond }: SlackActionMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    deps.logger.info({ type: body.type }, 'an action no listener handles');
    if ('response_url' in body && body.response_url) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...noticeMessage('That button is out of date. Run the command again for a fresh one.'),
      }).catch((error: unknown) => deps.logger.warn({ err: error }, 'notice not posted'));
    }
  };
}
