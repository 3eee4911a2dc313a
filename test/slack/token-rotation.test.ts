// The token rotation in front of Bolt's authorize, driven with a fake store and a fake Web API:
// when it refreshes, that the refresh runs under the store's lock and is stored, that Bolt never
// sees a refresh token, and what a failed refresh leaves (the current token, tried again later).
import type { Installation, InstallationQuery } from '@slack/oauth';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it, vi } from 'vitest';
import { REFRESH_AHEAD_MS, RotatingInstallationStore } from '../../src/slack/token-rotation.js';
import type { InstallationUpdate } from '../../src/store/installations.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';

const query: InstallationQuery<false> = {
  teamId: 'T1',
  enterpriseId: undefined,
  isEnterpriseInstall: false,
};

function rotating(expiresInMs: number, clock: ManualClock): Installation {
  return {
    team: { id: 'T1' },
    authVersion: 'v2',
    bot: {
      id: 'B1',
      userId: 'UB',
      scopes: [],
      token: 'xoxe.xoxb-old',
      refreshToken: 'xoxe-1-old',
      expiresAt: Math.floor((clock.now() + expiresInMs) / 1000),
    },
  } as unknown as Installation;
}

function harness(expiresInMs: number, answer: () => Promise<Record<string, unknown>>) {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  let stored = rotating(expiresInMs, clock);
  const locked = vi.fn(async (_q: InstallationQuery<boolean>, update: InstallationUpdate) => {
    const next = await update(stored);
    if (next) stored = next;
    return stored;
  });
  const access = vi.fn(answer);
  const store = new RotatingInstallationStore(
    {
      storeInstallation: vi.fn(),
      fetchInstallation: vi.fn(async () => stored),
      updateLocked: locked,
    },
    {
      client: { oauth: { v2: { access } } } as unknown as WebClient,
      clientId: 'id',
      clientSecret: 'secret',
      clock,
      logger: captureLogs('error').logger,
    },
  );
  return { clock, store, locked, access, stored: () => stored };
}

const refreshed = async () => ({
  ok: true,
  access_token: 'xoxe.xoxb-new',
  refresh_token: 'xoxe-1-new',
  expires_in: 43_200,
});

describe('RotatingInstallationStore', () => {
  it('uses a token far from expiry as it is, without its refresh token', async () => {
    const h = harness(REFRESH_AHEAD_MS + 60_000, refreshed);
    const installation = await h.store.fetchInstallation(query);
    expect(installation.bot?.token).toBe('xoxe.xoxb-old');
    expect(installation.bot?.refreshToken).toBeUndefined();
    expect(h.access).not.toHaveBeenCalled();
  });

  it('refreshes a token within two hours of expiry under the lock, and stores the new pair', async () => {
    const h = harness(REFRESH_AHEAD_MS - 60_000, refreshed);
    const installation = await h.store.fetchInstallation(query);
    expect(installation.bot?.token).toBe('xoxe.xoxb-new');
    expect(installation.bot?.refreshToken).toBeUndefined();
    expect(h.locked).toHaveBeenCalledOnce();
    expect(h.access).toHaveBeenCalledExactlyOnceWith({
      client_id: 'id',
      client_secret: 'secret',
      grant_type: 'refresh_token',
      refresh_token: 'xoxe-1-old',
    });
    expect(h.stored().bot).toMatchObject({
      token: 'xoxe.xoxb-new',
      refreshToken: 'xoxe-1-new',
      expiresAt: Math.floor(h.clock.now() / 1000) + 43_200,
    });
  });

  it('keeps the current token when the refresh fails, and tries again a minute later', async () => {
    const h = harness(REFRESH_AHEAD_MS - 60_000, async () => {
      throw new Error('An API error occurred: invalid_refresh_token');
    });
    expect((await h.store.fetchInstallation(query)).bot?.token).toBe('xoxe.xoxb-old');
    expect((await h.store.fetchInstallation(query)).bot?.token).toBe('xoxe.xoxb-old');
    expect(h.access).toHaveBeenCalledOnce();
    h.clock.advance(60_000);
    await h.store.fetchInstallation(query);
    expect(h.access).toHaveBeenCalledTimes(2);
  });

  it('an expired token is tried again at once, failure or not', async () => {
    const h = harness(-1_000, async () => {
      throw new Error('An API error occurred: internal_error');
    });
    await h.store.fetchInstallation(query);
    await h.store.fetchInstallation(query);
    expect(h.access).toHaveBeenCalledTimes(2);
  });

  it('does not refresh again what another replica refreshed while it waited for the lock', async () => {
    const h = harness(REFRESH_AHEAD_MS - 60_000, refreshed);
    // The lock's holder finds the token already fresh (another replica stored it meanwhile).
    h.locked.mockImplementationOnce(async (_q, update) => {
      const fresh = rotating(12 * 60 * 60_000, h.clock);
      return (await update(fresh)) ?? fresh;
    });
    expect((await h.store.fetchInstallation(query)).bot?.token).toBe('xoxe.xoxb-old');
    expect(h.access).not.toHaveBeenCalled();
  });
});
