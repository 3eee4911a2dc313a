// ?wait reads woken together (the shared status read finds a hundred purges changed at once)
// answer one per turn of the event loop: a Slack request arriving meanwhile is read between two
// answers, not after all of them (issue 30: acks beside a hundred CI purges).
import { describe, expect, it } from 'vitest';
import type { ApiPurgeState } from '../../../src/services/api/api-purge-status.js';
import { ApiPurgeService } from '../../../src/services/api/api-purges.js';
import type { ApiToken } from '../../../src/services/api/api-tokens.js';
import type { ApiPurge } from '../../../src/store/api-purges.js';
import { captureLogs } from '../../helpers/logs.js';

const token = { id: 'tok1', workspaceId: 'T1', name: 'ci' } as ApiToken;

function purge(id: string, status: ApiPurge['status']): ApiPurge {
  return {
    id,
    workspaceId: 'T1',
    tokenId: token.id,
    tokenName: 'ci',
    idempotencyKey: null,
    bodyHash: '',
    zoneId: 'z1',
    zoneName: 'example.com',
    accountId: 'acc_1',
    accountName: 'default',
    kind: 'urls',
    status,
    done: 0,
    total: 1,
    approvalId: null,
    error: null,
    reason: null,
    context: null,
    createdAt: 0,
    updatedAt: 0,
  };
}

describe('waiting reads of API purges', () => {
  it('are answered one per turn of the event loop when the shared read wakes many', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `p${i}`);
    const store = {
      apiPurges: {
        many: async (wanted: string[]) => new Map(wanted.map((id) => [id, purge(id, 'running')])),
        get: async (id: string) => purge(id, 'running'),
      },
    };
    const service = new ApiPurgeService({
      store,
      logger: captureLogs('info').logger,
      settings: { requestsPerMinute: 0, approvalTtlMs: 60_000, maxItems: 100, waitPollMs: 10 },
    } as never);
    // The loop's turns, counted by an immediate that schedules the next one.
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const answeredIn: number[] = [];
    const signal = new AbortController().signal;
    const reads = ids.map((id) => {
      const first: ApiPurgeState = {
        id,
        status: 'queued',
        zone: 'example.com',
        account: 'default',
        kind: 'urls',
        progress: { done: 0, total: 1 },
      };
      return service.waitFrom(token, first, 5, signal).then((state) => {
        answeredIn.push(turn);
        return state.status;
      });
    });
    expect(await Promise.all(reads)).toEqual(ids.map(() => 'running'));
    counting = false;
    // Each answer in a turn of its own.
    expect(new Set(answeredIn).size).toBe(ids.length);
  });
});
