// A purge asked for later (`not_before`), stored as a scheduled purge keyed by its record: URLs
// and tags as they are, everything with its approval request posted now, expiring at its time.
import type { ApiPurge } from '../../store/api-purges.js';
import type { PurgeGroup } from '../purge/purge-targets.js';
import type { ScheduledApiRef, ScheduledPurgeService } from '../purge/scheduled-purges.js';
import { type ApprovalDeps, askApiApproval } from './api-purge-approval.js';
import { boundChannel } from './api-purge-job.js';
import type { ApiPurgeRequest, ApiPurgeZone } from './api-purge-plan.js';
import { ApiRefusal } from './api-refusal.js';
import { type ApiToken, tokenActorId } from './api-tokens.js';

/** Stores the purge for later (ScheduledPurgeService checks it again, and starts it, when due). */
export async function scheduleApiPurge(
  deps: ApprovalDeps & { scheduled?: ScheduledPurgeService },
  token: ApiToken,
  purge: ApiPurge,
  input: {
    group: PurgeGroup | undefined;
    zone: ApiPurgeZone;
    request: ApiPurgeRequest;
    notBefore: number;
  },
): Promise<void> {
  const scheduled = deps.scheduled;
  if (!scheduled)
    throw new ApiRefusal('invalid_not_before', 'purges for later are not available here');
  const { group, zone, request, notBefore } = input;
  const api: ScheduledApiRef = {
    purgeId: purge.id,
    tokenId: token.id,
    ...(request.warm ? { warm: true } : {}),
  };
  if (group) {
    await scheduled.scheduleForApi(token.workspaceId, {
      api,
      actorId: tokenActorId(token),
      channelId: token.channelId ?? (await boundChannel(deps.store, purge)),
      dueAt: notBefore,
      what: {
        kind: 'items',
        groups: [{ zone: group.zone, files: group.files, tags: group.tags }],
      },
    });
    return;
  }
  const approval = await askApiApproval(deps, token, purge, zone, request, notBefore);
  await deps.store.apiPurges.setApproval(purge.id, approval.id);
  purge.approvalId = approval.id;
  await scheduled.scheduleForApi(token.workspaceId, {
    api,
    actorId: tokenActorId(token),
    channelId: approval.channelId,
    dueAt: notBefore,
    what: { kind: 'everything', zone, approvalId: approval.id },
  });
}
