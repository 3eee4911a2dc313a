// *Zone traffic*: read now, and the step ends with the totals.
import type { AppDeps } from '../../deps.js';
import { RANGES, type RangeKey } from '../../services/analytics/analytics.js';
import { runStep, type StepArgs, textInput } from './step-run.js';

const isRange = (value: string): value is RangeKey => Object.hasOwn(RANGES, value);

export function trafficStep(deps: AppDeps) {
  return async (args: StepArgs) =>
    runStep(deps, args, async (caller, executionId) => {
      const window = textInput(args, 'window') ?? '24h';
      const outputs = await deps.workflowSteps.traffic(caller, {
        zone: textInput(args, 'zone') ?? '',
        window: isRange(window) ? window : '24h',
      });
      await deps.workflowSteps.finishNow(caller.workspaceId, executionId, { outputs });
    });
}
