// The fake Slack refuses what the Block Kit reference says Slack refuses (src/dev/fake-slack/validate.ts).
import { describe, expect, it } from 'vitest';
import {
  validateBlocks,
  validateOptions,
  validateView,
} from '../../../src/dev/fake-slack/validate.js';

const plain = (text: string) => ({ type: 'plain_text', text });
const option = (i: number, text = `Option ${i}`) => ({ text: plain(text), value: `v${i}` });
const options = (n: number) => Array.from({ length: n }, (_, i) => option(i));
const accessory = (element: Record<string, unknown>) => [
  {
    type: 'section',
    text: { type: 'mrkdwn', text: 'x' },
    accessory: { action_id: 'a', ...element },
  },
];
const refused = (blocks: unknown, surface: 'message' | 'modal' | 'home' = 'message') =>
  validateBlocks(blocks, surface).length > 0;

describe('validateBlocks', () => {
  it('takes 50 blocks in a message and 100 in a modal or Home tab, no more', () => {
    const blocks = (n: number) => Array.from({ length: n }, () => ({ type: 'divider' }));
    expect(refused(blocks(50))).toBe(false);
    expect(refused(blocks(51))).toBe(true);
    expect(refused(blocks(100), 'modal')).toBe(false);
    expect(refused(blocks(101), 'home')).toBe(true);
  });

  it('refuses texts over their limits', () => {
    const section = (text: string) => [{ type: 'section', text: { type: 'mrkdwn', text } }];
    expect(refused(section('x'.repeat(3000)))).toBe(false);
    expect(refused(section('x'.repeat(3001)))).toBe(true);
    expect(refused([{ type: 'header', text: plain('x'.repeat(151)) }])).toBe(true);
    expect(refused(accessory({ type: 'button', text: plain('x'.repeat(76)) }))).toBe(true);
    const fields = (n: number) => [
      { type: 'section', fields: Array.from({ length: n }, () => ({ type: 'mrkdwn', text: 'f' })) },
    ];
    expect(refused(fields(10))).toBe(false);
    expect(refused(fields(11))).toBe(true);
    const context = (n: number) => [
      {
        type: 'context',
        elements: Array.from({ length: n }, () => ({ type: 'mrkdwn', text: 'c' })),
      },
    ];
    expect(refused(context(11))).toBe(true);
    expect(refused([{ type: 'section', block_id: 'b'.repeat(256), text: plain('x') }])).toBe(true);
  });

  it('refuses duplicate block and action ids', () => {
    const block = {
      type: 'actions',
      block_id: 'b',
      elements: [{ type: 'button', action_id: 'a', text: plain('x') }],
    };
    expect(refused([block, block])).toBe(true);
    expect(refused([{ ...block, elements: [block.elements[0], block.elements[0]] }])).toBe(true);
  });

  it('wants 2 to 5 options in an overflow menu', () => {
    expect(refused(accessory({ type: 'overflow', options: options(1) }))).toBe(true);
    expect(refused(accessory({ type: 'overflow', options: options(2) }))).toBe(false);
    expect(refused(accessory({ type: 'overflow', options: options(6) }))).toBe(true);
  });

  it('refuses option texts over 75 and values over 150', () => {
    const long = { text: plain('x'.repeat(76)), value: 'v' };
    expect(refused(accessory({ type: 'static_select', options: [long] }))).toBe(true);
    const value = { text: plain('x'), value: 'v'.repeat(151) };
    expect(refused(accessory({ type: 'static_select', options: [value] }))).toBe(true);
  });

  it('wants initial options among the options, for each kind of menu', () => {
    for (const type of ['static_select', 'radio_buttons']) {
      expect(refused(accessory({ type, options: options(3), initial_option: option(1) }))).toBe(
        false,
      );
      expect(refused(accessory({ type, options: options(3), initial_option: option(7) }))).toBe(
        true,
      );
      expect(
        refused(accessory({ type, options: options(3), initial_option: option(1, 'Other text') })),
      ).toBe(true);
    }
    for (const type of ['multi_static_select', 'checkboxes']) {
      expect(refused(accessory({ type, options: options(3), initial_options: [option(2)] }))).toBe(
        false,
      );
      expect(refused(accessory({ type, options: options(3), initial_options: [option(9)] }))).toBe(
        true,
      );
    }
  });

  it('takes at most 10 radio buttons or checkboxes', () => {
    expect(refused(accessory({ type: 'radio_buttons', options: options(10) }))).toBe(false);
    expect(refused(accessory({ type: 'radio_buttons', options: options(11) }))).toBe(true);
    expect(refused(accessory({ type: 'checkboxes', options: options(11) }))).toBe(true);
  });

  it('checks option groups: at most 100, labels of 75, 100 options each, and the initial option in them', () => {
    const group = (label: string, n = 2) => ({ label: plain(label), options: options(n) });
    const select = (groups: unknown[], initial?: unknown) =>
      accessory({
        type: 'static_select',
        option_groups: groups,
        ...(initial ? { initial_option: initial } : {}),
      });
    expect(refused(select([group('A')], option(1)))).toBe(false);
    expect(refused(select([group('A')], option(5)))).toBe(true);
    expect(refused(select([group('x'.repeat(76))]))).toBe(true);
    expect(refused(select([group('A', 101)]))).toBe(true);
    expect(refused(select(Array.from({ length: 101 }, () => group('A', 1))))).toBe(true);
    expect(validateOptions({ option_groups: [group('x'.repeat(76))] })).not.toEqual([]);
  });
});

describe('validateView', () => {
  const modal = (fields: Record<string, unknown>) => ({
    type: 'modal',
    title: plain('Title'),
    blocks: [],
    ...fields,
  });
  it('refuses a title over 24 and private_metadata over 3,000', () => {
    expect(validateView(modal({}))).toEqual([]);
    expect(validateView(modal({ title: plain('x'.repeat(25)) }))).not.toEqual([]);
    expect(validateView(modal({ private_metadata: 'x'.repeat(3001) }))).not.toEqual([]);
  });
});
