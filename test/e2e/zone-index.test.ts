// The zone index through the real bot: built when a key is saved, used by commands without CDN
// requests, refreshed after /cdn create, probed for a zone made outside the bot, replaced with the
// key, and behind the zone picker at 10,000 zones.
import { describe, expect, it } from 'vitest';
import { LOGIN_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import type { RecordedRequest } from '../../src/dev/sandbox/server.js';
import { commandReply, modalOpenedBy } from './flows.js';
import { ADMIN, CDN_KEY, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const OTHER_ACCOUNT_KEY = 'sk_e2e_other_account_9b7c';

const isList = (r: RecordedRequest) => r.method === 'GET' && r.path === '/zones';
const lists = (h: Harness) => h.sandbox.requests.filter(isList);

/** Saves `key` as an admin would: /cdn login, the modal, submitted. */
async function saveKey(h: Harness, key: string): Promise<void> {
  const answer = await h.submit(
    await modalOpenedBy(h, () => h.command('login', { user: ADMIN })),
    {
      [LOGIN_IDS.keyBlock]: { [LOGIN_IDS.keyInput]: { type: 'plain_text_input', value: key } },
      [LOGIN_IDS.baseUrlBlock]: {
        [LOGIN_IDS.baseUrlInput]: { type: 'url_text_input', value: null },
      },
    },
    { user: ADMIN },
  );
  expect(textOf(JSON.parse(answer.body).view.blocks)).toContain('Key saved. It works');
}

/** The options a zone picker offers for `typed`, as their texts. */
async function offered(h: Harness, typed: string): Promise<string[]> {
  const answer = await h.suggest(ZONE_PICKER_IDS.action, typed);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body).options as Array<{ text: { text: string } }>).map(
    (o) => o.text.text,
  );
}

describe('the zone index', () => {
  it('is built as soon as a key is saved: the first named lookup costs no CDN request', async () => {
    const h = await startHarness({ sandbox: { bulkZones: 250 } });
    await saveKey(h, CDN_KEY);
    // The listing (pages of 100) follows the key check (per_page=1) without anyone asking.
    await h.sandbox.waitFor((r) => isList(r) && r.query.per_page === '100', 3);
    await h.deps.zoneIndex.idle();
    const before = h.sandbox.requests.length;

    await h.command('purge zone-125.bulk.test everything', { user: MEMBER });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open', 2);
    expect(opened?.response.ok).toBe(true);
    expect(textOf(h.slack.callsTo('views.open')[1]?.args.view)).toContain('zone-125.bulk.test');
    expect(h.sandbox.requests.length).toBe(before);
  });

  it('is refreshed after /cdn create: the new zone is then named without a listing', async () => {
    const h = await startHarness({ login: true, sandbox: { bulkZones: 250 } });
    await h.command('analytics example.com');
    await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal');
    expect(lists(h)).toHaveLength(3);

    const reply = await commandReply(h, 'create fresh.example.dev');
    expect(textOf(reply?.blocks)).toContain('fresh.example.dev');
    // The refresh that follows the create: a whole listing again, in the background.
    await h.sandbox.waitFor(isList, 6);
    await h.deps.zoneIndex.idle();
    const before = h.sandbox.requests.length;

    await h.command('ratelimit fresh.example.dev on');
    await h.sandbox.waitFor((r) => r.method === 'POST' && r.path.endsWith('/settings'));
    expect(h.sandbox.requests.slice(before).filter(isList)).toEqual([]);
    expect(await offered(h, 'fresh')).toEqual(['fresh.example.dev (pending)']);
  });

  it('finds a zone created outside the bot after one targeted request', async () => {
    const h = await startHarness({ login: true, sandbox: { bulkZones: 250 } });
    expect(await offered(h, 'example.org')).toEqual(['shop.example.org (active)']);
    expect(lists(h)).toHaveLength(3);
    h.sandbox.state.create('outside.example.org', 'free');

    await h.command('purge outside.example.org everything', { user: MEMBER });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    expect(opened?.response.ok).toBe(true);
    expect(textOf(opened?.args.view)).toContain('outside.example.org');
    // 259 zones indexed: only page 3, where a zone created since is listed, was asked for.
    expect(
      lists(h)
        .slice(3)
        .map((r) => r.query.page),
    ).toEqual(['3']);
    expect(await offered(h, 'example.org')).toEqual([
      'outside.example.org (pending)',
      'shop.example.org (active)',
    ]);
    expect(lists(h)).toHaveLength(4);
  });

  it('is replaced when the key changes: nothing of the old account is offered or found', async () => {
    const h = await startHarness({
      sandbox: { accounts: { [OTHER_ACCOUNT_KEY]: { bulkZones: 3 } } },
    });
    await h.login(CDN_KEY);
    expect(await offered(h, 'example.com')).toContain('static.example.com (active)');

    await saveKey(h, OTHER_ACCOUNT_KEY);
    await h.deps.zoneIndex.idle();
    expect(await offered(h, '')).toEqual([
      'zone-1.bulk.test (active)',
      'zone-2.bulk.test (active)',
      'zone-3.bulk.test (active)',
    ]);
    expect(await offered(h, 'example')).toEqual([]);
    await h.command('analytics example.com');
    const [reply] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url' && (m.text?.startsWith('No zone') ?? false),
    );
    expect(reply?.text).toContain('example.com');
    expect(h.sandbox.requests.some((r) => r.path.endsWith('/analytics/traffic'))).toBe(false);
  });

  it('serves the zone picker at 10,000 zones: prefix matches first, at most 100', async () => {
    const h = await startHarness({ login: true, sandbox: { demoZones: false, bulkZones: 10_000 } });
    // The first picker of a workspace waits for the index to be built (on this clock, always).
    expect(await offered(h, 'zone-0999')).toEqual(
      Array.from({ length: 10 }, (_, i) => `zone-0999${i}.bulk.test (active)`),
    );
    expect(lists(h)).toHaveLength(100);
    const anywhere = await offered(h, '42');
    expect(anywhere).toHaveLength(100);
    expect(anywhere[0]).toBe('zone-00042.bulk.test (active)');
    expect(await offered(h, '')).toHaveLength(100);
    expect(await offered(h, 'zone-10000.bulk.test')).toEqual(['zone-10000.bulk.test (active)']);
    expect(lists(h)).toHaveLength(100);
  });
});
