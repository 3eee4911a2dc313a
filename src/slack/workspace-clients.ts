// The bot token of a workspace, for work that happens outside a request (sweeps, reports).
import type { WebClient } from '@slack/web-api';
import type { InstallationRepository } from '../store/installations.js';

export class WorkspaceClients {
  constructor(
    /** The app's Web API client (app.client); the token is passed per call. */
    readonly client: WebClient,
    private readonly options: { botToken?: string; installations: InstallationRepository },
  ) {}

  /** The single-workspace token, or the token of the workspace's OAuth installation. */
  async tokenFor(workspaceId: string): Promise<string> {
    if (this.options.botToken) return this.options.botToken;
    const installation = await this.options.installations.fetchInstallation({
      teamId: workspaceId,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    const token = installation.bot?.token;
    if (!token) throw new Error(`The installation of ${workspaceId} has no bot token`);
    return token;
  }
}
