// Modal submissions.
import type { App, Middleware, SlackViewAction, SlackViewMiddlewareArgs } from '@slack/bolt';
import {
  ACCOUNTS_IDS,
  ANALYTICS_IDS,
  APPROVAL_IDS,
  CREATE_IDS,
  FREEZE_IDS,
  LOGIN_IDS,
  PURGE_IDS,
  TOKENS_IDS,
} from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { tracked } from '../context.js';
import { unmatched } from '../unmatched.js';
import {
  accountAddSubmit,
  accountRekeySubmit,
  accountRemoveSubmit,
  accountRenameSubmit,
} from './account-submit.js';
import { analyticsSubmit } from './analytics-submit.js';
import { approveSubmit, denySubmit } from './approval-submit.js';
import { createSubmit } from './create-submit.js';
import { freezeAddSubmit } from './freeze-add-submit.js';
import { loginSubmit } from './login-submit.js';
import { purgeEverythingSubmit } from './purge-everything-submit.js';
import { purgeFormSubmit } from './purge-form-submit.js';
import { purgeHoldSubmit } from './purge-hold-submit.js';
import { tokensSubmit } from './tokens-submit.js';
import { unknownView } from './unknown.js';

export function register(app: App, deps: AppDeps): void {
  const handled: string[] = [];
  const on = <View extends SlackViewAction>(
    callbackId: string,
    listener: Middleware<SlackViewMiddlewareArgs<View>>,
  ) => {
    handled.push(callbackId);
    app.view<View>(callbackId, tracked(listener));
  };
  on(LOGIN_IDS.callback, loginSubmit(deps));
  on(CREATE_IDS.callback, createSubmit(deps));
  on(PURGE_IDS.formCallback, purgeFormSubmit(deps));
  on(PURGE_IDS.everythingCallback, purgeEverythingSubmit(deps));
  on(PURGE_IDS.holdCallback, purgeHoldSubmit(deps));
  on(ANALYTICS_IDS.callback, analyticsSubmit(deps));
  on(APPROVAL_IDS.approveCallback, approveSubmit(deps));
  on(APPROVAL_IDS.denyCallback, denySubmit(deps));
  on(ACCOUNTS_IDS.addCallback, accountAddSubmit(deps));
  on(ACCOUNTS_IDS.renameCallback, accountRenameSubmit(deps));
  on(ACCOUNTS_IDS.rekeyCallback, accountRekeySubmit(deps));
  on(ACCOUNTS_IDS.removeCallback, accountRemoveSubmit(deps));
  on(TOKENS_IDS.callback, tokensSubmit(deps));
  on(FREEZE_IDS.addCallback, freezeAddSubmit(deps));
  // Last, and only for what nothing above handles: Bolt runs every listener that matches.
  app.view(unmatched(handled), tracked(unknownView(deps)));
  // Slack sends view_closed only for a modal opened with notify_on_close (none is, today); left
  // unanswered it would wait out Slack's 3 s (a 404 over HTTP, no ack over Socket Mode).
  app.view({ type: 'view_closed', callback_id: /.*/ }, async ({ ack }) => ack());
}
