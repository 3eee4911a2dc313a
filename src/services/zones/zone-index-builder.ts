// Keeps each workspace's zone index: built from the CDN's zone list (the first page, the second,
// then the rest a few at a time) as soon as a key is saved, kept in the store for every replica and
// restart, refreshed in the background once stale (each refresh a job held with the job runner's
// lease, so that two replicas do not refresh one index at once), and probed at the end of the list
// for a name it does not know. Reads go through ZoneIndex (zone-index.ts). See docs/zone-index.md.
// Over 400 lines: builds, background refreshes and probes share one per-process bookkeeping of the
// runs under way (joined, queued, awaited by idle()), which splitting would spread over files.
import pLimit from 'p-limit';
import { type CdnClient, MAX_PER_PAGE, type ZonePage } from '../../cdn/client.js';
import { CdnError } from '../../cdn/errors.js';
import type { CdnZone } from '../../cdn/schemas.js';
import { type Clock, within } from '../../clock.js';
import { AppError, logLevelOf } from '../../errors.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { IndexView } from '../../store/zone-index.js';
import type { CdnAccess } from '../accounts/cdn-access.js';

export const DEFAULT_ZONE_INDEX_REFRESH_MS = 300_000;
export const DEFAULT_ZONE_INDEX_CONCURRENCY = 4;
/** Pages past the index's end a probe reads before it gives up and lists everything instead. */
const PROBE_PAGES = 3;
/** Indexes a round of the recurring refresh refreshes at once, and looks at per round. */
const REFRESH_PARALLEL = 2;
const REFRESH_BATCH = 50;

export interface ZoneIndexOptions {
  store: Store;
  cdn: CdnAccess;
  clock: Clock;
  logger: Logger;
  /** The CDN client's bounds (CDN_MAX_PAGES, CDN_OPERATION_TIMEOUT_MS), kept by a build as a whole. */
  limits: { maxPages: number; operationTimeoutMs: number };
  /** ZONE_INDEX_REFRESH_MS: past this age an index is refreshed in the background. */
  refreshMs?: number;
  /** ZONE_INDEX_CONCURRENCY: page requests in flight at once while a build lists the zones. */
  concurrency?: number;
  /** Holds a refresh with the runner's lease: one replica refreshes an index at a time. */
  runner: Pick<JobRunner, 'runHeld'>;
}

/** The kind of the job that holds an index's refreshes: never claimed by the runner's loop. */
export const ZONE_INDEX_JOB = 'zone_index';

/** The key of the job holding one account's index refresh. */
export function zoneIndexJobKey(workspaceId: string, accountId: string): string {
  return `zone-index:${workspaceId}:${accountId}`;
}

/** A whole listing, as one build read it. */
interface Listing {
  zones: CdnZone[];
  requests: number;
}

type Mode = 'foreground' | 'background';

/**
 * Which index a run is for, as one string (the key of this process's bookkeeping): the
 * workspace's and the account's ids.
 */
export function indexScope(workspaceId: string, accountId: string): string {
  return `${workspaceId}${SCOPE_SEPARATOR}${accountId}`;
}

const SCOPE_SEPARATOR = '\u001f';

function unscope(scope: string): { workspaceId: string; accountId: string } {
  const at = scope.indexOf(SCOPE_SEPARATOR);
  return { workspaceId: scope.slice(0, at), accountId: scope.slice(at + 1) };
}

const workspaceOf = (scope: string): string => unscope(scope).workspaceId;

export class ZoneIndexBuilder {
  readonly refreshMs: number;
  readonly #runner: ZoneIndexOptions['runner'];
  readonly #store: Store;
  readonly #cdn: CdnAccess;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #limits: ZoneIndexOptions['limits'];
  readonly #concurrency: number;
  /** The build or refresh under way in this process, one per workspace. */
  readonly #running = new Map<string, { generation: string; done: Promise<void> }>();
  /** Workspaces to refresh again once the refresh under way ends (a zone was created meanwhile). */
  readonly #again = new Set<string>();
  /** Refreshes asked for and not started yet (their key is being read). */
  readonly #scheduled = new Set<Promise<void>>();
  /** The probe under way, one per workspace: misses at the same time share it. */
  readonly #probes = new Map<string, Promise<void>>();
  /** Aborted when the process stops (the recurring refresh's signal): background listings stop with it. */
  #stopping: AbortSignal | undefined;

  constructor(options: ZoneIndexOptions) {
    this.#store = options.store;
    this.#cdn = options.cdn;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#limits = options.limits;
    this.refreshMs = options.refreshMs ?? DEFAULT_ZONE_INDEX_REFRESH_MS;
    this.#concurrency = options.concurrency ?? DEFAULT_ZONE_INDEX_CONCURRENCY;
    this.#runner = options.runner;
    if (!(this.refreshMs >= 1_000) || !(this.#concurrency >= 1)) {
      throw new TypeError('ZoneIndex: refreshMs must be at least 1000 and concurrency at least 1');
    }
  }

  /** After a failed refresh, none is tried in the background for this long. */
  get retryMs(): number {
    return Math.min(this.refreshMs, 60_000);
  }

  /**
   * A targeted refresh: the pages past the end of the index (where the CDN puts zones created
   * since), or the whole list when the CDN's total says zones changed elsewhere.
   */
  async probe(scope: string): Promise<void> {
    let probe = this.#probes.get(scope);
    if (!probe) {
      probe = this.#probe(scope);
      this.#probes.set(scope, probe);
      void probe
        .catch(() => undefined)
        .finally(() => {
          if (this.#probes.get(scope) === probe) this.#probes.delete(scope);
        });
    }
    await probe;
  }

  /** A key was saved (its old index is gone with it): the new one is built in the background. */
  keyChanged(scope: string): void {
    this.#again.delete(scope);
    this.refreshSoon(scope);
  }

  /** Refreshes the index in the background, now or, if one is under way, right after it. */
  refreshSoon(scope: string): void {
    if (this.#running.has(scope)) {
      this.#again.add(scope);
      return;
    }
    const scheduled: Promise<void> = this.#repo(scope)
      .view(workspaceOf(scope))
      .then((view) => {
        if (view) return this.#run(scope, view.generation, 'background');
      })
      .catch((error: unknown) => this.#failed(scope, error, 'background'))
      .finally(() => this.#scheduled.delete(scheduled));
    this.#scheduled.add(scheduled);
  }

  forget(scope: string): void {
    this.#again.delete(scope);
  }

  /** Resolves once no build, refresh or probe runs in this process. */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [
        ...[...this.#running.values()].map((entry) => entry.done),
        ...this.#scheduled,
        ...this.#probes.values(),
      ];
      if (pending.length === 0) return;
      await Promise.all(pending.map((p) => p.catch(() => undefined)));
      // A finished refresh may schedule another (a zone created meanwhile): look again.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * One round of the recurring refresh (src/jobs/recurring.ts): refreshes the indexes that are
   * due: never built (the workspaces known at the migration), or older than the refresh interval.
   * `signal` aborts when the process stops: background listings stop with it.
   */
  async refreshDue(signal: AbortSignal): Promise<void> {
    this.#stopping = signal;
    const now = this.#clock.now();
    const due = (
      await this.#store.zoneIndex.due(now - this.refreshMs, now - this.retryMs, REFRESH_BATCH)
    ).map(({ workspaceId, accountId }) => indexScope(workspaceId, accountId));
    const limit = pLimit(REFRESH_PARALLEL);
    await Promise.all(
      due.map((scope) =>
        limit(async () => {
          if (signal.aborted || this.#running.has(scope)) return;
          const view = await this.#repo(scope).view(workspaceOf(scope));
          if (view) await this.#run(scope, view.generation, 'background');
        }).catch((error: unknown) => this.#failed(scope, error, 'background')),
      ),
    );
  }

  /**
   * The index's view once it is usable: built for the current key. Only a workspace without one
   * waits (for the build); a stale one is used as it is and refreshed in the background. With
   * `waitMs`, undefined when the build takes longer.
   */
  async usable(scope: string, waitMs?: number): Promise<IndexView | undefined> {
    const until = waitMs === undefined ? undefined : this.#clock.now() + waitMs;
    for (let attempt = 0; attempt < 3; attempt++) {
      const view = await this.#repo(scope).view(workspaceOf(scope));
      if (!view) throw new AppError({ code: 'no_api_key' });
      if (this.ready(scope, view)) return view;
      const build = this.#run(scope, view.generation, 'foreground');
      if (until === undefined) await build;
      else if (
        !(await within(
          this.#clock,
          until - this.#clock.now(),
          build.then(() => true),
          () => false,
        ))
      )
        return undefined;
    }
    // Each build ended with the key changed again: not worth a fourth.
    throw new Error('the CDN key kept changing while its zone index was built');
  }

  /**
   * Whether the index may be read as `view` (read by the caller) shows it: built for the current
   * key, and then refreshed in the background if stale. False: no key, or not built yet (`usable`
   * says which, or builds it).
   */
  ready(scope: string, view: IndexView | undefined): boolean {
    if (view?.state?.refreshedAt == null) return false;
    this.#refreshIfStale(scope, view);
    return true;
  }

  #refreshIfStale(scope: string, view: IndexView): void {
    const state = view.state;
    const now = this.#clock.now();
    if (!state || state.refreshedAt === null || now - state.refreshedAt < this.refreshMs) return;
    if (state.failedAt !== null && now - state.failedAt < this.retryMs) return;
    if (this.#running.has(scope)) return;
    void this.#run(scope, view.generation, 'background').catch(() => undefined);
  }

  /**
   * Builds or refreshes the index for `generation`, or joins the run of this process already doing
   * so. A background run leaves it to a replica holding its job; a foreground one (a reader is
   * waiting, there is no index) lists anyway.
   */
  #run(scope: string, generation: string, mode: Mode): Promise<void> {
    const current = this.#running.get(scope);
    if (current && current.generation === generation) return current.done;
    const done = (async () => {
      // Another key's run writes nothing once it ends; this one starts after it.
      if (current) await current.done.catch(() => undefined);
      await this.#refresh(scope, generation, mode);
    })();
    const entry = { generation, done };
    this.#running.set(scope, entry);
    void done
      .catch((error: unknown) => this.#failed(scope, error, mode))
      .finally(() => {
        if (this.#running.get(scope) === entry) this.#running.delete(scope);
        if (this.#again.delete(scope)) this.refreshSoon(scope);
      });
    return done;
  }

  /**
   * Held with the runner's lease under the index's key (released, due again, once it ends): a
   * background refresh held elsewhere is left to that replica.
   */
  async #refresh(scope: string, generation: string, mode: Mode): Promise<void> {
    const { workspaceId, accountId } = unscope(scope);
    const held = await this.#runner.runHeld(
      {
        workspaceId,
        kind: ZONE_INDEX_JOB,
        key: zoneIndexJobKey(workspaceId, accountId),
        payload: { accountId },
      },
      () => this.#list(scope, generation, mode, true),
      () => this.#clock.now(),
    );
    if (!held.ran && mode === 'foreground') await this.#list(scope, generation, mode, false);
  }

  /** Lists every zone and replaces the index; a failure is recorded by the refresh's holder. */
  async #list(scope: string, generation: string, mode: Mode, holder: boolean): Promise<void> {
    const started = this.#clock.now();
    const index = this.#repo(scope);
    const workspaceId = workspaceOf(scope);
    try {
      const client = await this.#clientFor(scope, generation);
      if (!client) return;
      const signal = mode === 'background' ? this.#stopping : undefined;
      const listing = await this.#listAll(client, signal);
      const result = await index.replace(
        workspaceId,
        generation,
        listing.zones,
        listing.zones.length,
      );
      this.#logger.info(
        {
          ...unscope(scope),
          mode,
          zones: listing.zones.length,
          requests: listing.requests,
          ms: this.#clock.now() - started,
          ...result,
        },
        result.written ? 'zone index refreshed' : 'zone index not written: the key changed',
      );
    } catch (error) {
      // A stop is no failure: the next process refreshes.
      const stopped = mode === 'background' && this.#stopping?.aborted === true;
      if (holder && !stopped)
        await index.failed(workspaceId, generation, describe(error)).catch(() => undefined);
      throw error;
    }
  }

  async #probe(scope: string): Promise<void> {
    const view = await this.usable(scope);
    const state = view?.state;
    if (!view || !state) return;
    const client = await this.#clientFor(scope, view.generation);
    if (!client) return;
    const deadline = this.#clock.now() + this.#limits.operationTimeoutMs;
    // In creation order, zones created since the index was built follow the ones it holds.
    const from = Math.floor(state.cdnTotal / MAX_PER_PAGE) + 1;
    const seen: CdnZone[] = [];
    let total = 0;
    let requests = 0;
    for (let page = from; ; page++) {
      requests++;
      const result = await client.listZones({ page, perPage: MAX_PER_PAGE }, { deadline });
      if (result.page !== page) break;
      seen.push(...result.zones);
      total = result.total;
      if (result.zones.length < MAX_PER_PAGE || page * MAX_PER_PAGE >= result.total) break;
      if (page - from + 1 >= PROBE_PAGES) {
        total = Number.NaN;
        break;
      }
    }
    const indexed = await this.#repo(scope).has(
      workspaceOf(scope),
      seen.map((zone) => zone.id),
    );
    const added = seen.filter((zone) => !indexed.has(zone.id)).length;
    this.#logger.debug(
      { ...unscope(scope), from, requests, total, known: state.cdnTotal, added },
      'zone index probed',
    );
    if (total - state.cdnTotal === added) {
      await this.#repo(scope).upsert(workspaceOf(scope), view.generation, seen, total);
      return;
    }
    // Zones appeared or went elsewhere than at the end: only the whole list tells.
    await this.#run(scope, view.generation, 'foreground');
  }

  /** A client for the key of `generation`; undefined when the key changed since. */
  async #clientFor(scope: string, generation: string): Promise<CdnClient | undefined> {
    const { workspaceId, accountId } = unscope(scope);
    const credential = await this.#store.accounts.credential(workspaceId, accountId);
    if (!credential) throw new AppError({ code: 'no_api_key' });
    if (credential.generation !== generation) return undefined;
    return this.#cdn.clientWith(credential.apiKey, credential.baseUrl, 'zones');
  }

  /** The repository of the scope's account index. */
  #repo(scope: string) {
    return this.#store.zoneIndex.forAccount(unscope(scope).accountId);
  }

  /**
   * Every zone: the first page, the second alone (a server that ignores `page` is caught before
   * pages go out in parallel), then the pages the first page's total announced, `concurrency` at a
   * time, then page by page while the last was full and the total grew (zones created meanwhile).
   * Within one operation deadline and CDN_MAX_PAGES, with the client's checks of a runaway list.
   */
  async #listAll(client: CdnClient, stop?: AbortSignal): Promise<Listing> {
    const { maxPages, operationTimeoutMs } = this.#limits;
    const abort = new AbortController();
    const onStop = () => abort.abort(stop?.reason);
    if (stop?.aborted) onStop();
    stop?.addEventListener('abort', onStop, { once: true });
    const options = { deadline: this.#clock.now() + operationTimeoutMs, signal: abort.signal };
    let requests = 0;
    const fetchPage = async (page: number): Promise<ZonePage> => {
      if (page > maxPages) {
        throw refuse(`The zone list ran past ${maxPages} pages, the most the bot reads`);
      }
      requests++;
      const result = await client.listZones({ page, perPage: MAX_PER_PAGE }, options);
      if (result.page !== page) {
        throw refuse(
          `The CDN answered page ${result.page} when asked for page ${page} of the zone list: it seems to ignore paging`,
        );
      }
      return result;
    };
    try {
      const first = await fetchPage(1);
      const firstTotal = first.total;
      const most = maxPages * MAX_PER_PAGE;
      if (firstTotal > most) {
        throw refuse(
          `The CDN lists ${count(firstTotal)} zones, more than the ${count(most)} (${maxPages} pages) the bot reads`,
        );
      }
      const zones = new Map(first.zones.map((zone) => [zone.id, zone]));
      const accept = (result: ZonePage) => {
        if (result.total > firstTotal + MAX_PER_PAGE) {
          // A few zones created while we page are fine; a page's worth more each time is not.
          throw refuse(
            `The zone list kept growing while the bot read it (${count(firstTotal)} zones, then ${count(result.total)})`,
          );
        }
        if (result.zones.length > 0 && result.zones.every((zone) => zones.has(zone.id))) {
          throw refuse(
            `The CDN sent the same zones again for page ${result.page} of the zone list: it seems to ignore paging`,
          );
        }
        for (const zone of result.zones) if (!zones.has(zone.id)) zones.set(zone.id, zone);
      };
      const more = (last: ZonePage) =>
        last.zones.length === MAX_PER_PAGE && last.page * MAX_PER_PAGE < last.total;
      let last = first;
      if (more(last)) {
        last = await fetchPage(2);
        accept(last);
        const announced = Math.min(maxPages, Math.ceil(firstTotal / MAX_PER_PAGE));
        if (more(last) && announced > 2) {
          const limit = pLimit(this.#concurrency);
          const pages = Array.from({ length: announced - 2 }, (_, i) => i + 3);
          const results = await Promise.all(
            pages.map((page) =>
              limit(async () => {
                abort.signal.throwIfAborted();
                return fetchPage(page);
              }).catch((error: unknown) => {
                // The first failure is the answer: the pages still waiting are not sent.
                if (!abort.signal.aborted) abort.abort(error);
                throw error;
              }),
            ),
          );
          for (const result of results) accept(result);
          last = results.at(-1) ?? last;
        }
        while (more(last)) {
          last = await fetchPage(last.page + 1);
          accept(last);
        }
      }
      return { zones: [...zones.values()], requests };
    } finally {
      stop?.removeEventListener('abort', onStop);
    }
  }

  #failed(scope: string, error: unknown, mode: Mode): void {
    // A foreground failure reaches the reader, who is told; a background one only the logs.
    if (mode === 'foreground') return;
    if (this.#stopping?.aborted) {
      this.#logger.info(unscope(scope), 'zone index refresh interrupted by a stop');
      return;
    }
    const expected = error instanceof CdnError || error instanceof AppError;
    this.#logger[expected ? 'warn' : logLevelOf(error)](
      { err: error, ...unscope(scope) },
      'zone index not refreshed',
    );
  }
}

function refuse(message: string): CdnError {
  return new CdnError('unexpected_response', message, { operation: 'GET /zones' });
}

/** What a failed refresh is recorded as: a code and the CDN's words, never a secret. */
function describe(error: unknown): string {
  if (error instanceof CdnError) return `${error.code}: ${error.message}`;
  if (error instanceof AppError) return error.code;
  return (error as Error)?.name ?? 'Error';
}

/** A count as a person reads it: 10,000. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}
