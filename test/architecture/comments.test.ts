// Comments explain the code, not its history: no issue numbers in src, and short file headers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under src, with its lines. */
const src = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join('src', name))
  .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n') }));

/** Where the project's tracker is cited: "issue 29", "issue #30", "item 6 of", "session 4". */
const HISTORY = /issue ?#?[0-9]+|item [0-9]+ of|session [0-9]+/i;

/** The most lines a file's opening comment may take: a line or two on what it is for, then code. */
const HEADER_LINES = 7;

describe('comments in src', () => {
  it('name no issue, item or session of the tracker', () => {
    const cited = src.flatMap(({ path, lines }) =>
      lines.flatMap((line, i) => (HISTORY.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(cited).toEqual([]);
  });

  it(`open each file with what it is for, in at most ${HEADER_LINES} lines`, () => {
    const header = (lines: string[]) => {
      const end = lines.findIndex((line) => !line.startsWith('//'));
      return end === -1 ? lines.length : end;
    };
    expect(src.filter(({ lines }) => header(lines) === 0).map(({ path }) => path)).toEqual([]);
    const long = src
      .filter(({ lines }) => header(lines) > HEADER_LINES)
      .map(({ path, lines }) => `${path}: ${header(lines)} lines`);
    expect(long).toEqual([]);
  });
});
