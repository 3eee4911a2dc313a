// Buttons and other block actions.
import type { App } from '@slack/bolt';
import { HOME_IDS, ZONES_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { homeCreateZone, homeListZones, homeLogin } from './home-buttons.js';
import { zonesPage } from './zones-page.js';

export function register(app: App, deps: AppDeps): void {
  const pager = zonesPage(deps);
  app.action(ZONES_IDS.previous, pager);
  app.action(ZONES_IDS.next, pager);
  app.action(HOME_IDS.login, homeLogin(deps));
  app.action(HOME_IDS.listZones, homeListZones(deps));
  app.action(HOME_IDS.createZone, homeCreateZone(deps));
}
