// A purge of everything asked over the API: its approval request, posted in the token's channel
// or one that has the zone as its default, naming the token and the CI's actor (the Slack user
// with that e-mail address, when there is one).
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { ApiPurge } from '../../store/api-purges.js';
import type { ApiRequester, Approval } from '../../store/approvals.js';
import type { Store } from '../../store/index.js';
import type { ApprovalService } from '../approvals/approvals.js';
import { boundChannel } from './api-purge-job.js';
import type { ApiPurgeRequest, ApiPurgeZone } from './api-purge-plan.js';
import { ApiRefusal } from './api-refusal.js';
import { type ApiToken, tokenActorId } from './api-tokens.js';

/** Finds the Slack user with an e-mail address (users.lookupByEmail); implemented in src/slack. */
export interface PeopleByEmail {
  /** The user's id; `not_found` when no one has it; `unchecked` when Slack could not be asked. */
  userIdByEmail(workspaceId: string, email: string): Promise<string | 'not_found' | 'unchecked'>;
}

/** An e-mail address, as far as telling one from a user name goes (Slack checks the rest). */
const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export interface ApprovalDeps {
  store: Store;
  approvals: ApprovalService;
  clock: Clock;
  settings: { approvalTtlMs: number };
  /** Who the CI's `context.actor` is in Slack; absent: nobody is mapped. */
  people?: PeopleByEmail;
}

/**
 * Posts the purge's approval request: ApiRefusal `no_approval_channel` with nowhere to post it,
 * `approval_pending` when the zone has one waiting already. With `notBefore`, it may be approved
 * until that time, and runs then.
 */
export async function askApiApproval(
  deps: ApprovalDeps,
  token: ApiToken,
  purge: ApiPurge,
  zone: ApiPurgeZone,
  request: ApiPurgeRequest,
  notBefore?: number,
): Promise<Approval> {
  const channelId = token.channelId ?? (await boundChannel(deps.store, purge));
  if (!channelId)
    throw new ApiRefusal(
      'no_approval_channel',
      'the token has no channel and no channel has this zone as its default: nowhere to ask for approval',
    );
  try {
    return await deps.approvals.request(token.workspaceId, {
      zone,
      requesterId: tokenActorId(token),
      reason: request.reason ?? `Asked over the API with the token "${token.name}"`,
      channelId,
      // For later: it may be approved until its time, and runs then (ScheduledPurgeService).
      ...(notBefore === undefined
        ? { ttlMs: deps.settings.approvalTtlMs }
        : { ttlMs: notBefore - deps.clock.now(), notBefore }),
      api: await requester(deps, token, purge, request.context?.actor),
    });
  } catch (error) {
    if (error instanceof AppError && error.problem.code === 'approval_pending')
      throw new ApiRefusal(
        'approval_pending',
        'this zone already has a purge of everything waiting for approval',
      );
    throw error;
  }
}

/** The token and the CI's actor, and the Slack user that actor is (by e-mail), if any. */
async function requester(
  deps: ApprovalDeps,
  token: ApiToken,
  purge: ApiPurge,
  actor: string | undefined,
): Promise<ApiRequester> {
  const base = {
    tokenId: token.id,
    tokenName: token.name,
    account: purge.accountName,
  };
  if (actor === undefined || actor.trim() === '') return base;
  if (!EMAIL.test(actor.trim())) return { ...base, actor, unmapped: 'not_email' };
  const found = deps.people
    ? await deps.people.userIdByEmail(token.workspaceId, actor.trim())
    : 'unchecked';
  return found === 'not_found' || found === 'unchecked'
    ? { ...base, actor, unmapped: found }
    : { ...base, actor, actorUserId: found };
}
