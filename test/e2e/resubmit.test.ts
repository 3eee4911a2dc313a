// A form refused inline and submitted again with the same values (the cause fixed elsewhere) is a
// new delivery and is processed; the same signed request sent twice is one delivery and runs once.
import { describe, expect, it } from 'vitest';
import { LOGIN_IDS } from '../../src/blocks/ids.js';
import { ADMIN, CDN_KEY, startHarness, textOf, viewIdOf } from './harness.js';

const values = {
  [LOGIN_IDS.keyBlock]: { [LOGIN_IDS.keyInput]: { type: 'plain_text_input', value: CDN_KEY } },
  [LOGIN_IDS.baseUrlBlock]: { [LOGIN_IDS.baseUrlInput]: { type: 'url_text_input', value: null } },
};

describe('submitting a modal again after an inline error', () => {
  it('processes the same values pressed again, and runs a replayed request once', async () => {
    const h = await startHarness();
    await h.command('login', { user: ADMIN });
    const viewId = viewIdOf((await h.slack.waitForCalls((c) => c.method === 'views.open'))[0]);

    // The CDN refuses the key once (the account not yet enabled): an inline error, nothing saved.
    h.sandbox.inject({ kind: 'status', status: 403, times: 1 });
    const refused = JSON.parse((await h.submit(viewId, values, { user: ADMIN })).body);
    expect(refused.response_action).toBe('errors');
    expect(refused.errors[LOGIN_IDS.keyBlock]).toContain('refused this key (403)');
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();

    // The same values again, once the CDN takes the key: a new press of Submit, so it is run.
    const saved = JSON.parse((await h.submit(viewId, values, { user: ADMIN })).body);
    expect(saved.response_action).toBe('update');
    expect(textOf(saved.view.blocks)).toContain('Key saved');
    expect((await h.store.credentials.get(h.workspaceId))?.apiKey).toBe(CDN_KEY);

    // That very request again (a retry or a captured replay): acknowledged empty, not run.
    const replayed = await h.replayLast();
    expect(replayed).toMatchObject({ status: 200, body: '' });
    const audit = await h.store.audit.recent(h.workspaceId, { limit: 20 });
    expect(audit.filter((e) => e.action === 'credentials.set')).toHaveLength(1);
    expect(h.sandbox.requests.filter((r) => r.query.per_page === '1')).toHaveLength(2);
  });
});
