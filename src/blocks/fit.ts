// Keeping any list within Slack's limits: a few items shown, the rest summed up ("…and 37 more").
import type { KnownBlock } from '@slack/types';
import { join, type Mrkdwn, md, mrkdwn, type Part, plain } from './text.js';

/** Blocks Slack takes per surface (docs.slack.dev/reference/block-kit/blocks): 50 in a message. */
export const MAX_BLOCKS = { message: 50, modal: 100, home: 100 } as const;
export type Surface = keyof typeof MAX_BLOCKS;

/** "…and 37 more", or nothing when none are left out. */
export function andMore(hidden: number, what: Part = ''): Mrkdwn | undefined {
  if (hidden <= 0) return undefined;
  return what === ''
    ? md`…and ${hidden.toLocaleString('en')} more`
    : md`…and ${hidden.toLocaleString('en')} more ${what}`;
}

/** The items of conversations the reader is not in, left out of a list: how many, in a line. */
export function elsewhereBlocks(hidden: number): KnownBlock[] {
  if (hidden <= 0) return [];
  const count = hidden.toLocaleString('en');
  return [
    {
      type: 'context',
      elements: [mrkdwn(md`${count} more in conversations you are not in (not shown to you).`)],
    },
  ];
}

/** The first `shown` items rendered, and a line saying how many more there are. */
export function summarise<T>(
  items: readonly T[],
  shown: number,
  render: (item: T, index: number) => Part,
  separator: Part = '\n',
  what: Part = '',
): Mrkdwn {
  const parts: Part[] = items.slice(0, shown).map(render);
  const more = andMore(items.length - shown, what);
  if (more) parts.push(more);
  return join(parts, separator);
}

/** One block per item for the first `shown` items, then a context line for the rest. */
export function listBlocks<T>(
  items: readonly T[],
  shown: number,
  render: (item: T, index: number) => KnownBlock,
  what: Part = '',
): KnownBlock[] {
  const blocks = items.slice(0, shown).map(render);
  const more = andMore(items.length - shown, what);
  if (more) blocks.push({ type: 'context', elements: [mrkdwn(more)] });
  return blocks;
}

/**
 * A list under its header: `none` when there is nothing to show and nothing left out, a block per
 * item for the first `shown` (the rest counted), and how many are in conversations the reader is
 * not in (`hidden`).
 */
export function headedList<T>(
  header: string,
  list: {
    items: readonly T[];
    shown: number;
    render: (item: T, index: number) => KnownBlock;
    none: KnownBlock;
    hidden?: number;
    /** What the count of the rest says after "…and N more". */
    what?: Part;
  },
): KnownBlock[] {
  const hidden = list.hidden ?? 0;
  return [
    { type: 'header', text: plain(header) },
    ...(list.items.length === 0 && hidden === 0 ? [list.none] : []),
    ...listBlocks(list.items, list.shown, list.render, list.what),
    ...elsewhereBlocks(hidden),
  ];
}

/**
 * The last guard: blocks cut to what the surface takes, the cut ones said in a context line.
 * Lists summarise themselves first (listBlocks); this keeps any sum of them within the limit.
 */
export function fitBlocks(blocks: KnownBlock[], surface: Surface): KnownBlock[] {
  const max = MAX_BLOCKS[surface];
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  return [
    ...kept,
    {
      type: 'context',
      elements: [mrkdwn(andMore(blocks.length - kept.length, 'not shown') as Mrkdwn)],
    },
  ];
}
