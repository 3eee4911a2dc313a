// Options for external selects.
import type { App } from '@slack/bolt';
import { ZONE_PICKER_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { tracked } from '../context.js';
import { unmatched } from '../unmatched.js';
import { purgeZonePicker } from './purge-zone-picker.js';
import { unknownOptions } from './unknown.js';
import { zonePicker } from './zone-picker.js';

export function register(app: App, deps: AppDeps): void {
  app.options({ action_id: ZONE_PICKER_IDS.action }, tracked(zonePicker(deps)));
  app.options({ action_id: ZONE_PICKER_IDS.purge }, tracked(purgeZonePicker(deps)));
  app.options(
    { action_id: unmatched([ZONE_PICKER_IDS.action, ZONE_PICKER_IDS.purge]) },
    tracked(unknownOptions()),
  );
}
