// The audit log in the console: `/cdn audit` with filters as a page with Previous/Next, and
// `/cdn audit export …` arriving in the requester's DM as a CSV file (its name, size and first
// lines), against the embedded sandbox and the in-process fake Slack.
import { describe, expect, it } from 'vitest';
import { expectInOrder, pipeConsole } from '../../helpers/console.js';

/** `n` purges of one URL each by the person typing (under the 10 changes a minute each may make). */
const purges = (n: number, who: string) =>
  Array.from({ length: n }, (_, i) => `/cdn purge https://static.example.com/${who}/${i}.css`);

describe('the audit log in the console', () => {
  it('pages a filtered search with Next and Previous, and shows the export arriving in the DM', async () => {
    const {
      printed,
      console: running,
      outDir,
    } = await pipeConsole(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        ...purges(8, 'alice'),
        '/cdn ratelimit example.com on',
        '/as bob',
        ...purges(8, 'bob'),
        '/as carol',
        ...purges(8, 'carol'),
        '/as alice',
        // 24 purges: a page of 20 with Next, then the last 4 with Previous.
        '/cdn audit static.example.com kind:purge',
        '1',
        '1',
        '/cdn audit @bob kind:purge since:2026-11-22',
        '/cdn audit example.com kind:ratelimit',
        '/cdn audit export static.example.com kind:purge',
      ].join('\n'),
    );
    // The export is a background job: its DM comes once the runner has finished it.
    await running.deps.runner.settled();
    const transcript = printed();
    const search = transcript.slice(transcript.indexOf('alice in #ops › /cdn audit static'));
    const pages = search.split(/^alice in #ops › /m);
    const [first = '', second = '', again = '', bob = '', ratelimit = '', exported = ''] =
      pages.slice(1);
    // Page 1: the newest 20, carol's first, and only Next.
    expectInOrder(first, [
      'Audit log · static.example.com · kind:purge\n═',
      '2026-11-22 10:00 UTC · @carol · `purge.urls` on static.example.com · ok',
      '[1] Next',
    ]);
    expect(first.match(/`purge\.urls`/g)).toHaveLength(20);
    expect(first).not.toContain('Previous');
    expect(first).not.toContain('ratelimit');
    // Next: the oldest 4 (alice's), the same filters in the header, and only Previous.
    expectInOrder(second, [
      '1\n── #ops · cdn',
      'Audit log · static.example.com · kind:purge',
      '@alice · `purge.urls` on static.example.com · ok',
      '[1] Previous',
    ]);
    expect(second.match(/`purge\.urls`/g)).toHaveLength(4);
    expect(second).not.toMatch(/@(bob|carol) ·/);
    expect(second).not.toContain('Next');
    // Previous: the first page again.
    expect(again.match(/`purge\.urls`/g)).toHaveLength(20);
    expect(again).toContain('[1] Next');
    // A person picked from the @ menu, and a date: Slack sends the id, the page names them.
    expectInOrder(bob, [
      'Audit log · kind:purge · since 2026-11-22',
      'Changes by @bob, dates in Europe/Paris.',
      '@bob · `purge.urls` on static.example.com · ok',
    ]);
    expect(bob.match(/`purge\.urls`/g)).toHaveLength(8);
    expect(bob).not.toMatch(/@(alice|carol) ·/);
    expectInOrder(ratelimit, ['Audit log · example.com · kind:ratelimit', '`ratelimit.']);
    expect(ratelimit).not.toContain('purge.urls');
    // The export: said at once in the channel, then the file in alice's DM with its name, size
    // and first lines (the header row, then the newest entries).
    expectInOrder(exported, [
      '/cdn audit export static.example.com kind:purge\n── #ops · cdn · only you can see this',
      '⏳ Making your audit export (static.example.com · kind:purge).',
      '── DM to alice · cdn shared a file',
      '✅ Your audit export (static.example.com · kind:purge): 24 entries, times in UTC.',
      `📎 Audit export: ${outDir}/`,
      '-audit-20261122T1000.csv (',
      ' kB)\n   "id","time_utc","actor","action","kind","zone_id","zone_name","outcome","withheld","detail","account"\n',
      ',"2026-11-22T10:00:00.000Z","UCAROL","purge.urls","purge",',
      '   … 21 more lines',
    ]);
    expect(transcript).not.toContain('#DUALICE');
    expect(transcript).not.toMatch(/Slack refused|the app failed|⚠️/);
  });
});
