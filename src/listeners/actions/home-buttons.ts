// The App Home's quick actions: set the key, list zones, onboard a domain.
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { analyticsModal } from '../../blocks/analytics-modal.js';
import { createModal } from '../../blocks/create.js';
import { errorMessage, errorText, noticeModal } from '../../blocks/errors.js';
import { loginModal } from '../../blocks/login.js';
import { zonesMessage } from '../../blocks/zones.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { accessFor, encodeOrigin, requireOperatorIn, workspaceOf } from '../commands/context.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/** A modal-opening button: a refusal is shown in a modal too, since the Home has no conversation. */
function opensModal(
  deps: AppDeps,
  open: (args: ButtonArgs, workspaceId: string) => Promise<ModalView>,
) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const workspaceId = workspaceOf(args.context, args.body);
    let view: ModalView;
    try {
      view = await open(args, workspaceId);
    } catch (error) {
      if (!(error instanceof AppError)) deps.logger.error({ err: error }, 'home action failed');
      view = noticeModal('Not possible', errorText(error));
    }
    await args.client.views.open({ trigger_id: args.body.trigger_id, view });
  };
}

export function homeLogin(deps: AppDeps) {
  return opensModal(deps, async ({ body, client }, workspaceId) => {
    await accessFor({ client, workspaceId, deps }).requireAdmin(
      body.user.id,
      'set the CDN API key',
    );
    const workspace = await deps.store.workspaces.ensure(workspaceId);
    return loginModal({
      defaultBaseUrl: deps.defaultBaseUrl,
      currentBaseUrl: workspace.cdnBaseUrl,
      hasKey: (await deps.store.credentials.status(workspaceId)) !== undefined,
      metadata: encodeOrigin({}),
    });
  });
}

export function homeCreateZone(deps: AppDeps) {
  return opensModal(deps, async ({ body, client }, workspaceId) => {
    await requireOperatorIn({ client, workspaceId, deps }, body.user.id, 'onboard domains');
    return createModal(encodeOrigin({}));
  });
}

export function homeAnalytics(deps: AppDeps) {
  return opensModal(deps, async () => analyticsModal());
}

/** Posts the first page of zones to the user's DM with the bot, where its buttons work as usual. */
export function homeListZones(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const userId = args.body.user.id;
    let message: ReturnType<typeof zonesMessage>;
    try {
      message = zonesMessage(
        await deps.zones.page(workspaceOf(args.context, args.body), { page: 1 }),
      );
    } catch (error) {
      message = errorMessage(error, 'listing zones');
    }
    try {
      await args.client.chat.postMessage({ channel: userId, ...message });
    } catch (error) {
      // Direct messages with apps can be turned off for a workspace: say so where the user is.
      deps.logger.warn({ err: error }, 'zone list not sent as a DM');
      await args.client.views
        .open({
          trigger_id: args.body.trigger_id,
          view: noticeModal(
            'Not possible',
            "I couldn't send you the list as a direct message. Run `/cdn zones` in a channel instead.",
          ),
        })
        .catch((notice: unknown) => deps.logger.warn({ err: notice }, 'notice not shown'));
    }
  };
}
