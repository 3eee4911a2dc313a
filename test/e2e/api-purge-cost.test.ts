// What one purge from CI costs the bot's database and Slack (issue 30: a hundred of them at once
// must leave Slack's acks as they were): every statement of one 100-URL purge counted, from its
// POST to the read that finds it final, after a first purge has warmed the caches up.
import type { LogEvent } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SLACK_GAPS } from '../../src/slack/web-api-paces.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const URLS = 100;

async function purge(h: Harness, secret: string, n: number) {
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const urls = Array.from({ length: URLS }, (_, i) => `https://example.com/ci/${n}/${i}.css`);
  const response = await fetch(`${h.url}/api/v1/purges`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': `deploy-${n}` },
    body: JSON.stringify({
      zone: 'example.com',
      urls,
      reason: 'release',
      context: { repository: 'acme/shop', commit: `${n}`, actor: 'ci' },
    }),
  });
  expect(response.status).toBe(202);
  const { url } = (await response.json()) as { url: string };
  await h.deps.runner.settled();
  const read = await fetch(`${h.url}${url}`, { headers });
  return ((await read.json()) as { status: string }).status;
}

describe('one purge from CI', () => {
  it('costs few statements: no write a read already made needless, one post in Slack', async () => {
    let statements: string[] | undefined;
    const h = await startHarness({
      env: { API_RATE_LIMIT_PER_MINUTE: '600' },
      onQuery: (event: LogEvent) => statements?.push(event.query.sql.replace(/\s+/g, ' ')),
    });
    await h.login();
    const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'deploy',
      zones: null,
      kinds: ['urls_tags'],
      channelId: CHANNEL,
    });
    expect(await purge(h, secret, 0)).toBe('succeeded');
    // The channel's next post slot (Slack's one post a second): the second purge's result goes at once.
    h.clock.advance(SLACK_GAPS.channelPostMs);
    const posts = h.slack.callsTo('chat.postMessage').length;
    statements = [];
    expect(await purge(h, secret, 1)).toBe('succeeded');
    const counted = statements;
    statements = undefined;
    const count = (pattern: RegExp) => counted.filter((sql) => pattern.test(sql)).length;
    // Claims are left out: how many the runner makes depends on when it looks, not on the purge.
    const work = counted.filter(
      (sql) => !/^update "jobs" set "state" = \?, "lease_owner"/.test(sql),
    );
    // The token's last use was noted a moment ago (the first purge): not written again.
    expect(count(/^update "api_tokens"/)).toBe(0);
    // The CDN client's key and base URL in one read; the workspace's enterprise known already.
    expect(count(/^select \* from "workspaces"/)).toBe(0);
    // The purge's zone and those that may serve its URLs, never every zone of the workspace.
    expect(count(/^select \* from "zone_index" where "workspace_id" = \? order by/)).toBe(0);
    // The POST reads the zone index once (its zone and those that may serve its URLs together),
    // and its account's key with its index state once; the account's id comes from the accounts
    // it read, and the job records the one the POST stored.
    expect(count(/^select \* from "zone_index" where/)).toBe(1);
    expect(count(/^select "a"."generation" as "key_generation"/)).toBe(1);
    expect(count(/^select "id" from "cdn_accounts"/)).toBe(0);
    // The Slack message's state, saved once (with "announced"), not once more on its own.
    expect(count(/^update "jobs" set "checkpoint"/)).toBe(1);
    // The POST answers from the row it stored, and the message's header is the row this process
    // wrote last (its token, reason and context never change): only the read after it.
    expect(count(/^select \* from "api_purges" where "id"/)).toBeLessThanOrEqual(1);
    // Batches that end together share a write; a progress write only if the purge was not done.
    expect(count(/^update "job_steps"/)).toBeLessThanOrEqual(4);
    // The token's rate (the POST, the read) and its post's slot in the channel (Slack's pace).
    expect(count(/^insert into "rate_slots"/)).toBe(3);
    // The POST reads the workspace's change freezes once (none here: nothing more), and a
    // succeeded purge's status reads its job once, for whether it was asked to warm the cache.
    expect(count(/^select \* from "freezes"/)).toBe(1);
    expect(work.length).toBeLessThanOrEqual(28);
    // Its claim, and looks once it is done (settled() looks at every kind); none for the other
    // kinds at its enqueue, nor at its end, where their last claim had found nothing.
    expect(counted.length - work.length).toBeLessThanOrEqual(4);
    // Its record and audit entry name the account the POST stored (`default`'s id), not read again.
    const { db } = h.store;
    const defaultId = (await db.selectFrom('cdn_accounts').select('id').executeTakeFirstOrThrow())
      .id;
    const recorded = await db.selectFrom('purges').select('account_id').execute();
    expect(recorded.map((row) => row.account_id)).toEqual([defaultId, defaultId]);
    const audited = await db
      .selectFrom('audit_log')
      .select('account_id')
      .where('action', '=', 'purge.urls')
      .execute();
    expect(audited.map((row) => row.account_id)).toEqual([defaultId, defaultId]);
    // Done before its first progress milestone: its result posted, nothing edited.
    expect(h.slack.callsTo('chat.postMessage').length - posts).toBe(1);
    expect(h.slack.callsTo('chat.update')).toEqual([]);
  });
});
