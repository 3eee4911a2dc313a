// Modal submissions.
import type { App } from '@slack/bolt';
import { CREATE_IDS, LOGIN_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { createSubmit } from './create-submit.js';
import { loginSubmit } from './login-submit.js';

export function register(app: App, deps: AppDeps): void {
  app.view(LOGIN_IDS.callback, loginSubmit(deps));
  app.view(CREATE_IDS.callback, createSubmit(deps));
}
