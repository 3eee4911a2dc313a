// A submission of a modal this version of the bot does not know: the modal says so, at once.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { noticeModal } from '../../blocks/errors.js';
import type { AppDeps } from '../../deps.js';

export function unknownView(deps: AppDeps) {
  return async ({ ack, body }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    deps.logger.info({ type: body.type }, 'a view no listener handles');
    if (body.type !== 'view_submission') return ack();
    await ack({
      response_action: 'update',
      view: noticeModal(
        'Out of date',
        'This form is from an older version of the bot. Close it and start again.',
      ),
    });
  };
}
