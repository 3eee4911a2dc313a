// Administering a workspace's CDN accounts: add, rename, re-key and remove them, give
// them their own operators or approvers, and tell whether each key still works (checked, not
// assumed). Workspace admins only change them; everything is audited, never a key.
// (About 400 lines: the key-health probe, #probe, is the part to move out if it grows.)
import { type Clock, within } from '../../clock.js';
import { AppError, type Problem } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AccountRole, AccountRoleGrant } from '../../store/account-roles.js';
import type { AccountUsage } from '../../store/account-usage.js';
import { type Account, AccountError, checkName } from '../../store/accounts.js';
import type { Store } from '../../store/index.js';
import type { AccessService, Caller } from '../access/access.js';
import type { CdnReadRateLimit } from '../analytics/cdn-read-rate-limit.js';
import type { ApprovalService } from '../approvals/approvals.js';
import { zoneIndexJobKey } from '../zones/zone-index-builder.js';
import type { ZoneService } from '../zones/zones.js';
import type { CredentialService, KeyRefusal } from './credentials.js';

/** Whether an account's key still works, as last checked: `none` when it has no key. */
export type KeyHealth = 'works' | 'refused' | 'unreachable' | 'unchecked' | 'none';

export interface AccountView extends Account {
  health: KeyHealth;
  /** The account's own role holders (absent: the workspace's). */
  operators?: AccountRoleGrant;
  approvers?: AccountRoleGrant;
}

export interface AccountsOverview {
  accounts: AccountView[];
  /** Whether the caller may add, rename, re-key and remove (a workspace admin). */
  mayManage: boolean;
}

/** What an account form's checks found: the field a refusal belongs to, and why (as data). */
export type AccountCheck =
  | { ok: true; baseUrl: string | null; zoneCount: number }
  | { ok: false; field: 'name'; problem: Problem }
  | { ok: false; field: 'baseUrl'; reason: string }
  | { ok: false; field: 'key'; refusal: KeyRefusal };

/** What removing an account would stop, shown before the admin confirms. */
export interface RemovalPreview {
  account: Account;
  usage: AccountUsage;
}

/** Who holds a role on one account: a group, everyone, or (`workspace`) the workspace's holder. */
export type RoleHolder = { group: string } | 'everyone' | 'workspace';

export interface AccountServiceOptions {
  store: Store;
  access: AccessService;
  credentials: CredentialService;
  zones: ZoneService;
  reads: CdnReadRateLimit;
  /** Shows the purge-everything requests a removal cancels as cancelled, on their messages. */
  approvals: Pick<ApprovalService, 'messageJob' | 'messagesStored'>;
  clock: Clock;
  logger: Logger;
  /** CDN_API_BASE_URL: where an account without its own base URL goes. */
  defaultBaseUrl: string;
  /** How long a key check's answer is reused (default 5 minutes). */
  probeTtlMs?: number;
  /** How long one key check may take before the key is said unreachable (default 4 s). */
  probeTimeoutMs?: number;
}

const PROBE_TTL_MS = 5 * 60_000;
const PROBE_TIMEOUT_MS = 4_000;
/** Accounts checked at once: an App Home of many accounts does not open many connections. */
const PROBE_CONCURRENCY = 4;

export class AccountService {
  /** Each key's last check, by workspace, account and key generation (a new key is checked anew). */
  readonly #probes = new Map<string, { health: KeyHealth; at: number }>();

  constructor(private readonly options: AccountServiceOptions) {}

  get defaultBaseUrl(): string {
    return this.options.defaultBaseUrl;
  }

  /** Admins only: every form and button that changes accounts is theirs. */
  async requireAdmin(caller: Caller): Promise<void> {
    await this.options.access.requireAdmin(caller, 'set_key');
  }

  /**
   * The workspace's accounts, each with its zone count, its own role holders and whether its key
   * works (checked, at most every 5 minutes): for its full members.
   */
  async overview(caller: Caller): Promise<AccountsOverview> {
    const { access, store } = this.options;
    await access.requireFullMember(caller, 'read_config');
    const [accounts, grants, mayManage] = await Promise.all([
      store.accounts.list(caller.workspaceId),
      store.accountRoles.list(caller.workspaceId),
      access.requireAdmin(caller, 'set_key').then(
        () => true,
        (error: unknown) => {
          if (error instanceof AppError) return false;
          throw error;
        },
      ),
    ]);
    const health = await this.#healthOf(caller, accounts);
    return {
      accounts: accounts.map((account, i) => {
        const operators = grants.find((g) => g.accountId === account.id && g.role === 'operators');
        const approvers = grants.find((g) => g.accountId === account.id && g.role === 'approvers');
        return {
          ...account,
          health: health[i] ?? 'unchecked',
          ...(operators ? { operators } : {}),
          ...(approvers ? { approvers } : {}),
        };
      }),
      mayManage,
    };
  }

  /** One account the caller (an admin) manages; AppError account_not_found when it is gone. */
  async get(caller: Caller, accountId: string): Promise<Account> {
    await this.requireAdmin(caller);
    return this.#require(caller.workspaceId, accountId);
  }

  /**
   * An add or re-key form's checks, nothing saved: the caller an admin, the name free (adding),
   * the base URL allowed (DNS included), and the key accepted by the CDN at that URL (re-keying:
   * the account's own). Failures of the CDN that say nothing of the key are thrown.
   */
  async check(
    caller: Caller,
    input: { name?: string; accountId?: string; apiKey: string; baseUrl?: string },
    signal?: AbortSignal,
  ): Promise<AccountCheck> {
    await this.requireAdmin(caller);
    const { credentials } = this.options;
    let baseUrl: string | null = null;
    if (input.name !== undefined) {
      const problem = await this.#nameProblem(caller.workspaceId, input.name);
      if (problem) return { ok: false, field: 'name', problem };
    }
    if (input.accountId !== undefined) {
      baseUrl = (await this.#require(caller.workspaceId, input.accountId)).baseUrl;
    } else if (input.baseUrl) {
      const checked = await credentials.checkBaseUrl(input.baseUrl);
      if (!checked.ok) return { ok: false, field: 'baseUrl', reason: checked.reason };
      baseUrl = checked.url;
    }
    const key = await credentials.check(input.apiKey, baseUrl, signal);
    if (!key.ok) return { ok: false, field: 'key', refusal: key.refusal };
    return { ok: true, baseUrl, zoneCount: key.zoneCount };
  }

  /** Admins only: a new account with a key `check` accepted. */
  async add(
    caller: Caller,
    input: { name: string; apiKey: string; baseUrl: string | null },
  ): Promise<Account> {
    await this.requireAdmin(caller);
    const { store } = this.options;
    const name = this.#name(input.name);
    const account = await mapped(
      () =>
        store.accounts.create(caller.workspaceId, {
          name,
          baseUrl: input.baseUrl,
          apiKey: input.apiKey,
          by: { userId: caller.userId, validated: true },
        }),
      name,
    );
    await this.#audit(caller, 'account.add', account, { baseUrlOverride: input.baseUrl !== null });
    return account;
  }

  /** Admins only: renames an account. */
  async rename(caller: Caller, accountId: string, newName: string): Promise<Account> {
    await this.requireAdmin(caller);
    const before = await this.#require(caller.workspaceId, accountId);
    const name = this.#name(newName);
    const account = await mapped(
      () => this.options.store.accounts.rename(caller.workspaceId, accountId, name),
      name,
    );
    await this.#audit(caller, 'account.rename', account, { from: before.name });
    return account;
  }

  /** Admins only: the account's new key (checked by `check`); its zone index goes with the old. */
  async rekey(caller: Caller, accountId: string, apiKey: string): Promise<Account> {
    await this.requireAdmin(caller);
    const { store, zones } = this.options;
    const account = await mapped(() =>
      store.accounts.setKey(caller.workspaceId, accountId, apiKey, {
        userId: caller.userId,
        validated: true,
      }),
    );
    zones.keyChanged(caller.workspaceId, account.id);
    this.#forgetProbes(caller.workspaceId, accountId);
    await this.#audit(caller, 'account.rekey', account);
    return account;
  }

  /** Admins only: what removing the account would stop. Nothing changes. */
  async removalPreview(caller: Caller, accountId: string): Promise<RemovalPreview> {
    await this.requireAdmin(caller);
    const account = await this.#require(caller.workspaceId, accountId);
    const usage = await this.options.store.accountUsage.count(this.#ref(account));
    return { account, usage };
  }

  /**
   * Admins only: removes the account and its key, and in the same transaction what refers to it:
   * its watches go, its reports stop, the channels bound to it refuse their zone commands until
   * bound again or unbound (never falling back to another account), and its pending
   * purge-everything requests are cancelled, each message then saying so by a job (an account
   * that is gone never comes back: nothing of it waits, unlike after `/cdn logout`); the audit
   * stays.
   */
  async remove(caller: Caller, accountId: string): Promise<RemovalPreview> {
    const { account } = await this.removalPreview(caller, accountId);
    const { store, approvals } = this.options;
    const usage = await mapped(() =>
      store.accountUsage.remove(this.#ref(account), {
        name: account.name,
        by: caller.userId,
        messageJob: (approval) => approvals.messageJob(approval),
        heldJobKeys: [zoneIndexJobKey(caller.workspaceId, accountId)],
      }),
    );
    if (usage.approvals > 0) approvals.messagesStored();
    this.#forgetProbes(caller.workspaceId, accountId);
    await this.#audit(caller, 'account.remove', account, { ...usage });
    return { account, usage };
  }

  /**
   * Admins only: who holds `role` on the account named: a group, everyone, or the workspace's
   * holder again (`workspace`). Operators of one account then need not be allowed on another.
   */
  async setRole(
    caller: Caller,
    accountName: string,
    role: AccountRole,
    holder: RoleHolder,
  ): Promise<Account> {
    await this.options.access.requireAdmin(caller, 'configure_access');
    const { store } = this.options;
    const account = await store.accounts.byName(caller.workspaceId, accountName);
    if (!account) throw new AppError({ code: 'account_not_found', name: accountName });
    if (holder === 'workspace')
      await store.accountRoles.clear(caller.workspaceId, account.id, role);
    else
      await store.accountRoles.set(
        caller.workspaceId,
        account.id,
        role,
        holder === 'everyone' ? null : holder.group,
        caller.userId,
      );
    await store.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: `config.account_${role}`,
      outcome: 'ok',
      detail: {
        account: account.name,
        group:
          typeof holder === 'object' ? holder.group : holder === 'everyone' ? null : 'workspace',
      },
    });
    return account;
  }

  /** Whether each key works: a cached answer, else one bounded check (a CDN read of the caller's). */
  async #healthOf(caller: Caller, accounts: Account[]): Promise<KeyHealth[]> {
    const result: KeyHealth[] = [];
    let next = 0;
    const worker = async () => {
      while (next < accounts.length) {
        const i = next++;
        result[i] = await this.#probe(caller, accounts[i] as Account);
      }
    };
    await Promise.all(Array.from({ length: PROBE_CONCURRENCY }, worker));
    return result;
  }

  async #probe(caller: Caller, account: Account): Promise<KeyHealth> {
    if (!account.hasKey || account.generation === null) return 'none';
    const { clock, store, credentials, reads, logger } = this.options;
    const cacheKey = `${caller.workspaceId}:${account.id}:${account.generation}`;
    const cached = this.#probes.get(cacheKey);
    if (cached && clock.now() - cached.at < (this.options.probeTtlMs ?? PROBE_TTL_MS))
      return cached.health;
    try {
      await reads.take(caller);
    } catch (error) {
      // Past the workspace's read bounds: not checked now, not assumed either way.
      if (error instanceof AppError) return cached?.health ?? 'unchecked';
      throw error;
    }
    const giveUp = new AbortController();
    const checking = (async (): Promise<KeyHealth> => {
      const credential = await store.accounts.credential(caller.workspaceId, account.id);
      if (!credential) return 'none';
      try {
        const checked = await credentials.check(
          credential.apiKey,
          credential.baseUrl,
          giveUp.signal,
        );
        if (!checked.ok) return 'refused';
        await store.accounts.markValidated(caller.workspaceId, account.id, credential.generation);
        return 'works';
      } catch (error) {
        if (!giveUp.signal.aborted)
          logger.info(
            { err: error, account: account.name },
            'account key check did not reach the CDN',
          );
        return 'unreachable';
      }
    })();
    const health = await within(
      clock,
      this.options.probeTimeoutMs ?? PROBE_TIMEOUT_MS,
      checking,
      () => {
        giveUp.abort();
        return 'unreachable' as const;
      },
    );
    this.#probes.set(cacheKey, { health, at: clock.now() });
    return health;
  }

  #forgetProbes(workspaceId: string, accountId: string): void {
    for (const key of this.#probes.keys())
      if (key.startsWith(`${workspaceId}:${accountId}:`)) this.#probes.delete(key);
  }

  async #nameProblem(workspaceId: string, name: string): Promise<Problem | undefined> {
    let checked: string;
    try {
      checked = this.#name(name);
    } catch (error) {
      if (error instanceof AppError) return error.problem;
      throw error;
    }
    if (await this.options.store.accounts.byName(workspaceId, checked))
      return { code: 'account_name_taken', name: checked };
    return undefined;
  }

  /** The name as a slug; AppError account_name_invalid otherwise. */
  #name(name: string): string {
    try {
      return checkName(name);
    } catch (error) {
      if (error instanceof AccountError)
        throw new AppError({ code: 'account_name_invalid', name: name.trim() });
      throw error;
    }
  }

  async #require(workspaceId: string, accountId: string): Promise<Account> {
    const account = await this.options.store.accounts.get(workspaceId, accountId);
    if (!account) throw new AppError({ code: 'account_not_found' });
    return account;
  }

  #ref(account: Account) {
    return { workspaceId: account.workspaceId, accountId: account.id };
  }

  async #audit(
    caller: Caller,
    action: string,
    account: Account,
    detail: Record<string, unknown> = {},
  ): Promise<void> {
    await this.options.store.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action,
      outcome: 'ok',
      detail: { account: account.name, ...detail },
    });
  }
}

/** The store's AccountError as the problem users are told of. */
async function mapped<T>(run: () => Promise<T>, name = ''): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof AccountError)) throw error;
    const problem: Problem =
      error.code === 'account_name_taken'
        ? { code: 'account_name_taken', name }
        : error.code === 'account_name_invalid'
          ? { code: 'account_name_invalid', name }
          : { code: 'account_not_found' };
    throw new AppError(problem, { cause: error });
  }
}
