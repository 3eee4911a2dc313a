// StepCompletions over the Web API: a workflow step ends with functions.completeSuccess or
// functions.completeError, sent with the workspace's bot token (the methods take a bot token and
// need no scope: https://api.slack.com/methods/functions.completeSuccess), so a step waited on
// across a restart ends without the event's short-lived workflow token being kept anywhere.
import type { StepCompletions, StepOutputs } from '../services/workflows/workflow-steps.js';
import { slackErrorCode } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

/**
 * Slack's word that the execution is not one it still runs: ended already
 * (`execution_not_in_running_state`), or not known (`function_execution_not_found`), as the
 * methods' error lists say. Saying it again would change nothing.
 */
const GONE = new Set(['execution_not_in_running_state', 'function_execution_not_found']);

export class SlackStepCompletions implements StepCompletions {
  constructor(private readonly clients: WorkspaceClients) {}

  succeed(workspaceId: string, executionId: string, outputs: StepOutputs) {
    return this.#said(workspaceId, (token) =>
      this.clients.client.functions.completeSuccess({
        token,
        function_execution_id: executionId,
        outputs,
      }),
    );
  }

  fail(workspaceId: string, executionId: string, error: string) {
    return this.#said(workspaceId, (token) =>
      this.clients.client.functions.completeError({
        token,
        function_execution_id: executionId,
        error,
      }),
    );
  }

  async #said(
    workspaceId: string,
    call: (token: string) => Promise<unknown>,
  ): Promise<'ok' | 'gone'> {
    const token = await this.clients.tokenFor(workspaceId);
    try {
      await call(token);
      return 'ok';
    } catch (error) {
      const code = slackErrorCode(error);
      if (code !== undefined && GONE.has(code)) return 'gone';
      throw error;
    }
  }
}
