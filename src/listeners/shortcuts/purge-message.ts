// The message shortcut "Purge URLs in this message": the purge form, prefilled with its URLs; or,
// when their zone's name is in several CDN accounts, first the question of which account.
import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import { accountPickMessage } from '../../blocks/account-pick.js';
import { purgeFormModal } from '../../blocks/purge.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { urlsInMessage } from '../../services/purge/message-urls.js';
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
    // Its text, blocks and attachments: an integration's message says it all in the latter two.
    const urls = urlsInMessage(shortcut.message);
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
