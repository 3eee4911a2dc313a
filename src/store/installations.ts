// Repository: Slack installations for OAuth (Bolt's InstallationStore), sealed because they hold tokens.
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Keyring, SecretContext } from './crypto.js';
import type { Database } from './schema.js';
import type { UninstalledWorkspaceRepository } from './uninstalled-workspaces.js';

export const INSTALLATION_COLUMN = 'slack_installations.installation';
const context = (id: string): SecretContext => ({ workspace: id, column: INSTALLATION_COLUMN });

/** An org-wide install is keyed by its enterprise; any other by its team. */
function keyOf(query: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}): string {
  if (query.isEnterpriseInstall && query.enterpriseId) return `E:${query.enterpriseId}`;
  if (query.teamId) return `T:${query.teamId}`;
  throw new Error('An installation needs a team id, or an enterprise id for an org-wide install');
}

export class InstallationRepository implements InstallationStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly uninstalled: Pick<UninstalledWorkspaceRepository, 'clear'>,
  ) {}

  async storeInstallation(installation: Installation): Promise<void> {
    const id = keyOf({
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall,
    });
    const now = this.clock.now();
    const sealed = this.keyring.encrypt(JSON.stringify(installation), context(id));
    await this.db
      .insertInto('slack_installations')
      .values({
        id,
        team_id: installation.team?.id ?? null,
        enterprise_id: installation.enterprise?.id ?? null,
        is_enterprise_install: installation.isEnterpriseInstall ? 1 : 0,
        bot_user_id: installation.bot?.userId ?? null,
        installation: sealed,
        key_id: this.keyring.primaryId,
        installed_at: now,
        updated_at: now,
      })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet({
          bot_user_id: installation.bot?.userId ?? null,
          installation: sealed,
          key_id: this.keyring.primaryId,
          updated_at: now,
        }),
      )
      .execute();
    // Installed again within the grace period after an uninstall: the workspace's data stays.
    await this.uninstalled.clear({
      teamId: installation.isEnterpriseInstall ? undefined : installation.team?.id,
      enterpriseId: installation.enterprise?.id,
    });
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const id = keyOf(query);
    const row = await this.db
      .selectFrom('slack_installations')
      .select('installation')
      .where('id', '=', id)
      .executeTakeFirst();
    // Bolt expects a throw here; it turns it into an authorization failure.
    if (!row) throw new Error(`No installation for ${id}`);
    return JSON.parse(this.keyring.decrypt(row.installation, context(id))) as Installation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.db.deleteFrom('slack_installations').where('id', '=', keyOf(query)).execute();
  }
}
