import { describe, expect, it } from 'vitest';
import { analyticsModal } from '../../../src/blocks/analytics-modal.js';
import { purgeFormModal } from '../../../src/blocks/purge.js';
import { answerField, fieldsOf, pick } from '../../../src/dev/console/modal-form.js';

const choices = [
  { text: 'example.com (active)', value: 'z1' },
  { text: 'static.example.com (active)', value: 'z2' },
  { text: 'shop.example.org (active)', value: 'z3' },
];
const directory = {
  channels: [{ id: 'COPS', name: 'ops' }],
  users: [{ id: 'UBOB', name: 'bob' }],
};
const noOptions = async () => [];

describe('pick', () => {
  it('takes a number, an exact label or value, or a part matching only one', () => {
    expect(pick(choices, '2')).toEqual(choices[1]);
    expect(pick(choices, 'example.com (active)')).toEqual(choices[0]);
    expect(pick(choices, 'z3')).toEqual(choices[2]);
    expect(pick(choices, 'shop')).toEqual(choices[2]);
  });

  it('says why when it cannot choose', () => {
    expect(pick(choices, '4')).toEqual({ problem: 'Pick a number from 1 to 3.' });
    expect(pick(choices, 'nope')).toEqual({ problem: 'Nothing matches "nope".' });
    expect(pick(choices, 'static')).toEqual(choices[1]);
    expect(pick(choices, 'example')).toEqual({
      problem: '"example" matches several; pick one by number.',
      choices,
    });
  });
});

describe('a modal filled field by field', () => {
  it('reads input blocks with their kinds, defaults and optional flags', () => {
    const fields = fieldsOf(purgeFormModal({ metadata: 'm' }) as never);
    expect(fields.map((f) => [f.kind, f.optional, f.initial])).toEqual([
      ['external', false, undefined],
      ['select', false, { text: 'URLs', value: 'urls' }],
      ['text', true, undefined],
      ['select', true, undefined],
      ['text', true, undefined],
    ]);
  });

  it('submits state shaped as Slack submits it', async () => {
    const [zone, range, channel] = fieldsOf(analyticsModal() as never);
    if (!zone || !range || !channel) throw new Error('three fields expected');
    const load = async (_field: unknown, query: string) =>
      choices.filter((c) => c.text.includes(query));
    expect(await answerField(zone, 'shop', directory, load)).toEqual({
      ok: true,
      state: {
        type: 'external_select',
        selected_option: {
          text: { type: 'plain_text', text: 'shop.example.org (active)' },
          value: 'z3',
        },
      },
    });
    // Enter keeps the initial option.
    expect(await answerField(range, '', directory, noOptions)).toMatchObject({
      ok: true,
      state: { selected_option: { value: '24h' } },
    });
    expect(await answerField(channel, '#ops', directory, noOptions)).toEqual({
      ok: true,
      state: { type: 'conversations_select', selected_conversation: 'COPS' },
    });
    expect(await answerField(channel, '', directory, noOptions)).toEqual({
      ok: false,
      problem: 'Post in is required.',
    });
  });
});
