// vitest's own order, except that the files named here start first within their group: in a fresh
// clone vitest has no durations yet and starts larger files first, which put the longest fault
// file (about 100 s) last, alone, after every other had finished.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files known to run longest, longest first (paths from the repository's root). */
export const LONGEST = ['test/fault/watch.fault.test.ts'];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = LONGEST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return i === -1 ? LONGEST.length : i;
    };
    // Stable: groups keep their order (sequence.groupOrder sorts first), and so does the rest.
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort(
        (a, b) =>
          a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder ||
          rank(a.spec) - rank(b.spec) ||
          a.i - b.i,
      )
      .map(({ spec }) => spec);
  }
}
