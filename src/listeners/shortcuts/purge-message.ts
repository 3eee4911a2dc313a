// The message shortcut "Purge URLs in this message": the purge form, prefilled with its URLs.
import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import { purgeFormModal } from '../../blocks/purge.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { httpUrlsIn, MAX_TEXT_LENGTH } from '../../text.js';
import { encodeOrigin } from '../commands/context.js';
import { callerOf } from '../context.js';

export function purgeMessageShortcut(deps: AppDeps) {
  return async ({
    ack,
    shortcut,
    client,
    context,
  }: SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs) => {
    await ack();
    const caller = callerOf(context);
    // The message's text is Slack-formatted: its links are `<https://…>` or `<https://…|label>`.
    const text = `${shortcut.message.text ?? ''}`;
    if (text.length > MAX_TEXT_LENGTH)
      throw new AppError({
        code: 'text_too_long',
        what: 'message',
        length: text.length,
        max: MAX_TEXT_LENGTH,
      });
    const urls = httpUrlsIn(text);
    if (urls.length === 0) throw new AppError({ code: 'no_urls_in_message' });
    const zone = await deps.purges.commonZone(caller, shortcut.channel.id, urls);
    await client.views.open({
      trigger_id: shortcut.trigger_id,
      view: purgeFormModal({
        metadata: encodeOrigin({
          channelId: shortcut.channel.id,
          responseUrl: shortcut.response_url,
        }),
        items: urls,
        ...(zone ? { zone } : {}),
      }),
    });
  };
}
