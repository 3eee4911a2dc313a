// What a service that makes changes asks of freezes: whether an action may go now. Its own file,
// so that services the freeze service itself uses (accounts, zones) can ask too.
import type { FreezeAction } from '../../store/freezes.js';
import type { FreezeWindow } from './windows.js';

/** What the gate is asked about: an action on a zone, or (zone creation) on an account. */
export interface FreezeCheck {
  workspaceId: string;
  /** Who acts: a Slack user, or `token:<name>` (an API token never holds an exception). */
  actorId: string;
  action: FreezeAction;
  zone?: { id: string; name: string; accountId: string };
  /** The account of a zone creation. */
  accountId?: string | undefined;
}

/** A freeze in force that refuses a check, as the HTTP API names it. */
export interface BlockingFreeze {
  freeze: { id: string; targetName: string; reason: string; timeZone: string };
  window: FreezeWindow;
}

export interface FreezeGate {
  /**
   * Refuses the action during a freeze (AppError frozen) unless the actor holds an approved
   * exception for it, which is then used up.
   */
  require(check: FreezeCheck): Promise<void>;
  /**
   * Refuses the action during a freeze as `require` does, but an exception the actor holds is
   * only looked at, not used (a form about to ask for the action answers at once).
   */
  precheck(check: FreezeCheck): Promise<void>;
  /** The freezes in force that refuse the check, the one that ends last first; nothing is used. */
  blocking(check: FreezeCheck): Promise<BlockingFreeze[]>;
}
