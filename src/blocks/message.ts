// The shape every builder returns: notification text (also what screen readers get) plus blocks.
import type { KnownBlock, View } from '@slack/types';

export interface Message {
  text: string;
  blocks: KnownBlock[];
}

export type { KnownBlock, View };
