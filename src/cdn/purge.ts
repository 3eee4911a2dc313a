// Purge planning and execution: split into spec-safe requests, run them boundedly, report per chunk.
import pLimit from 'p-limit';
import { type CdnError, isCdnError } from './errors.js';
import { outcomeUnknown } from './outcome.js';

/** What to purge. Files and tags may be given together; they are never sent together. */
export type PurgeTarget =
  | { everything: true }
  | { files?: readonly string[]; tags?: readonly string[] };

export type PurgeKind = 'everything' | 'files' | 'tags';

export interface PurgeBatch {
  kind: PurgeKind;
  items: string[];
}

export type PurgeBatchResult = PurgeBatch &
  ({ ok: true; purgeId?: string } | { ok: false; error: CdnError });

export interface PurgeProgress {
  /** Items (URLs or tags) whose batch has finished, successfully or not. */
  done: number;
  total: number;
  failed: number;
}

export interface PurgeReport {
  ok: boolean;
  /** In request order. */
  results: PurgeBatchResult[];
  /** What to resend to retry just the failures: every item not confirmed purged. */
  failed: { files: string[]; tags: string[] };
  /**
   * Of `failed`, what may have been purged all the same (outcomeUnknown: the CDN did not answer):
   * said as not confirmed, never as failed.
   */
  unknown: { files: string[]; tags: string[] };
  purgeIds: string[];
}

/**
 * The spec shows no rule for combining purge_everything, files and tags, so each request carries
 * exactly one of them; files and tags are de-duplicated and cut into batches of `batchSize`.
 */
export function planPurge(target: PurgeTarget, batchSize: number): PurgeBatch[] {
  if ('everything' in target) return [{ kind: 'everything', items: [] }];
  return [
    ...chunk('files' as const, unique(target.files ?? []), batchSize),
    ...chunk('tags' as const, unique(target.tags ?? []), batchSize),
  ];
}

export function bodyFor(batch: PurgeBatch): Record<string, unknown> {
  switch (batch.kind) {
    case 'everything':
      return { purge_everything: true };
    case 'files':
      return { files: batch.items };
    case 'tags':
      return { tags: batch.items };
  }
}

export async function runPurge(
  batches: PurgeBatch[],
  send: (batch: PurgeBatch) => Promise<{ purgeId?: string }>,
  options: { concurrency: number; onProgress?: (progress: PurgeProgress) => void },
): Promise<PurgeReport> {
  const limit = pLimit(options.concurrency);
  const total = batches.reduce((sum, batch) => sum + Math.max(1, batch.items.length), 0);
  let done = 0;
  let failed = 0;
  const results = await Promise.all(
    batches.map((batch) =>
      limit(async (): Promise<PurgeBatchResult> => {
        let result: PurgeBatchResult;
        try {
          const { purgeId } = await send(batch);
          result = purgeId === undefined ? { ...batch, ok: true } : { ...batch, ok: true, purgeId };
        } catch (error) {
          // Anything not a CdnError (a caller's abort) ends the whole purge.
          if (!isCdnError(error)) throw error;
          result = { ...batch, ok: false, error };
          failed += Math.max(1, batch.items.length);
        }
        done += Math.max(1, batch.items.length);
        options.onProgress?.({ done, total, failed });
        return result;
      }),
    ),
  );
  return reportOf(results);
}

/**
 * The report of batches' results, in request order: what failed (to retry), what of that may have
 * been purged all the same, and the purge ids.
 */
export function reportOf(results: PurgeBatchResult[]): PurgeReport {
  const failedItems = { files: [] as string[], tags: [] as string[] };
  const unknownItems = { files: [] as string[], tags: [] as string[] };
  const purgeIds: string[] = [];
  for (const result of results) {
    if (result.ok && result.purgeId !== undefined) purgeIds.push(result.purgeId);
    if (result.ok || result.kind === 'everything') continue;
    failedItems[result.kind].push(...result.items);
    if (outcomeUnknown(result.error)) unknownItems[result.kind].push(...result.items);
  }
  return {
    ok: results.every((r) => r.ok),
    results,
    failed: failedItems,
    unknown: unknownItems,
    purgeIds,
  };
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

function chunk<K extends PurgeKind>(kind: K, items: string[], size: number) {
  const batches: PurgeBatch[] = [];
  for (let start = 0; start < items.length; start += size) {
    batches.push({ kind, items: items.slice(start, start + size) });
  }
  return batches;
}
