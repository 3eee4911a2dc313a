// *Request a full purge*: the request is posted now; the step ends once it is decided and done.
import type { AppDeps } from '../../deps.js';
import { runStep, type StepArgs, textInput } from './step-run.js';

export function fullPurgeStep(deps: AppDeps) {
  return async (args: StepArgs) =>
    runStep(deps, args, async (caller, executionId) => {
      await deps.workflowSteps.requestFullPurge(caller, {
        executionId,
        channelId: textInput(args, 'channel_id') ?? '',
        zone: textInput(args, 'zone') ?? '',
        reason: textInput(args, 'reason') ?? '',
      });
    });
}
