// SlackDirectory over the Web API: users.info for roles and time zones, user groups for operators.
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { SlackDirectory } from '../services/access.js';
import { slackErrorCode } from './web-api-errors.js';

/** Group membership changes rarely and is asked on every change: kept for a minute. */
export class GroupMembersCache {
  readonly cache: LRUCache<string, string[]>;
  constructor(clock: Clock, ttlMs = 60_000) {
    this.cache = new LRUCache({ max: 2_000, ttl: ttlMs, perf: { now: () => clock.now() } });
  }
}

export function webDirectory(
  client: WebClient,
  teamId: string,
  groups: GroupMembersCache,
): SlackDirectory {
  return {
    async user(userId) {
      const { user } = await client.users.info({ user: userId }).catch((error: unknown) => {
        // Someone from another organization in a shared channel, whom this workspace can't see.
        const code = slackErrorCode(error);
        if (code === 'user_not_found' || code === 'user_not_visible')
          throw new AppError({ code: 'stranger' }, { cause: error });
        throw error;
      });
      return {
        isAdmin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
        timeZone: user?.tz ?? 'UTC',
      };
    },
    async groupMembers(groupId) {
      const key = `${teamId}:${groupId}`;
      const cached = groups.cache.get(key);
      if (cached) return cached;
      const { users } = await client.usergroups.users.list({ usergroup: groupId });
      groups.cache.set(key, users ?? []);
      return users ?? [];
    },
  };
}
