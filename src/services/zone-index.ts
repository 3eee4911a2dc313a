// Each workspace's zone index as readers use it: find a zone by id or name, list or search them,
// and probe the end of the CDN's list for a name the index does not know before that name is
// "not found". An index is built, refreshed and probed by ZoneIndexBuilder (zone-index-builder.ts),
// which this hands the background work to. See docs/zone-index.md.
import type { Zone } from '../cdn/schemas.js';
import type { Store } from '../store/index.js';
import { zoneKey } from '../zone-names.js';
import { ZoneIndexBuilder, type ZoneIndexOptions } from './zone-index-builder.js';

export class ZoneIndex {
  readonly #store: Store;
  /** Builds and refreshes the indexes; its maintenance loop is started by the composition root. */
  readonly builder: ZoneIndexBuilder;

  constructor(options: ZoneIndexOptions) {
    this.#store = options.store;
    this.builder = new ZoneIndexBuilder(options);
  }

  /** Zones whose id or name is `nameOrId`, from the index (built first if there is none). */
  async find(workspaceId: string, nameOrId: string): Promise<Zone[]> {
    await this.builder.usable(workspaceId);
    return this.#store.zoneIndex.find(workspaceId, nameOrId.trim(), zoneKey(nameOrId));
  }

  /**
   * The same after a targeted refresh: the pages past the end of the index (where the CDN puts
   * zones created since), or the whole list when the CDN's total says zones changed elsewhere.
   */
  async probe(workspaceId: string, nameOrId: string): Promise<Zone[]> {
    await this.builder.probe(workspaceId);
    return this.#store.zoneIndex.find(workspaceId, nameOrId.trim(), zoneKey(nameOrId));
  }

  async all(workspaceId: string): Promise<Zone[]> {
    await this.builder.usable(workspaceId);
    return this.#store.zoneIndex.all(workspaceId);
  }

  async liveNames(workspaceId: string): Promise<string[]> {
    await this.builder.usable(workspaceId);
    return this.#store.zoneIndex.liveNames(workspaceId);
  }

  /**
   * Live zones matching `query` (see ZoneIndexRepository.search). A workspace without an index yet
   * waits for its build at most `waitMs` (a picker must answer Slack within 3 s): then nothing.
   */
  async search(
    workspaceId: string,
    query: string,
    options: { limit: number; waitMs?: number },
  ): Promise<Zone[]> {
    if (!(await this.builder.usable(workspaceId, options.waitMs))) return [];
    const trimmed = query.trim();
    return this.#store.zoneIndex.search(workspaceId, zoneKey(trimmed), trimmed, options.limit);
  }

  /** The workspace's key generation, read before a CDN call whose result goes into the index. */
  async generation(workspaceId: string): Promise<string | undefined> {
    return (await this.#store.zoneIndex.view(workspaceId))?.generation;
  }

  /**
   * The bot created a zone with the key of `generation`: it is in the index at once (when the CDN
   * returned it), and the index is refreshed in the background.
   */
  async created(workspaceId: string, generation: string, zone: Zone | undefined): Promise<void> {
    if (zone) await this.#store.zoneIndex.upsert(workspaceId, generation, [zone]);
    this.refreshSoon(workspaceId);
  }

  /** A key was saved (its old index is gone with it): the new one is built in the background. */
  keyChanged(workspaceId: string): void {
    this.builder.keyChanged(workspaceId);
  }

  /** Refreshes the index in the background, now or, if one is under way, right after it. */
  refreshSoon(workspaceId: string): void {
    this.builder.refreshSoon(workspaceId);
  }

  forget(workspaceId: string): void {
    this.builder.forget(workspaceId);
  }

  /** Resolves once no build, refresh or probe runs in this process. */
  idle(): Promise<void> {
    return this.builder.idle();
  }
}
