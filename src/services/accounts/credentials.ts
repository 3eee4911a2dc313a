// Setting and removing a workspace's CDN API key (the account `default`'s): checked against the API
// before it is stored; removed only once an admin saw what stops with it, which is only what
// belongs to `default` (other accounts keep their keys and their work).
import type { EgressPolicy } from '../../cdn/egress.js';
import { isCdnError } from '../../cdn/errors.js';
import { type Account, DEFAULT_ACCOUNT } from '../../store/accounts.js';
import type { ChannelBinding } from '../../store/channel-bindings.js';
import type { Store } from '../../store/index.js';
import type { Schedule } from '../../store/schedules.js';
import type { Watch } from '../../store/watches.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ZoneService } from '../zones/zones.js';
import type { CdnAccess } from './cdn-access.js';

export type KeyCheck =
  /** `apiUrl`: the API the key was checked against (the override, or CDN_API_BASE_URL). */
  | { ok: true; zoneCount: number; apiUrl: string }
  /** The CDN at `host` refused the key (`status` 401 or 403): the CDN's words, for the user. */
  | { ok: false; refusal: KeyRefusal };

export interface KeyRefusal {
  host: string;
  status: number;
  said: string;
}

/** What `/cdn logout` stops, shown before the admin confirms: the account `default`'s only. */
export interface LogoutPreview {
  /** Whether `default` has a key. */
  keySet: boolean;
  /** `default`'s watches. */
  watches: Watch[];
  /** `default`'s live reports (not stopped). */
  reports: Schedule[];
  /** `default`'s channel default zones under its key (at most MAX_LISTED). */
  bindings: ChannelBinding[];
  /** The names of the workspace's other CDN accounts, which logging out leaves as they are. */
  otherAccounts?: string[];
  /**
   * The names of the live API tokens that reach `default` only (at most MAX_LISTED): they purge
   * nothing while it has no key.
   */
  tokens?: string[];
  /** The workspace has no account `default` (only accounts added by name, from the App Home). */
  noDefault?: boolean;
}

/** What a logout did: counts of what paused (or, `deleted`, went), and the defaults cleared. */
export interface LogoutOutcome {
  keyRemoved: boolean;
  watches: number;
  reports: number;
  bindings: number;
  deleted: boolean;
  /** The names of the workspace's other CDN accounts, left as they were. */
  otherAccounts?: string[];
}

/** Channel defaults and token names read for the preview: more than any message would name. */
const MAX_LISTED = 1_000;

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export class CredentialService {
  constructor(
    private readonly deps: {
      store: Store;
      cdn: CdnAccess;
      egress: EgressPolicy;
      access: AccessService;
      zones: ZoneService;
    },
  ) {}

  /** Admins only: the key form is theirs. */
  async requireAdmin(caller: Caller): Promise<void> {
    await this.deps.access.requireAdmin(caller, 'set_key');
  }

  /** Whether a workspace's own base URL may be called (https, public addresses, or allowlisted). */
  async checkBaseUrl(url: string): Promise<BaseUrlCheck> {
    return this.deps.egress.checkOverride(url);
  }

  /**
   * Asks the CDN whether the key works (GET /zones?per_page=1). Refusals come back as a reason;
   * anything else is thrown, since it says nothing about the key: the CDN out of reach (its
   * CdnError names the host and why: DNS, a refused connection, a timeout, TLS), or down.
   */
  async check(apiKey: string, baseUrl: string | null, signal?: AbortSignal): Promise<KeyCheck> {
    const apiUrl = baseUrl ?? this.deps.cdn.defaultBaseUrl;
    const client = this.deps.cdn.clientWith(apiKey, baseUrl, 'login');
    try {
      const page = await client.listZones({ page: 1, perPage: 1 }, signal ? { signal } : {});
      return { ok: true, zoneCount: page.total, apiUrl };
    } catch (error) {
      if (isCdnError(error, 'unauthorized') || isCdnError(error, 'forbidden')) {
        const status = error.status ?? (error.code === 'unauthorized' ? 401 : 403);
        return { ok: false, refusal: { host: hostOf(apiUrl), status, said: error.message } };
      }
      throw error;
    }
  }

  async save(caller: Caller, input: { apiKey: string; baseUrl: string | null }) {
    const { store } = this.deps;
    await store.workspaces.update(caller.workspaceId, { cdnBaseUrl: input.baseUrl });
    const status = await store.credentials.set(caller.workspaceId, input.apiKey, {
      userId: caller.userId,
      validated: true,
    });
    // The old key's index went with it (same transaction); the new key's is built now.
    this.deps.zones.keyChanged(caller.workspaceId);
    await store.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'credentials.set',
      outcome: 'ok',
      detail: { baseUrlOverride: input.baseUrl !== null },
    });
    return status;
  }

  /**
   * Admins only: what `/cdn logout` would stop, for the admin to confirm first: what belongs to
   * the account `default` (rows of its id, or of none). Nothing changes.
   */
  async logoutPreview(caller: Caller): Promise<LogoutPreview> {
    await this.deps.access.requireAdmin(caller, 'remove_key');
    const { store } = this.deps;
    const { workspaceId } = caller;
    const [generation, watches, reports, accounts, defaultId] = await Promise.all([
      store.channelBindings.keyGeneration(workspaceId),
      store.watches.listForWorkspace(workspaceId),
      store.schedules.listForWorkspace(workspaceId),
      store.accounts.list(workspaceId),
      store.accounts.defaultId(workspaceId),
    ]);
    const tokens = generation
      ? await store.accountUsage.boundTokenNames({ workspaceId, defaultId }, MAX_LISTED)
      : [];
    const bindings = generation
      ? await store.channelBindings.listOfDefault(workspaceId, generation, MAX_LISTED)
      : [];
    return {
      keySet: generation !== undefined,
      // A watch or report of `default` (or of none) has no accountId (ZoneWork).
      watches: watches.filter((watch) => watch.accountId === undefined),
      reports: reports.filter((report) => report.accountId === undefined),
      bindings,
      otherAccounts: otherNames(accounts),
      tokens,
      noDefault: generation === undefined && !accounts.some(isDefaultAccount),
    };
  }

  /**
   * Admins only: removes the key of the account `default`, and with it its channels' default
   * zones (chosen under it). Its watches and reports stay and wait (nothing of `default` runs
   * without its key) until a key is set again; with `deleteWork`, they go too. Other accounts'
   * keys, watches, reports and channel defaults are left as they are. Works without a key, to
   * delete what waits.
   */
  async remove(caller: Caller, options: { deleteWork: boolean }): Promise<LogoutOutcome> {
    await this.deps.access.requireAdmin(caller, 'remove_key');
    const { store } = this.deps;
    const { workspaceId } = caller;
    const ref = { workspaceId, defaultId: await store.accounts.defaultId(workspaceId) };
    // The zone index of `default` is deleted with the key.
    const keyRemoved = await store.credentials.delete(workspaceId);
    this.deps.zones.forget(workspaceId);
    const bindings = await store.accountUsage.clearDefaultBindings(ref);
    const { watches, reports } = options.deleteWork
      ? await store.accountUsage.deleteDefaultWork(ref)
      : await store.accountUsage.count(ref);
    await store.audit.record({
      workspaceId,
      actorId: caller.userId,
      action: 'credentials.remove',
      outcome: keyRemoved ? 'ok' : 'noop',
      detail: {
        account: DEFAULT_ACCOUNT,
        bindings,
        ...(options.deleteWork ? {} : { watches, reports }),
      },
    });
    if (options.deleteWork)
      await store.audit.record({
        workspaceId,
        actorId: caller.userId,
        action: 'watches_reports.delete',
        outcome: 'ok',
        detail: { account: DEFAULT_ACCOUNT, watches, reports },
      });
    const otherAccounts = otherNames(await store.accounts.list(workspaceId));
    return { keyRemoved, watches, reports, bindings, deleted: options.deleteWork, otherAccounts };
  }
}

const isDefaultAccount = (account: Account) => account.name.toLowerCase() === DEFAULT_ACCOUNT;

/** The names of the accounts other than `default`, as listed. */
function otherNames(accounts: Account[]): string[] {
  return accounts.filter((account) => !isDefaultAccount(account)).map((account) => account.name);
}

/** The host a base URL names (`api.cdn.example`), for a refusal's words. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}
