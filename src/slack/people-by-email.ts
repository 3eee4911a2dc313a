// Who an e-mail address is in a workspace (users.lookupByEmail, scope `users:read.email`): the CI's
// `context.actor` of a purge of everything, who may then not approve it.
import type { PeopleByEmail } from '../services/api/api-purge-approval.js';
import type { FallbackLog } from './message-target.js';
import { slackErrorCode } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

/**
 * Slack's answers that mean it cannot be asked here (an install from before the scope was added,
 * an org policy): the request goes on, and its message says the actor could not be looked up.
 * (slackapi/slack-api-specs web-api/slack_web_openapi_v2.json, /users.lookupByEmail's errors;
 * `missing_scope` is every method's answer to a token without the scope.)
 */
const CANNOT_ASK = ['missing_scope', 'enterprise_is_restricted', 'no_permission'];

export class SlackPeopleByEmail implements PeopleByEmail {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly log: FallbackLog,
  ) {}

  async userIdByEmail(
    workspaceId: string,
    email: string,
  ): Promise<string | 'not_found' | 'unchecked'> {
    try {
      const token = await this.clients.tokenFor(workspaceId);
      const result = await this.clients.client.users.lookupByEmail({ token, email });
      return result.user?.id ?? 'not_found';
    } catch (error) {
      const code = slackErrorCode(error);
      if (code === 'users_not_found') return 'not_found';
      if (code !== undefined && CANNOT_ASK.includes(code)) {
        this.log.info({ reason: code }, 'users.lookupByEmail refused: the actor is not mapped');
        return 'unchecked';
      }
      // Slack down or slow: the request is refused (503) rather than run unchecked.
      throw error;
    }
  }
}
