// Repository: Slack installations for OAuth (Bolt's InstallationStore), sealed because they hold
// tokens (a rotating bot token's refresh token too), and the one-at-a-time update a token's
// refresh needs: one replica refreshes, the others wait and read what it stored.
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Keyring, SecretContext } from './crypto.js';
import type { SqlDialect } from './db.js';
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

/** What a locked update decides: the installation to store instead, or none (keep it). */
export type InstallationUpdate = (current: Installation) => Promise<Installation | undefined>;

export class InstallationRepository implements InstallationStore {
  /** Locked updates under way in this process, by installation: a second caller joins the first. */
  readonly #updating = new Map<string, Promise<Installation>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly uninstalled: Pick<UninstalledWorkspaceRepository, 'clear'>,
    private readonly dialect: SqlDialect,
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

  /**
   * Reads the installation and lets `update` replace it, one caller at a time across every
   * replica: on PostgreSQL under the row's lock (`FOR UPDATE`, held until the new one is stored),
   * so a second replica waits, then reads what the first stored; on SQLite, whose file belongs to
   * one process (process-lock.ts), the process's own queue is the lock, and no transaction holds
   * the one connection while `update` waits on the network. Returns what is stored afterwards.
   */
  async updateLocked(
    query: InstallationQuery<boolean>,
    update: InstallationUpdate,
  ): Promise<Installation> {
    const id = keyOf(query);
    const running = this.#updating.get(id);
    if (running) return running;
    const done = (
      this.dialect === 'postgres'
        ? this.db.transaction().execute((trx) => this.#update(trx, id, update, true))
        : this.#update(this.db, id, update, false)
    ).finally(() => this.#updating.delete(id));
    this.#updating.set(id, done);
    return done;
  }

  async #update(
    db: Kysely<Database>,
    id: string,
    update: InstallationUpdate,
    lock: boolean,
  ): Promise<Installation> {
    const read = db.selectFrom('slack_installations').select('installation').where('id', '=', id);
    const row = await (lock ? read.forUpdate() : read).executeTakeFirst();
    if (!row) throw new Error(`No installation for ${id}`);
    const current = JSON.parse(this.keyring.decrypt(row.installation, context(id))) as Installation;
    const next = await update(current);
    if (!next) return current;
    await db
      .updateTable('slack_installations')
      .set({
        installation: this.keyring.encrypt(JSON.stringify(next), context(id)),
        key_id: this.keyring.primaryId,
        updated_at: this.clock.now(),
      })
      .where('id', '=', id)
      .execute();
    return next;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.db.deleteFrom('slack_installations').where('id', '=', keyOf(query)).execute();
  }
}
