// How a purge of URLs or tags asked over the API runs: as the durable purge job, one per purge
// (its key), announced in the token's channel or one that has the zone as its default; and how
// that job's progress reaches the purge's record.
import { outcomeUnknown } from '../../cdn/outcome.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { ApiPurge } from '../../store/api-purges.js';
import type { Store } from '../../store/index.js';
import type { PurgeService } from '../purge/purge-plan.js';
import type { PurgeProgressView } from '../purge/purge-status.js';
import type { PurgeGroup } from '../purge/purge-targets.js';
import { type ApiToken, tokenActorId } from './api-tokens.js';

/** The job key of an API purge of URLs or tags: one job per purge, whoever enqueues it. */
export const apiPurgeJobKey = (purgeId: string) => `api-purge:${purgeId}`;
/** How many of a purge's URLs (or tags) its Slack message shows. */
const SAMPLE_ITEMS = 3;

/** Starts the purge's job (stored once under its key, whoever starts it). */
export async function startApiPurgeJob(
  deps: { store: Store; purges: PurgeService; clock: Clock },
  token: ApiToken,
  purge: ApiPurge,
  group: PurgeGroup,
  warm: boolean,
): Promise<void> {
  // Announced in the token's channel, else a channel that has the zone as its default; with
  // neither, nowhere (the API's answer is all there is).
  const channelId = token.channelId ?? (await boundChannel(deps.store, purge));
  await deps.purges.startForApi(token.workspaceId, group, {
    apiPurgeId: purge.id,
    sample: [...group.files, ...group.tags.map((tag) => `tag:${tag}`)].slice(0, SAMPLE_ITEMS),
    actorId: tokenActorId(token),
    key: apiPurgeJobKey(purge.id),
    ...(warm ? { warm: true } : {}),
    replyTo: {
      userId: tokenActorId(token),
      ...(channelId ? { channelId } : {}),
      issuedAt: deps.clock.now(),
      visibility: 'in_channel',
      channelOnly: true,
    },
  });
}

/**
 * A channel that has the purge's zone, of its account, as its default (`/cdn use`), if any: two
 * accounts may hold zones of the same id.
 */
export async function boundChannel(store: Store, purge: ApiPurge): Promise<string | undefined> {
  const { workspaceId } = purge;
  // Only the zone's current bindings are read, however many channels have a default.
  const [first] = await store.channelBindings.forZone(
    workspaceId,
    purge.accountId,
    purge.zoneId,
    1,
  );
  return first?.channelId;
}

/**
 * How an API purge job's progress reaches its record: running, done/total, and the outcome
 * (a batch whose outcome the CDN never confirmed makes it `unknown`, not `failed`). `written`
 * hears of each change stored.
 */
export function apiPurgeProgress(
  store: Store,
  purgeId: string,
  written: (purge: ApiPurge) => void,
): PurgeProgressView {
  const update = async (change: Parameters<Store['apiPurges']['update']>[1]) => {
    const changed = await store.apiPurges.update(purgeId, change);
    if (changed) written(changed);
  };
  return {
    started: (status) => update({ status: 'running', done: status.done, total: status.total }),
    progressed: (status) => update({ done: status.done, total: status.total }),
    paused: async () => {},
    finished: async ({ runs, error }) => {
      const run = runs[0];
      if (!run) {
        await update({ status: 'failed', error: describe(error) ?? 'not purged' });
        return;
      }
      const failures = run.report.results.filter((r) => !r.ok);
      const done = run.report.results
        .filter((r) => r.ok)
        .reduce((sum, r) => sum + r.items.length, 0);
      const unknown = failures.some((r) => !r.ok && outcomeUnknown(r.error));
      const first = failures[0];
      await update({
        status: failures.length === 0 ? 'succeeded' : unknown ? 'unknown' : 'failed',
        done,
        error:
          first && !first.ok
            ? `${failures.length} of ${run.report.results.length} requests to the CDN ${
                unknown ? 'were not confirmed' : 'failed'
              } (${first.error.code})`
            : null,
      });
    },
  };
}

function describe(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  if (error instanceof AppError) return error.problem.code;
  if (error && typeof error === 'object' && 'code' in error) return String(error.code);
  return 'not purged';
}
