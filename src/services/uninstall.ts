// When Slack says the app was uninstalled or its bot token revoked, nothing the workspace left
// behind may stay usable: its tokens and CDN key are deleted, its daily reports paused, and its
// pending purge-everything requests expired, so an old Approve button can no longer fire a purge.
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import type { ZoneService } from './zones.js';

export type Revocation = 'app_uninstalled' | 'tokens_revoked';

export interface RevokedWorkspace {
  teamId: string;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

export interface RevocationSummary {
  keyDeleted: boolean;
  schedulesPaused: number;
  approvalsExpired: number;
  /** Watches removed: nothing is polled or posted for the workspace any more. */
  watchesRemoved: number;
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
    const keyDeleted = await this.store.credentials.delete(workspaceId);
    this.zones.forget(workspaceId);
    const reason =
      cause === 'app_uninstalled'
        ? 'The app was uninstalled from this workspace; reinstall it and resume the report.'
        : "The app's access to this workspace was revoked; reinstall it and resume the report.";
    const schedulesPaused = await this.store.schedules.pauseAll(workspaceId, reason);
    const approvalsExpired = (await this.store.approvals.expireAllPending(workspaceId)).length;
    const watchesRemoved = await this.store.watches.removeWorkspace(workspaceId);
    const apiTokensRevoked = await this.store.apiTokens.revokeAll(workspaceId, SLACK_ACTOR);
    const summary = {
      keyDeleted,
      schedulesPaused,
      approvalsExpired,
      watchesRemoved,
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
