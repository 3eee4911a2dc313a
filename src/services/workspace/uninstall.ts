// When Slack says the app was uninstalled or its bot token revoked, nothing the workspace left
// behind may stay usable: its tokens and CDN key are deleted, and its pending purge-everything
// requests expired, so an old Approve button can no longer fire a purge. The rest of its data
// (settings, reports, watches, history) is kept for a grace period, so a reinstall by mistake loses
// nothing; the retention sweep deletes it once the grace is over. Its reports and watches are not
// paused (a paused report has no command to resume it): without a key they wait, as after
// `/cdn logout`, and run again by themselves once a reinstalled workspace logs in again.
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { ZoneService } from '../zones/zones.js';

export type Revocation = 'app_uninstalled' | 'tokens_revoked';

export interface RevokedWorkspace {
  teamId: string;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

export interface RevocationSummary {
  keyDeleted: boolean;
  approvalsExpired: number;
  /** Live reports and watches: they wait, running nothing, until a key is set again. */
  reportsWaiting: number;
  watchesWaiting: number;
  /** When the workspace's other data is deleted unless the app is installed again before (ISO 8601). */
  dataDeletedAfter: string;
  /** API tokens revoked: CI can no longer ask for purges in the workspace. */
  apiTokensRevoked: number;
}

/** The audit actor for what Slack, not a person, caused. */
export const SLACK_ACTOR = 'slack';

export class UninstallService {
  constructor(
    private readonly store: Store,
    private readonly zones: ZoneService,
    private readonly logger: Logger,
    /** How long the workspace's data outlives the uninstall (UNINSTALLED_DATA_RETENTION_DAYS). */
    private readonly graceMs: number,
  ) {}

  /** Idempotent: Slack may deliver the event twice, or send both events for one uninstall. */
  async revoke(workspace: RevokedWorkspace, cause: Revocation): Promise<RevocationSummary> {
    const workspaceId = workspace.teamId;
    // Secrets first, so a failure later still leaves nothing usable behind.
    await this.store.installations.deleteInstallation({
      teamId: workspace.teamId,
      enterpriseId: workspace.enterpriseId,
      isEnterpriseInstall: workspace.isEnterpriseInstall ?? false,
    });
    // Every account's key: none may outlive the uninstall.
    let keyDeleted = false;
    for (const account of await this.store.accounts.list(workspaceId)) {
      keyDeleted = (await this.store.accounts.clearKey(workspaceId, account.id)) || keyDeleted;
      this.zones.forget(workspaceId, account.id);
    }
    const approvalsExpired = (await this.store.approvals.expireAllPending(workspaceId)).length;
    const reportsWaiting = (await this.store.schedules.listForWorkspace(workspaceId)).filter(
      (schedule) => schedule.status === 'active',
    ).length;
    const watchesWaiting = (await this.store.watches.listForWorkspace(workspaceId)).length;
    // Marked once: a second event for the same uninstall does not push the deletion back.
    const markedAt = await this.store.uninstalled.mark(workspaceId, workspace.enterpriseId ?? null);
    const dataDeletedAfter = new Date(markedAt + this.graceMs).toISOString();
    const apiTokensRevoked = await this.store.apiTokens.revokeAll(workspaceId, SLACK_ACTOR);
    const summary = {
      keyDeleted,
      approvalsExpired,
      reportsWaiting,
      watchesWaiting,
      dataDeletedAfter,
      apiTokensRevoked,
    };
    await this.store.audit.record({
      workspaceId,
      actorId: SLACK_ACTOR,
      action: cause === 'app_uninstalled' ? 'app.uninstalled' : 'tokens.revoked',
      outcome: 'ok',
      detail: summary,
    });
    this.logger.info({ workspaceId, cause, ...summary }, 'workspace access revoked');
    return summary;
  }
}
