import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import type { PurgeRun } from '../../src/services/purge/purge-status.js';
import type { MessageTarget } from '../../src/slack/message-target.js';
import { purgeMessages } from '../../src/slack/purge-progress.js';
import { captureLogs } from '../helpers/logs.js';

function recorder() {
  const seen: Array<[string, string]> = [];
  const target: MessageTarget = {
    post: async (message) => void seen.push(['post', message.text]),
    replace: async (message) => void seen.push(['replace', message.text]),
  };
  return { seen, target };
}

const run: PurgeRun = {
  job: {
    id: 'j1',
    workspaceId: 'T1',
    accountId: 'acc_1',
    zoneId: 'z1',
    zoneName: 'a.example',
    actorId: 'U1',
    fileCount: 1,
    tagCount: 0,
    status: 'succeeded',
    failed: { files: [], tags: [] },
    purgeIds: [],
    retryOf: null,
    createdAt: 0,
    finishedAt: 1,
  },
  report: {
    ok: true,
    results: [],
    failed: { files: [], tags: [] },
    unknown: { files: [], tags: [] },
    purgeIds: [],
  },
};
const status = { zoneNames: ['a.example'], files: 3, tags: 0, actorId: 'U1', done: 0, total: 3 };

describe('purge progress as one Slack message', () => {
  it('posts, edits, and replaces with the result', async () => {
    const { seen, target } = recorder();
    const view = purgeMessages(target, captureLogs().logger);
    await view.started(status);
    await view.progressed({ ...status, done: 2 });
    expect(seen).toEqual([
      ['post', 'Purging: 0/3'],
      ['replace', 'Purging: 2/3'],
    ]);
  });

  it('when nothing ran, replaces "Purging…" with why, and logs only the unexpected', async () => {
    const logs = captureLogs('debug');
    const { seen, target } = recorder();
    await purgeMessages(target, logs.logger).finished({
      runs: [],
      actorId: 'U1',
      error: new AppError({ code: 'no_api_key' }),
    });
    expect(seen).toEqual([['replace', expect.stringContaining('has no CDN API key yet')]]);
    expect(logs.lines.map((l) => JSON.parse(l).level)).toEqual([20]);
  });

  it('when some zones ran, keeps their result and says in a second message why the rest did not', async () => {
    const logs = captureLogs('debug');
    const { seen, target } = recorder();
    await purgeMessages(target, logs.logger).finished({
      runs: [run],
      actorId: 'U1',
      error: new Error('database went away'),
    });
    expect(seen).toEqual([
      ['replace', 'Purged 1 item on a.example'],
      ['post', expect.stringMatching(/^Something went wrong on our side \(ref `[0-9a-f]{6}`\)/)],
    ]);
    // The user never reads the internals; the log line carries them, with the same ref.
    expect(seen[1]?.[1]).not.toContain('database went away');
    const ref = /ref `([0-9a-f]{6})`/.exec(seen[1]?.[1] ?? '')?.[1];
    const [line] = logs.lines.map((l) => JSON.parse(l));
    expect(line).toMatchObject({ level: 50, ref, where: 'purge' });
    expect(line.err.message).toBe('database went away');
  });
});
