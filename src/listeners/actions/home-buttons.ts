// The App Home's quick actions: set the key, list zones, onboard a domain, chart a zone.
// Refusals are the error policy's: on the Home they are shown in a small modal.
import type { ModalView } from '@slack/types';
import { analyticsModal } from '../../blocks/analytics-modal.js';
import { createModal } from '../../blocks/create.js';
import { loginModal } from '../../blocks/login.js';
import { zonesMessage } from '../../blocks/zones.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Caller } from '../../services/access/access.js';
import { encodeOrigin } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

/** A button that opens the modal `open` builds for the caller. */
function opensModal(open: (caller: Caller) => Promise<ModalView>) {
  return async ({ ack, body, client, context }: ButtonArgs) => {
    await ack();
    const view = await open(callerOf(context));
    await client.views.open({ trigger_id: body.trigger_id, view });
  };
}

export const homeLogin = (deps: AppDeps) =>
  opensModal(async (caller) =>
    loginModal({ ...(await deps.config.keyForm(caller)), metadata: encodeOrigin({}) }),
  );

export const homeCreateZone = (deps: AppDeps) =>
  opensModal(async (caller) => {
    // The form creates in the workspace's only account (several: named by command),
    // for its operators only.
    const { account } = await deps.accountScopes.forCreate(caller, {});
    return createModal(encodeOrigin(account ? { accountId: account.id } : {}));
  });

export const homeAnalytics = () => opensModal(async () => analyticsModal());

/** Posts the first page of zones to the user's DM with the bot, where its buttons work as usual. */
export function homeListZones(deps: AppDeps) {
  return async ({ ack, client, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    // The workspace's only account (several: named by command).
    const message = zonesMessage(await deps.accountScopes.page(caller, {}, { page: 1 }));
    await client.chat
      .postMessage({ channel: caller.userId, ...message })
      .catch((error: unknown) => {
        throw new AppError({ code: 'dm_refused' }, { cause: error });
      });
  };
}
