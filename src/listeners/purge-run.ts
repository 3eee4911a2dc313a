// Runs planned purge groups with one message that shows progress, then the result.
import { errorMessage } from '../blocks/errors.js';
import { purgeProgressMessage, purgeResultMessage } from '../blocks/purge.js';
import type { AppDeps } from '../deps.js';
import { AppError } from '../errors.js';
import type { PurgeRun } from '../services/purge.js';
import type { PurgeGroup } from '../services/purge-targets.js';
import type { MessageTarget } from '../slack/message-target.js';

/** Progress edits at a third and two thirds: with the first post and the result, within a response_url's 5 uses. */
const MILESTONES = 3;
/** Below this many CDN requests, progress would flash by: only the result is shown. */
const PROGRESS_MIN_REQUESTS = 4;

export async function runPurges(
  deps: AppDeps,
  workspaceId: string,
  groups: PurgeGroup[],
  actorId: string,
  target: MessageTarget,
  options: { retryOf?: string } = {},
): Promise<PurgeRun[]> {
  const files = groups.reduce((sum, g) => sum + g.files.length, 0);
  const tags = groups.reduce((sum, g) => sum + g.tags.length, 0);
  const total = files + tags;
  const zoneNames = groups.map((g) => g.zone.name);
  const progress = (done: number) =>
    purgeProgressMessage({ zoneNames, files, tags, actorId, done, total });
  await target.post(progress(0));

  const showProgress = total >= PROGRESS_MIN_REQUESTS * 30;
  let reached = 0;
  let finishedBefore = 0;
  let edits: Promise<void> = Promise.resolve();
  const runs: PurgeRun[] = [];
  try {
    for (const group of groups) {
      const run = await deps.purges.run(workspaceId, group, actorId, {
        ...(options.retryOf ? { retryOf: options.retryOf } : {}),
        onProgress: ({ done }) => {
          const overall = finishedBefore + done;
          const milestone = Math.floor((overall * MILESTONES) / total);
          if (!showProgress || milestone <= reached || milestone >= MILESTONES) return;
          reached = milestone;
          // Edits run one after another, and a failed edit never stops the purge.
          edits = edits
            .then(() => target.replace(progress(overall)))
            .catch((error: unknown) =>
              deps.logger.warn({ err: error }, 'purge progress not updated'),
            );
        },
      });
      finishedBefore += group.files.length + group.tags.length;
      runs.push(run);
    }
  } catch (error) {
    // The channel already saw "Purging…": it must not be left saying so.
    if (!(error instanceof AppError)) deps.logger.error({ err: error }, 'purge run failed');
    await edits;
    await target.replace(
      runs.length > 0 ? purgeResultMessage(runs, actorId) : errorMessage(error, 'purging'),
    );
    if (runs.length > 0) await target.post(errorMessage(error, 'purging the remaining zones'));
    return runs;
  }
  await edits;
  await target.replace(purgeResultMessage(runs, actorId));
  return runs;
}
