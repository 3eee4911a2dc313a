// Options asked for a select this bot does not serve: an empty list, at once.
import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from '@slack/bolt';

export function unknownOptions() {
  return async ({ ack }: SlackOptionsMiddlewareArgs & AllMiddlewareArgs) => {
    await ack({ options: [] });
  };
}
