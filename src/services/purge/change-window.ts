// The port a scheduled purge asks, when it is due, whether changes may be made now: freeze windows
// (or any change calendar) plug in here. Without one wired in, every time is open.
import type { Problem } from '../../errors.js';

/** The change a purge would make, as a change calendar weighs it. */
export interface PlannedChange {
  workspaceId: string;
  /** The CDN account of the zone. */
  accountId: string;
  zoneId: string;
  zoneName: string;
  /** What is purged: URLs, tags or both, or the whole zone. */
  kind: 'urls' | 'tags' | 'urls_tags' | 'everything';
  /** Who asked for it. */
  requesterId: string;
  /** When it would run (now, for a scheduled purge that is due). */
  at: number;
}

export interface ChangeWindow {
  /**
   * Why the change may not be made at `change.at` (a freeze, naming itself and when it ends, as a
   * Problem that src/blocks/problems.ts words), or undefined when it may.
   */
  refusal(change: PlannedChange): Promise<Problem | undefined>;
}

/** Every time is open: the default until a change calendar is wired in. */
export const ALWAYS_OPEN: ChangeWindow = {
  refusal: async () => undefined,
};
