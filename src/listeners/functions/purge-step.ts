// *Purge URLs or tags*: the purge starts now; the step ends when it has (a job waits for it).
import type { AppDeps } from '../../deps.js';
import { runStep, type StepArgs, textInput } from './step-run.js';

export function purgeStep(deps: AppDeps) {
  return async (args: StepArgs) =>
    runStep(deps, args, async (caller, executionId) => {
      const zone = textInput(args, 'zone');
      await deps.workflowSteps.purge(caller, {
        executionId,
        channelId: textInput(args, 'channel_id') ?? '',
        items: textInput(args, 'items') ?? '',
        ...(zone ? { zone } : {}),
        ...((args.inputs as Record<string, unknown>).warm === true ? { warm: true } : {}),
      });
    });
}
