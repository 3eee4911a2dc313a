// Each workspace's zone index as readers use it: find a zone by id or name, list or search them,
// and probe the end of the CDN's list for a name the index does not know before that name is
// "not found". An index is built, refreshed and probed by ZoneIndexBuilder (zone-index-builder.ts),
// which this hands the background work to. See docs/zone-index.md.
import type { CdnZone, Zone } from '../../cdn/schemas.js';
import type { Store } from '../../store/index.js';
import { zoneKey } from '../../zone-names.js';
import { indexScope, ZoneIndexBuilder, type ZoneIndexOptions } from './zone-index-builder.js';

export class ZoneIndex {
  readonly #store: Store;
  /** Builds and refreshes the indexes; its maintenance loop is started by the composition root. */
  readonly builder: ZoneIndexBuilder;

  constructor(options: ZoneIndexOptions) {
    this.#store = options.store;
    this.builder = new ZoneIndexBuilder(options);
  }

  /**
   * Zones whose id or name is `nameOrId`, from the index (built first if there is none). Every
   * method takes the account whose index is read; the zones carry its id.
   */
  async find(workspaceId: string, nameOrId: string, accountId: string): Promise<Zone[]> {
    await this.builder.usable(indexScope(workspaceId, accountId));
    return tag(
      await this.#repo(accountId).find(workspaceId, nameOrId.trim(), zoneKey(nameOrId)),
      accountId,
    );
  }

  /**
   * `find` in the indexes of several accounts (each as `find` takes it), in one read of the store
   * when all are built: the zones of each, in the order of `accountIds`. An index not built yet is
   * built first and read again, and an account without a key is AppError no_api_key, as in `find`.
   */
  async findIn(workspaceId: string, nameOrId: string, accountIds: string[]): Promise<Zone[][]> {
    const id = nameOrId.trim();
    const key = zoneKey(nameOrId);
    const found = await this.#store.zoneIndex.findAcross(workspaceId, accountIds, id, key);
    const zones = found.map((matches) => matches.zones);
    const unready = accountIds
      .map((accountId, at) => ({ accountId, at }))
      .filter(({ accountId, at }) => {
        const scope = indexScope(workspaceId, accountId);
        return !this.builder.ready(scope, found[at]?.view);
      });
    if (unready.length > 0) {
      for (const { accountId } of unready)
        await this.builder.usable(indexScope(workspaceId, accountId));
      const again = await this.#store.zoneIndex.findAcross(
        workspaceId,
        unready.map(({ accountId }) => accountId),
        id,
        key,
      );
      for (const [i, { at }] of unready.entries()) zones[at] = again[i]?.zones ?? [];
    }
    return accountIds.map((accountId, at) => tag(zones[at] ?? [], accountId));
  }

  /**
   * The same after a targeted refresh: the pages past the end of the index (where the CDN puts
   * zones created since), or the whole list when the CDN's total says zones changed elsewhere.
   */
  async probe(workspaceId: string, nameOrId: string, accountId: string): Promise<Zone[]> {
    await this.builder.probe(indexScope(workspaceId, accountId));
    return tag(
      await this.#repo(accountId).find(workspaceId, nameOrId.trim(), zoneKey(nameOrId)),
      accountId,
    );
  }

  /** Zones whose name is one of `keys` (zoneKey's form), or whose id is `id`, by name. */
  async named(
    workspaceId: string,
    keys: readonly string[],
    id: string | undefined,
    accountId: string,
  ): Promise<Zone[]> {
    await this.builder.usable(indexScope(workspaceId, accountId));
    return tag(await this.#repo(accountId).named(workspaceId, keys, id), accountId);
  }

  async all(workspaceId: string, accountId: string): Promise<Zone[]> {
    await this.builder.usable(indexScope(workspaceId, accountId));
    return tag(await this.#repo(accountId).all(workspaceId), accountId);
  }

  async liveNames(workspaceId: string, accountId: string): Promise<string[]> {
    await this.builder.usable(indexScope(workspaceId, accountId));
    return this.#repo(accountId).liveNames(workspaceId);
  }

  /**
   * Live zones matching `query` (see ZoneIndexRepository.search). A workspace without an index yet
   * waits for its build at most `waitMs` (a picker must answer Slack within 3 s): then nothing.
   */
  async search(
    workspaceId: string,
    query: string,
    options: { limit: number; waitMs?: number },
    accountId: string,
  ): Promise<Zone[]> {
    if (!(await this.builder.usable(indexScope(workspaceId, accountId), options.waitMs))) return [];
    const trimmed = query.trim();
    return tag(
      await this.#repo(accountId).search(workspaceId, zoneKey(trimmed), trimmed, options.limit),
      accountId,
    );
  }

  /** The account key's generation, read before a CDN call whose result goes into the index. */
  async generation(workspaceId: string, accountId: string): Promise<string | undefined> {
    return (await this.#repo(accountId).view(workspaceId))?.generation;
  }

  /**
   * The bot created a zone with the key of `generation`: it is in the index at once (when the CDN
   * returned it), and the index is refreshed in the background.
   */
  async created(
    workspaceId: string,
    generation: string,
    zone: CdnZone | undefined,
    accountId: string,
  ): Promise<void> {
    if (zone) await this.#repo(accountId).upsert(workspaceId, generation, [zone]);
    this.refreshSoon(workspaceId, accountId);
  }

  /** A key was saved (its old index is gone with it): the new one is built in the background. */
  keyChanged(workspaceId: string, accountId: string): void {
    this.builder.keyChanged(indexScope(workspaceId, accountId));
  }

  /** Refreshes the index in the background, now or, if one is under way, right after it. */
  refreshSoon(workspaceId: string, accountId: string): void {
    this.builder.refreshSoon(indexScope(workspaceId, accountId));
  }

  forget(workspaceId: string, accountId: string): void {
    this.builder.forget(indexScope(workspaceId, accountId));
  }

  #repo(accountId: string) {
    return this.#store.zoneIndex.forAccount(accountId);
  }

  /** Resolves once no build, refresh or probe runs in this process. */
  idle(): Promise<void> {
    return this.builder.idle();
  }
}

/** The zones of an account carry its id. */
function tag(zones: CdnZone[], accountId: string): Zone[] {
  return zones.map((zone) => ({ ...zone, accountId }));
}
