// The shape every builder returns: notification text (also what screen readers get) plus blocks.
import type { KnownBlock, View } from '@slack/types';
import { fitBlocks } from './fit.js';
import { clip, type Mrkdwn } from './text.js';

export interface Message {
  /** mrkdwn: Slack parses a message's `text` as mrkdwn (made here from a Mrkdwn only). */
  text: string;
  blocks: KnownBlock[];
}

/** A message within Slack's limits: its text as mrkdwn, its blocks at most 50. */
export function message(text: Mrkdwn, blocks: KnownBlock[]): Message {
  return { text: clip(text, 3000).text, blocks: fitBlocks(blocks, 'message') };
}

export type { KnownBlock, View };
