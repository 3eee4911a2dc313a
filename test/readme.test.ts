// The README is a front page: its first screen says what the bot is, how to run it and how to
// install it in Slack, and its two commands work on a fresh clone: `npm ci && npm start` (no Slack
// credentials: the local console, run here as `npm start` runs it, built) and `npm test`.
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtDist, runWithInput } from './helpers/build.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const README = read('README.md');
/** What a reader sees before scrolling. */
const FIRST_SCREEN = README.split('\n').slice(0, 50).join('\n');

/** The one-line `sh` block under a `## <heading>` of the README. */
function command(heading: string): string | undefined {
  const section = README.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  return /```sh\n([^\n]+)\n```/.exec(section)?.[1];
}

describe('README.md', () => {
  it('says on its first screen what the bot is, how to run it and how to install it in Slack', () => {
    expect(FIRST_SCREEN).toMatch(/^# cdn-chatops\n\nRun your CDN from Slack\./);
    expect(FIRST_SCREEN).toContain('```text\nbob in #ops › /cdn purge example.com everything');
    expect(FIRST_SCREEN).toContain('## Run it\n\n```sh\nnpm ci && npm start\n```');
    expect(FIRST_SCREEN).toContain('## Install it in Slack\n\n1. **Create the app**');
    expect(README.split(/\s+/).length).toBeLessThan(1200);
  });

  it('runs with the two commands a fresh clone has: npm ci && npm start, and npm test', () => {
    expect(command('Run it')).toBe('npm ci && npm start');
    expect(command('Test it')).toBe('npm test');
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts).toMatchObject({ prestart: 'npm run build', start: 'node dist/main.js' });
    expect(scripts.test).toContain('vitest run');
    // CI runs exactly the README's test command, last.
    expect(read('.ci/run').trimEnd().split('\n').at(-1)).toBe('npm test');
  });

  it('npm start with no Slack credentials opens the local console', async () => {
    const { dist } = await builtDist();
    const cwd = await mkdtemp(join(tmpdir(), 'readme-start-'));
    const { code, stdout, stderr } = await runWithInput(
      process.execPath,
      [join(dist, 'main.js')],
      '/cdn help\n',
      { cwd, env: { PATH: process.env.PATH ?? '' } },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('/cdn purge');
  }, 120_000);
});
