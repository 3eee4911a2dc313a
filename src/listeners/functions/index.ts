// Workflow Builder steps (`function_executed`): one `app.function` listener per step.
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { fullPurgeStep } from './full-purge-step.js';
import { purgeStep } from './purge-step.js';
import { STEP_IDS } from './steps.js';
import { trafficStep } from './traffic-step.js';

export function register(app: App, deps: AppDeps): void {
  app.function(STEP_IDS.purge, purgeStep(deps));
  app.function(STEP_IDS.fullPurge, fullPurgeStep(deps));
  app.function(STEP_IDS.traffic, trafficStep(deps));
}
