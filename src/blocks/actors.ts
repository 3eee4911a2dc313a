// Who did something, as a message names them: a person (a mention), a CI token of the HTTP API
// (never a mention: `<@token:…>` would be a broken one), or the bot itself.
import { TOKEN_ACTOR_PREFIX } from '../audit-kinds.js';
import type { ApiRequester, Approval } from '../store/approvals.js';
import { type Mrkdwn, md, user } from './text.js';

/** An actor id (`U…`, `token:<name>`, `system`) as words. */
export function actorLabel(id: string): Mrkdwn {
  if (id === 'system') return md`_automatic_`;
  if (id.startsWith(TOKEN_ACTOR_PREFIX))
    return md`CI token *${id.slice(TOKEN_ACTOR_PREFIX.length)}*`;
  return user(id);
}

/** A token and the actor its CI named: "CI token *deploy-bot* (actor: alice)". */
export function tokenLabel(tokenName: string, actor?: string): Mrkdwn {
  return actor === undefined || actor === ''
    ? md`CI token *${tokenName}*`
    : md`CI token *${tokenName}* (actor: ${actor})`;
}

/** Who asked for an approval: the person, or the token with its CI's actor. */
export function requesterLabel(approval: Pick<Approval, 'requesterId' | 'api'>): Mrkdwn {
  return approval.api
    ? tokenLabel(approval.api.tokenName, approval.api.actor)
    : actorLabel(approval.requesterId);
}

/** Whether the CI's actor was found to be a Slack user, said beside an API request. */
export function actorMappingNote(api: ApiRequester): Mrkdwn {
  if (api.actor === undefined)
    return md`The CI named no actor: anyone who may approve may approve this.`;
  if (api.actorUserId !== undefined)
    return md`${api.actor} is ${user(api.actorUserId)} (by e-mail), who cannot approve their own request.`;
  switch (api.unmapped) {
    case 'not_email':
      return md`The actor is not an e-mail address, so no Slack user is matched to it: anyone who may approve may approve this.`;
    case 'not_found':
      return md`No Slack user in this workspace has the actor's e-mail address: anyone who may approve may approve this.`;
    default:
      return md`Slack could not be asked who the actor is (e-mail lookup unavailable): anyone who may approve may approve this.`;
  }
}
