// Workflow Builder's custom steps as Slack runs them: an execution started by a workflow (the
// `function_executed` event, its workflow token) and ended once by functions.completeSuccess or
// functions.completeError. Shapes and errors from Slack's own pages, cited at each.
import { randomBytes } from 'node:crypto';
import type { Args } from './types.js';

export interface FunctionExecution {
  id: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The workflow token Slack sent with the event (`bot_access_token`). */
  token: string;
  state: 'running' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: string;
}

/**
 * The executions of the app's steps. completeSuccess / completeError take `function_execution_id`
 * and `outputs` (an object) or `error` (a string); an id Slack does not know is
 * `function_execution_not_found`, one already ended `execution_not_in_running_state` (the
 * method's errors: "execution_not_in_running_state: The function execution is no longer in a
 * state to be completed", "function_execution_not_found"; docs/methods/functions.completeSuccess.json
 * as the Slack method docs list them, e.g. hex.pm slack_kit priv/docs/methods; and
 * https://api.slack.com/methods/functions.completeSuccess: bot tokens, no scope required).
 */
export class FunctionExecutions {
  readonly executions = new Map<string, FunctionExecution>();

  /**
   * A new execution of the step `callbackId` and the event Slack sends for it (its fields as in
   * https://docs.slack.dev/reference/events/function_executed/: `function` with its callback_id,
   * `inputs`, `function_execution_id` "Fx…", `workflow_execution_id` "Wx…", `event_ts`, and
   * `bot_access_token`, a token for this execution).
   */
  start(
    callbackId: string,
    inputs: Record<string, unknown>,
    appId: string,
  ): { execution: FunctionExecution; event: Record<string, unknown> } {
    const id = `Fx${randomBytes(5).toString('hex').toUpperCase()}`;
    const token = `xwfp-${randomBytes(12).toString('hex')}`;
    const execution: FunctionExecution = { id, callbackId, inputs, token, state: 'running' };
    this.executions.set(id, execution);
    const event = {
      type: 'function_executed',
      function: {
        id: `Fn${randomBytes(5).toString('hex').toUpperCase()}`,
        callback_id: callbackId,
        title: callbackId,
        type: 'app',
        app_id: appId,
        input_parameters: [],
        output_parameters: [],
      },
      inputs,
      function_execution_id: id,
      workflow_execution_id: `Wx${randomBytes(5).toString('hex').toUpperCase()}`,
      event_ts: `${(Date.now() / 1000).toFixed(6)}`,
      bot_access_token: token,
    };
    return { execution, event };
  }

  completeSuccess(args: Args): Args {
    const outputs = args.outputs;
    const parsed =
      typeof outputs === 'string' ? (JSON.parse(outputs) as unknown) : (outputs as unknown);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return { ok: false, error: 'invalid_arguments' };
    return this.#end(args, (execution) => {
      execution.state = 'completed';
      execution.outputs = parsed as Record<string, unknown>;
    });
  }

  completeError(args: Args): Args {
    if (typeof args.error !== 'string') return { ok: false, error: 'invalid_arguments' };
    const error = args.error;
    return this.#end(args, (execution) => {
      execution.state = 'failed';
      execution.error = error;
    });
  }

  #end(args: Args, end: (execution: FunctionExecution) => void): Args {
    const execution = this.executions.get(String(args.function_execution_id ?? ''));
    if (!execution) return { ok: false, error: 'function_execution_not_found' };
    if (execution.state !== 'running')
      return { ok: false, error: 'execution_not_in_running_state' };
    end(execution);
    return { ok: true };
  }
}
