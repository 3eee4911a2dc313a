// The zone picker's options listener: what was typed goes to the index search (of every CDN
// account, ZoneChoices), at most 100 options come back as Slack wants them, and a failure is an
// empty list (and a log line).
import { describe, expect, it, vi } from 'vitest';
import type { AppDeps } from '../../../src/deps.js';
import { zonePicker } from '../../../src/listeners/options/zone-picker.js';
import type { Zone } from '../../../src/services/zones/zones.js';

/** A zone as ZoneChoices gives it: with its account (the workspace's only one here). */
const zone = (i: number): Zone => ({
  id: `zone_${i}`,
  accountId: 'A_DEFAULT',
  accountName: 'default',
  name: `zone-${String(i).padStart(5, '0')}.${'long-label.'.repeat(i === 1 ? 8 : 0)}bulk.test`,
  status: i % 2 === 0 ? 'active' : 'pending',
  createdAt: '2026-11-01T00:00:00Z',
});

/** Runs the listener for `value`; resolves with what it acknowledged and the fakes it used. */
async function suggest(value: string | undefined, search: (...args: unknown[]) => Promise<Zone[]>) {
  const ack = vi.fn(async (_answer?: unknown) => {});
  const warn = vi.fn();
  const searchFn = vi.fn(async (...args: unknown[]) => ({
    zones: await search(...args),
    labelled: false,
  }));
  const deps = { zoneChoices: { search: searchFn }, logger: { warn } } as unknown as AppDeps;
  await zonePicker(deps)({
    ack,
    options: { type: 'block_suggestion', action_id: 'zone_picker', value },
    context: { caller: { workspaceId: 'T1', userId: 'U1', directory: {} } },
  } as never);
  return { answer: ack.mock.calls[0]?.[0] as { options: unknown[] }, ack, warn, search: searchFn };
}

describe('the zone picker listener', () => {
  it('searches the index for what was typed and offers at most 100 zones as Slack options', async () => {
    const zones = Array.from({ length: 100 }, (_, i) => zone(i + 1));
    const { answer, ack, search } = await suggest('  zone-0  ', async () => zones);
    expect(search).toHaveBeenCalledWith('T1', undefined, '  zone-0  ', 100);
    expect(ack).toHaveBeenCalledTimes(1);
    expect(answer.options).toHaveLength(100);
    expect(answer.options[1]).toEqual({
      text: { type: 'plain_text', text: 'zone-00002.bulk.test (active)', emoji: true },
      // One account in play (not labelled): the zone's id alone, its account being the only one.
      value: 'zone_2',
    });
    // Slack refuses an option text over 75 characters.
    for (const option of answer.options as Array<{ text: { text: string } }>) {
      expect(option.text.text.length).toBeLessThanOrEqual(75);
    }
  });

  it('asks for everything when nothing was typed yet', async () => {
    const { search } = await suggest(undefined, async () => []);
    expect(search).toHaveBeenCalledWith('T1', undefined, '', 100);
  });

  it('offers nothing when the index cannot answer (no key, CDN down), and logs why', async () => {
    const { answer, warn } = await suggest('shop', async () => {
      throw new Error('no key');
    });
    expect(answer).toEqual({ options: [] });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ workspaceId: 'T1' }),
      'zone picker has no options',
    );
  });
});
