// Setting and removing the CDN API key of `/cdn login` and `/cdn logout`, which name no account:
// the key of the account LOGIN_ACCOUNT (made by the first login). Checked against the API before
// it is stored; removed only once an admin saw what stops with it, which is only what belongs to
// that account (other accounts keep their keys and their work).
import type { EgressPolicy } from '../../cdn/egress.js';
import { isCdnError } from '../../cdn/errors.js';
import type { Account } from '../../store/accounts.js';
import type { ChannelBinding } from '../../store/channel-bindings.js';
import { LOGIN_ACCOUNT } from '../../store/credentials.js';
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

/** What `/cdn logout` stops, shown before the admin confirms: the login account's only. */
export interface LogoutPreview {
  /** Whether the login account has a key. */
  keySet: boolean;
  /** Its watches. */
  watches: Watch[];
  /** Its live reports (not stopped). */
  reports: Schedule[];
  /** Its channel default zones under its key (at most MAX_LISTED). */
  bindings: ChannelBinding[];
  /** The names of the workspace's other CDN accounts, which logging out leaves as they are. */
  otherAccounts?: string[];
  /**
   * The names of the live API tokens that reach the login account only (at most MAX_LISTED):
   * they purge nothing while it has no key.
   */
  tokens?: string[];
  /** The workspace has no login account (only accounts added by name, from the App Home). */
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
    const { accountId, ...status } = await store.credentials.set(
      caller.workspaceId,
      input.apiKey,
      { userId: caller.userId, validated: true },
      input.baseUrl,
    );
    // The old key's index went with it (same transaction); the new key's is built now.
    this.deps.zones.keyChanged(caller.workspaceId, accountId);
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
   * the login account. Nothing changes.
   */
  async logoutPreview(caller: Caller): Promise<LogoutPreview> {
    await this.deps.access.requireAdmin(caller, 'remove_key');
    const { store } = this.deps;
    const { workspaceId } = caller;
    const [watches, reports, accounts] = await Promise.all([
      store.watches.listForWorkspace(workspaceId),
      store.schedules.listForWorkspace(workspaceId),
      store.accounts.list(workspaceId),
    ]);
    const login = accounts.find(isLoginAccount);
    const ref = login && { workspaceId, accountId: login.id };
    const keySet = login?.hasKey === true;
    return {
      keySet,
      watches: watches.filter((watch) => watch.accountId === login?.id),
      reports: reports.filter((report) => report.accountId === login?.id),
      bindings:
        ref && keySet
          ? await store.channelBindings.listOfAccount(workspaceId, ref.accountId, MAX_LISTED)
          : [],
      otherAccounts: otherNames(accounts),
      tokens: ref && keySet ? await store.accountUsage.boundTokenNames(ref, MAX_LISTED) : [],
      noDefault: !keySet && !login,
    };
  }

  /**
   * Admins only: removes the key of the login account, and with it its channels' default zones
   * (chosen under it). Its watches and reports stay and wait (nothing of an account runs without
   * its key) until a key is set again; with `deleteWork`, they go too. Other accounts' keys,
   * watches, reports and channel defaults are left as they are. Works without a key, to delete
   * what waits.
   */
  async remove(caller: Caller, options: { deleteWork: boolean }): Promise<LogoutOutcome> {
    await this.deps.access.requireAdmin(caller, 'remove_key');
    const { store } = this.deps;
    const { workspaceId } = caller;
    const login = await store.accounts.byName(workspaceId, LOGIN_ACCOUNT);
    // The account's zone index is deleted with the key.
    const keyRemoved = await store.credentials.delete(workspaceId);
    let bindings = 0;
    let work = { watches: 0, reports: 0 };
    if (login) {
      const ref = { workspaceId, accountId: login.id };
      this.deps.zones.forget(workspaceId, login.id);
      bindings = await store.accountUsage.clearBindings(ref);
      work = options.deleteWork
        ? await store.accountUsage.deleteWork(ref)
        : await store.accountUsage.count(ref);
    }
    const { watches, reports } = work;
    await store.audit.record({
      workspaceId,
      actorId: caller.userId,
      action: 'credentials.remove',
      outcome: keyRemoved ? 'ok' : 'noop',
      detail: {
        account: LOGIN_ACCOUNT,
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
        detail: { account: LOGIN_ACCOUNT, watches, reports },
      });
    const otherAccounts = otherNames(await store.accounts.list(workspaceId));
    return { keyRemoved, watches, reports, bindings, deleted: options.deleteWork, otherAccounts };
  }
}

const isLoginAccount = (account: Account) => account.name.toLowerCase() === LOGIN_ACCOUNT;

/** The names of the accounts other than the login account, as listed. */
function otherNames(accounts: Account[]): string[] {
  return accounts.filter((account) => !isLoginAccount(account)).map((account) => account.name);
}

/** The host a base URL names (`api.cdn.example`), for a refusal's words. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}
