// Buttons and other block actions.
import type { App, Middleware, SlackAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { APPROVAL_IDS, HOME_IDS, PURGE_IDS, ZONES_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { unmatched } from '../unmatched.js';
import { approveButton, cancelButton, denyButton } from './approval-buttons.js';
import { homeAnalytics, homeCreateZone, homeListZones, homeLogin } from './home-buttons.js';
import { homeStopReport } from './home-stop-report.js';
import { purgeRetry } from './purge-retry.js';
import { unknownAction } from './unknown.js';
import { zoneAnalytics } from './zone-analytics.js';
import { zonesPage } from './zones-page.js';

export function register(app: App, deps: AppDeps): void {
  const handled: Array<string | RegExp> = [];
  const on = <Action extends SlackAction>(
    id: string | RegExp,
    listener: Middleware<SlackActionMiddlewareArgs<Action>>,
  ) => {
    handled.push(id);
    app.action<Action>(id, listener);
  };
  const pager = zonesPage(deps);
  on(ZONES_IDS.previous, pager);
  on(ZONES_IDS.next, pager);
  on(HOME_IDS.login, homeLogin(deps));
  on(HOME_IDS.listZones, homeListZones(deps));
  on(HOME_IDS.createZone, homeCreateZone(deps));
  on(HOME_IDS.analytics, homeAnalytics(deps));
  on(new RegExp(`^${HOME_IDS.stopReport}_\\d+$`), homeStopReport(deps));
  // One retry button per zone in a result message: purge_retry_0, purge_retry_1, …
  on(new RegExp(`^${PURGE_IDS.retry}_\\d+$`), purgeRetry(deps));
  on(new RegExp(`^${ZONES_IDS.analytics}_\\d+$`), zoneAnalytics(deps));
  on(APPROVAL_IDS.approve, approveButton(deps));
  on(APPROVAL_IDS.deny, denyButton(deps));
  on(APPROVAL_IDS.cancel, cancelButton(deps));
  // Last, and only for what nothing above handles: Bolt runs every listener that matches.
  app.action(unmatched(handled), unknownAction(deps));
}
