import { describe, expect, it, vi } from 'vitest';
import type { AppDeps } from '../../../src/deps.js';
import { appHomeOpened } from '../../../src/listeners/events/app-home-opened.js';
import type { HomeOverview } from '../../../src/services/audit/activity.js';

const overview: HomeOverview = {
  permissions: { readZones: true, readRecords: true, setKey: false, operate: true },
  keySet: false,
  baseUrl: 'https://api.cdn.example/v1',
  recent: [],
  schedules: { shown: [], hidden: 0 },
};

/** The listener with a fake Web API client; resolves when the listener has finished its work. */
async function open(tab: string) {
  const home = vi.fn(async () => overview);
  const channels = vi.fn(async () => ({ bindings: [], purgeChannels: ['COPS'] }));
  const publish = vi.fn(async () => ({ ok: true }));
  const caller = { workspaceId: 'T1', userId: 'U1', directory: {} };
  await appHomeOpened({
    activity: { home },
    channels: { overview: channels },
    accounts: { overview: async () => ({ accounts: [], mayManage: false }) },
    freezes: { listed: async () => [] },
    scheduledPurges: { forHome: async () => ({ shown: [], hidden: 0, everyone: false }) },
    clock: { now: () => Date.parse('2026-12-02T09:00:00Z') },
  } as unknown as AppDeps)({
    event: { type: 'app_home_opened', user: 'U1', channel: 'D1', tab, event_ts: '1' },
    client: { views: { publish } },
    context: { caller },
  } as never);
  return { home, channels, publish };
}

describe('app_home_opened', () => {
  it('publishes the Home tab for the user who opened it', async () => {
    const { home, channels, publish } = await open('home');
    expect(home).toHaveBeenCalledWith(expect.objectContaining({ workspaceId: 'T1', userId: 'U1' }));
    expect(channels).toHaveBeenCalledWith(
      expect.objectContaining({ workspaceId: 'T1', userId: 'U1' }),
    );
    expect(JSON.stringify(publish.mock.calls)).toContain('may only be run in <#COPS>');
    expect(publish).toHaveBeenCalledWith(
      expect.objectContaining({ user_id: 'U1', view: expect.objectContaining({ type: 'home' }) }),
    );
  });

  it('ignores the Messages tab: nothing read, nothing published', async () => {
    const { home, publish } = await open('messages');
    expect(home).not.toHaveBeenCalled();
    expect(publish).not.toHaveBeenCalled();
  });
});
