// The installation cache in front of Bolt's authorize: fresh reads kept a moment, stale ones used
// while the store fails, nothing kept for "not installed", and writes clear what is kept.
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import { describe, expect, it, vi } from 'vitest';
import { CachedInstallationStore } from '../../src/slack/installation-cache.js';
import { ManualClock } from '../helpers/clock.js';

const query: InstallationQuery<false> = {
  teamId: 'T1',
  enterpriseId: undefined,
  isEnterpriseInstall: false,
};
const install = (token: string) => ({ team: { id: 'T1' }, bot: { token } }) as Installation;

function store(first: Installation) {
  let current: Installation | Error = first;
  const fetchInstallation = vi.fn(async () => {
    if (current instanceof Error) throw current;
    return current;
  });
  const backing: InstallationStore = {
    storeInstallation: vi.fn(async (installation: Installation) => {
      current = installation;
    }),
    fetchInstallation,
    deleteInstallation: vi.fn(async () => {
      current = new Error('No installation for T1');
    }),
  };
  return {
    backing,
    fetchInstallation,
    set: (value: Installation | Error) => {
      current = value;
    },
  };
}

describe('CachedInstallationStore', () => {
  it('asks the store once per ttl', async () => {
    const clock = new ManualClock(0);
    const s = store(install('xoxb-1'));
    const cache = new CachedInstallationStore(s.backing, clock, { ttlMs: 1_000 });
    await cache.fetchInstallation(query);
    await cache.fetchInstallation(query);
    expect(s.fetchInstallation).toHaveBeenCalledOnce();
    s.set(install('xoxb-2'));
    clock.advance(1_000);
    expect((await cache.fetchInstallation(query)).bot?.token).toBe('xoxb-2');
    expect(s.fetchInstallation).toHaveBeenCalledTimes(2);
  });

  it('uses the last installation read while the store fails, for a while', async () => {
    const clock = new ManualClock(0);
    const s = store(install('xoxb-1'));
    const cache = new CachedInstallationStore(s.backing, clock, { ttlMs: 1_000, staleMs: 5_000 });
    await cache.fetchInstallation(query);
    s.set(new Error('storage is unavailable'));
    clock.advance(2_000);
    expect((await cache.fetchInstallation(query)).bot?.token).toBe('xoxb-1');
    clock.advance(5_000);
    await expect(cache.fetchInstallation(query)).rejects.toThrow('storage is unavailable');
  });

  it('never uses a kept installation once the store says there is none', async () => {
    const clock = new ManualClock(0);
    const s = store(install('xoxb-1'));
    const cache = new CachedInstallationStore(s.backing, clock, { ttlMs: 1_000 });
    await cache.fetchInstallation(query);
    s.set(new Error('No installation for T1'));
    clock.advance(1_000);
    await expect(cache.fetchInstallation(query)).rejects.toThrow('No installation');
  });

  it('forgets what it kept when an installation is stored or deleted', async () => {
    const clock = new ManualClock(0);
    const s = store(install('xoxb-1'));
    const cache = new CachedInstallationStore(s.backing, clock);
    await cache.fetchInstallation(query);
    await cache.storeInstallation(install('xoxb-rotated'));
    expect((await cache.fetchInstallation(query)).bot?.token).toBe('xoxb-rotated');
    await cache.deleteInstallation(query);
    await expect(cache.fetchInstallation(query)).rejects.toThrow('No installation');
  });
});
