// The purge form's zone picker listener: the form's channel (from the view's private_metadata) and
// what was typed go to the purge form service; its zones come back as at most 100 Slack options,
// `<account>/<zone>` when several accounts are in play; a refusal or a failure is an empty list.
import { describe, expect, it, vi } from 'vitest';
import type { AppDeps } from '../../../src/deps.js';
import { validateOptions } from '../../../src/dev/fake-slack/validate.js';
import { purgeZonePicker } from '../../../src/listeners/options/purge-zone-picker.js';
import type { FormZones } from '../../../src/services/purge/purge-form.js';
import type { Zone } from '../../../src/services/zones/zones.js';

const zone = (i: number, accountName: string, accountId: string): Zone => ({
  id: `zone_${i}`,
  name: `zone-${i}.example`,
  status: 'active',
  createdAt: '2026-11-01T00:00:00Z',
  accountName,
  accountId,
});

async function suggest(choices: () => Promise<FormZones>) {
  const ack = vi.fn(async (_answer?: unknown) => {});
  const warn = vi.fn();
  const choicesFn = vi.fn(choices);
  const deps = {
    purgeForm: { choices: choicesFn },
    logger: { warn },
    isSlackResponseUrl: () => true,
  } as unknown as AppDeps;
  await purgeZonePicker(deps)({
    ack,
    options: { type: 'block_suggestion', action_id: 'zone_picker_purge', value: 'zone' },
    body: { view: { private_metadata: JSON.stringify({ channelId: 'C1' }) } },
    context: { caller: { workspaceId: 'T1', userId: 'U1', directory: {} } },
  } as never);
  return { answer: ack.mock.calls[0]?.[0] as { options: unknown[] }, warn, choices: choicesFn };
}

describe('the purge form’s zone picker listener', () => {
  it('asks for the form’s channel, and names each zone’s account when several are in play', async () => {
    const zones = Array.from({ length: 150 }, (_, i) =>
      i % 2 === 0 ? zone(i, 'default', 'A_DEFAULT') : zone(i, 'staging', 'A_STAGING'),
    );
    const { answer, choices } = await suggest(async () => ({ zones, labelled: true }));
    expect(choices).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'U1' }),
      'C1',
      'zone',
      100,
    );
    expect(answer.options).toHaveLength(100);
    expect(validateOptions(answer)).toEqual([]);
    expect(answer.options.slice(0, 2)).toEqual([
      {
        text: expect.objectContaining({ text: 'default/zone-0.example (active)' }),
        value: 'default/zone_0',
      },
      {
        text: expect.objectContaining({ text: 'staging/zone-1.example (active)' }),
        value: 'staging/zone_1',
      },
    ]);
  });

  it('shows a zone without its account when one account is in play, its value the id alone', async () => {
    const { answer } = await suggest(async () => ({
      zones: [zone(1, 'default', 'A_DEFAULT')],
      labelled: false,
    }));
    expect(answer.options).toEqual([
      { text: expect.objectContaining({ text: 'zone-1.example (active)' }), value: 'zone_1' },
    ]);
  });

  it('offers nothing when the person may not purge there (or the index cannot answer), and logs why', async () => {
    const { answer, warn } = await suggest(async () => {
      throw new Error('not an operator');
    });
    expect(answer).toEqual({ options: [] });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ workspaceId: 'T1' }),
      'purge zone picker has no options',
    );
  });
});
