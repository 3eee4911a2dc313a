import { describe, expect, it } from 'vitest';
import { commandReply } from './flows.js';
import { CHANNEL, MEMBER, startHarness, textOf } from './harness.js';

const commandBody = (text: string) =>
  new URLSearchParams({
    team_id: 'T0FAKE',
    user_id: MEMBER,
    channel_id: CHANNEL,
    command: '/cdn',
    text,
  }).toString();

describe('the HTTP receiver', () => {
  it('answers the health probes without a signature: /livez, /healthz and /readyz', async () => {
    const h = await startHarness();
    for (const path of ['/livez', '/healthz']) {
      const response = await fetch(`${h.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: true, eventLoopDelayMs: {} });
    }
    const ready = await fetch(`${h.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { ready: true, store: 'sqlite', database: 'ok', draining: false },
    ]);
  });

  it('refuses a bad signature and a stale timestamp with 401, and runs nothing', async () => {
    const h = await startHarness({ login: true });
    const form = 'application/x-www-form-urlencoded';
    const forged = await h.post(commandBody('zones'), form, { secret: 'not-the-secret' });
    const stale = await h.post(commandBody('zones'), form, {
      timestamp: Math.floor(Date.now() / 1000) - 10 * 60,
    });
    expect([forged.status, stale.status]).toEqual([401, 401]);
    // The same command, signed: it lists zones (one CDN request) and answers. Had either refused
    // request run, its listing would have been sent before this one was even posted.
    const fresh = await h.command('zones');
    expect(fresh.status).toBe(200);
    const [answer] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(textOf(answer?.blocks)).toContain('zones');
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /zones']);
    expect(h.slack.messages.filter((m) => m.via === 'response_url')).toHaveLength(1);
  });
});

describe('/cdn help', () => {
  it('shows help for /cdn alone and for help', async () => {
    const h = await startHarness();
    await h.command('');
    await h.command('help');
    const [first, second] = await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(first?.ephemeralTo).toBe(MEMBER);
    expect(textOf(first?.blocks)).toContain('/cdn ratelimit <zone> on|off');
    expect(second?.blocks).toEqual(first?.blocks);
  });

  it('suggests the closest command for a typo', async () => {
    const h = await startHarness();
    const reply = await commandReply(h, 'zoens');
    expect(textOf(reply?.blocks)).toContain('Did you mean `/cdn zones`?');
    // One line is enough: the help is one command away.
    const typo = await commandReply(h, 'purg');
    expect(typo.text).toBe(
      'Unknown subcommand `purg`. Did you mean `/cdn purge`? `/cdn help` lists them all.',
    );
    expect(typo.blocks).toHaveLength(1);
    expect(textOf(typo.blocks)).not.toContain('CDN commands');
    const other = await commandReply(h, 'frobnicate');
    expect(textOf(other?.blocks)).toContain("I don't know `frobnicate`.");
    expect(textOf(other?.blocks)).not.toContain('Did you mean');
  });

  it('says how to set a key when a command needs the CDN', async () => {
    const h = await startHarness();
    const reply = await commandReply(h, 'zones');
    expect(reply?.text).toContain('A workspace admin can set one with `/cdn login`');
    expect(h.sandbox.requests).toEqual([]);
  });
});
