// Step results that end together are written together: one statement for a purge's batches that
// end in the same moment, each result stored (or failed) with the write that carried it.
import { describe, expect, it } from 'vitest';
import { StepWrites } from '../../src/jobs/step-writes.js';

/** A write that records what it was given and waits until the test lets it answer. */
function heldWrites() {
  const writes: number[][] = [];
  const answers: Array<(closed: Set<number> | Error) => void> = [];
  const writer = new StepWrites(async (results) => {
    writes.push(results.map((r) => r.idx));
    const answer = await new Promise<Set<number> | Error>((resolve) => answers.push(resolve));
    if (answer instanceof Error) throw answer;
    return answer;
  });
  const answered = async (n: number) => {
    while (answers.length < n) await new Promise((resolve) => setImmediate(resolve));
  };
  return { writer, writes, answers, answered };
}

describe('StepWrites', () => {
  it('writes the results of one turn together, and those that end meanwhile in the next write', async () => {
    const { writer, writes, answers, answered } = heldWrites();
    const first = [writer.add(0, 'a'), writer.add(1, 'b'), writer.add(2, 'c')];
    await answered(1);
    // Ended while the first write was under way: they wait for it, then go in one write.
    const later = [writer.add(3, 'd'), writer.add(4, 'e')];
    answers[0]?.(new Set([0, 1, 2]));
    expect(await Promise.all(first)).toEqual([true, true, true]);
    await answered(2);
    // A step the write did not close (held elsewhere now) says so.
    answers[1]?.(new Set([3]));
    expect(await Promise.all(later)).toEqual([true, false]);
    expect(writes).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
  });

  it('fails every result of a write that failed, and writes the next ones anew', async () => {
    const { writer, writes, answers, answered } = heldWrites();
    const failed = [writer.add(0, 'a'), writer.add(1, 'b')];
    await answered(1);
    answers[0]?.(new Error('database unavailable'));
    await expect(Promise.all(failed)).rejects.toThrow('database unavailable');
    const next = writer.add(2, 'c');
    await answered(2);
    answers[1]?.(new Set([2]));
    expect(await next).toBe(true);
    expect(writes).toEqual([[0, 1], [2]]);
  });
});
