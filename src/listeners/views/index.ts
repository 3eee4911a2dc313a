// Modal submissions.
import type { App } from '@slack/bolt';
import { ANALYTICS_IDS, APPROVAL_IDS, CREATE_IDS, LOGIN_IDS, PURGE_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { analyticsSubmit } from './analytics-submit.js';
import { approveSubmit, denySubmit } from './approval-submit.js';
import { createSubmit } from './create-submit.js';
import { loginSubmit } from './login-submit.js';
import { purgeEverythingSubmit } from './purge-everything-submit.js';
import { purgeFormSubmit } from './purge-form-submit.js';

export function register(app: App, deps: AppDeps): void {
  app.view(LOGIN_IDS.callback, loginSubmit(deps));
  app.view(CREATE_IDS.callback, createSubmit(deps));
  app.view(PURGE_IDS.formCallback, purgeFormSubmit(deps));
  app.view(PURGE_IDS.everythingCallback, purgeEverythingSubmit(deps));
  app.view(ANALYTICS_IDS.callback, analyticsSubmit(deps));
  app.view(APPROVAL_IDS.approveCallback, approveSubmit(deps));
  app.view(APPROVAL_IDS.denyCallback, denySubmit(deps));
}
