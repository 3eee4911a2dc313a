// What every step's listener shares: who it runs as, and how a refusal ends the step.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { plainText } from '../../blocks/text.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Caller } from '../../services/access/access.js';
import { explain } from '../../slack/explain.js';
import { callerOf } from '../context.js';

export type StepArgs = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;

/** A Slack user id, as a `slack#/types/user_id` input carries it. */
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The step's inputs, as strings (absent or empty: undefined). */
export function textInput(args: StepArgs, name: string): string | undefined {
  const value = (args.inputs as Record<string, unknown>)[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Runs a step for the person its `user_id` input names: the event names nobody, so the request's
 * caller is that person, checked as a command's would be. Anything thrown ends the step with its
 * sentence (functions.completeError), as the bot would have said it to them.
 */
export async function runStep(
  deps: AppDeps,
  args: StepArgs,
  run: (caller: Caller, executionId: string) => Promise<void>,
): Promise<void> {
  const executionId = args.event.function_execution_id;
  const workspaceId = callerOf(args.context).workspaceId;
  try {
    const userId = textInput(args, 'user_id');
    if (!userId || !USER_ID.test(userId))
      throw new AppError({ code: 'workflow_step_refused', items: ['user_id'] });
    await run({ ...callerOf(args.context), userId }, executionId);
  } catch (error) {
    const sentence = plainText(
      explain(deps.logger, error, `workflow step ${args.event.function.callback_id}`),
    );
    await deps.workflowSteps.finishNow(workspaceId, executionId, { error: sentence });
  }
}
