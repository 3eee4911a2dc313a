// The message shortcut "Purge URLs in this message": the purge form, prefilled with its URLs; or,
// when their zone's name is in several CDN accounts, first the question of which account.
import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import { accountPickMessage } from '../../blocks/account-pick.js';
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
    respond,
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
    // Their zone's name in several CDN accounts: which one, asked as `/cdn purge <url>` asks.
    const start = await deps.purgeForm.forMessage(caller, shortcut.channel.id, urls);
    if (start.kind === 'pick') {
      await respond(accountPickMessage(start.pick));
      return;
    }
    const { zone, labelled } = start;
    await client.views.open({
      trigger_id: shortcut.trigger_id,
      view: purgeFormModal({
        metadata: encodeOrigin({
          channelId: shortcut.channel.id,
          responseUrl: shortcut.response_url,
        }),
        items: urls,
        labelled,
        ...(zone ? { zone } : {}),
      }),
    });
  };
}
