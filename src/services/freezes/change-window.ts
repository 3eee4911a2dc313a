// Freezes as the change window a scheduled purge asks when it comes due: refused during a freeze
// that holds the purge back (everything always; URLs and tags when the freeze says so), unless its
// requester holds an approved exception, which the purge then uses up.
import { AppError, type Problem } from '../../errors.js';
import type { ChangeWindow, PlannedChange } from '../purge/change-window.js';
import type { FreezeGate } from './gate.js';

export function freezeWindow(gate: FreezeGate): ChangeWindow {
  return {
    async refusal(change: PlannedChange): Promise<Problem | undefined> {
      try {
        await gate.require({
          workspaceId: change.workspaceId,
          actorId: change.requesterId,
          action: change.kind === 'everything' ? 'everything' : 'purge',
          zone: { id: change.zoneId, name: change.zoneName, accountId: change.accountId },
        });
        return undefined;
      } catch (error) {
        if (error instanceof AppError) return error.problem;
        throw error;
      }
    },
  };
}
