// Buttons and other block actions.
import type { App } from '@slack/bolt';
import { APPROVAL_IDS, HOME_IDS, PURGE_IDS, ZONES_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { approveButton, cancelButton, denyButton } from './approval-buttons.js';
import { homeAnalytics, homeCreateZone, homeListZones, homeLogin } from './home-buttons.js';
import { homeStopReport } from './home-stop-report.js';
import { purgeRetry } from './purge-retry.js';
import { zoneAnalytics } from './zone-analytics.js';
import { zonesPage } from './zones-page.js';

export function register(app: App, deps: AppDeps): void {
  const pager = zonesPage(deps);
  app.action(ZONES_IDS.previous, pager);
  app.action(ZONES_IDS.next, pager);
  app.action(HOME_IDS.login, homeLogin(deps));
  app.action(HOME_IDS.listZones, homeListZones(deps));
  app.action(HOME_IDS.createZone, homeCreateZone(deps));
  app.action(HOME_IDS.analytics, homeAnalytics(deps));
  app.action(new RegExp(`^${HOME_IDS.stopReport}_\\d+$`), homeStopReport(deps));
  // One retry button per zone in a result message: purge_retry_0, purge_retry_1, …
  app.action(new RegExp(`^${PURGE_IDS.retry}_\\d+$`), purgeRetry(deps));
  app.action(new RegExp(`^${ZONES_IDS.analytics}_\\d+$`), zoneAnalytics(deps));
  app.action(APPROVAL_IDS.approve, approveButton(deps));
  app.action(APPROVAL_IDS.deny, denyButton(deps));
  app.action(APPROVAL_IDS.cancel, cancelButton(deps));
}
