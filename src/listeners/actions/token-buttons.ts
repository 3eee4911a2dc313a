// "Create token" and "Revoke" next to the tokens of the HTTP API, in `/cdn tokens`' answer and on
// the App Home. Revoke was confirmed by Slack's dialog; it holds from the token's next request on.
import { tokenModal, tokensMessage } from '../../blocks/tokens.js';
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';
import { publishHome } from '../events/app-home-opened.js';

/**
 * Opens the creation form, for an admin only (anyone else is told why, not shown the form), with
 * the workspace's CDN accounts to choose from (none yet: told to set a key first).
 */
export function tokensCreate(deps: AppDeps, surface: 'message' | 'home') {
  return async ({ ack, body, client, context }: ButtonArgs) => {
    await ack();
    const choices = await deps.apiTokens.formChoices(callerOf(context));
    await client.views.open({ trigger_id: body.trigger_id, view: tokenModal(choices, surface) });
  };
}

/** Revokes the token, then shows the list again where the button was. */
export function tokensRevoke(deps: AppDeps, surface: 'message' | 'home') {
  return async ({ ack, action, respond, client, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    await deps.apiTokens.revoke(caller, action.value ?? '');
    if (surface === 'home') {
      await publishHome(deps, client, caller).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'App Home not refreshed'),
      );
      return;
    }
    await respond({ replace_original: true, ...tokensMessage(await deps.apiTokens.list(caller)) });
  };
}
