// The message shortcut "Purge URLs in this message": the purge form, prefilled with its URLs.
import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import { errorText, noticeModal } from '../../blocks/errors.js';
import { purgeFormModal } from '../../blocks/purge.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { planPurge, urlsInMessage } from '../../services/purge-targets.js';
import { encodeOrigin, requireOperatorIn } from '../commands/context.js';

export function purgeMessageShortcut(deps: AppDeps) {
  return async ({
    ack,
    shortcut,
    client,
    context,
  }: SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs) => {
    await ack();
    const workspaceId = context.teamId ?? shortcut.team?.id ?? '';
    const urls = urlsInMessage(`${shortcut.message.text ?? ''}`);
    let view: ReturnType<typeof purgeFormModal>;
    try {
      if (urls.length === 0)
        throw new AppError('invalid_input', 'That message has no http(s) URLs to purge.');
      await requireOperatorIn(
        { client, workspaceId, deps },
        shortcut.user.id,
        'purge cached content',
      );
      // Preselect the zone when every URL falls in one.
      const groups = planPurge({ urls, tags: [] }, await deps.zones.all(workspaceId)).groups;
      const zone = groups.length === 1 ? groups[0]?.zone : undefined;
      view = purgeFormModal({
        metadata: encodeOrigin({
          channelId: shortcut.channel.id,
          responseUrl: shortcut.response_url,
        }),
        items: urls,
        ...(zone ? { zone } : {}),
      });
    } catch (error) {
      if (!(error instanceof AppError)) deps.logger.warn({ err: error }, 'purge shortcut failed');
      view = noticeModal('Purge URLs', errorText(error));
    }
    await client.views.open({ trigger_id: shortcut.trigger_id, view });
  };
}
