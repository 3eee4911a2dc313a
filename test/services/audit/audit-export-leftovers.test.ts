// An audit export's temporary folder left by a crash (the process killed between writing the CSV
// and removing it) is removed later by the hourly sweep; a folder an export may still be using,
// and anything not an export's, is kept.
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditExportService } from '../../../src/services/audit/audit-export.js';
import { ManualClock } from '../../helpers/clock.js';

const DAY = 86_400_000;
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('audit export leftovers', () => {
  it('removes export folders older than a day, and nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leftovers-test-'));
    dirs.push(dir);
    const now = Date.now();
    const folder = async (name: string, ageMs: number) => {
      const path = join(dir, name);
      await mkdir(path);
      await writeFile(join(path, 'audit.csv'), 'at,actor\n');
      const at = new Date(now - ageMs);
      await utimes(path, at, at);
    };
    await folder('audit-export-crashed', 2 * DAY);
    await folder('audit-export-running', 60_000);
    await folder('charts-old', 3 * DAY);
    await writeFile(join(dir, 'audit-export-a-file'), 'not a folder');
    const service = new AuditExportService({
      clock: new ManualClock(now),
      tmpDir: dir,
    } as unknown as ConstructorParameters<typeof AuditExportService>[0]);
    expect(await service.removeLeftovers()).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([
      'audit-export-a-file',
      'audit-export-running',
      'charts-old',
    ]);
    // Swept again: nothing more to remove.
    expect(await service.removeLeftovers()).toBe(0);
  });
});
