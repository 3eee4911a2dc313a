// Purge and warm: once a purge went through, its URLs are asked of the edge again (GET, the same
// checks as a verification), and the edge then serves them from its cache.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { STEP_IDS } from '../../src/listeners/functions/steps.js';
import { finalPurge, startPurge } from './api-flows.js';
import { openForm, purgeFormValues, runStep, stepEnd } from './flows.js';
import { ADMIN, CHANNEL, MEMBER, startHarness, textOf } from './harness.js';

const A = 'https://example.com/a.css';
const B = 'https://example.com/b.js';
const isWarmed = (m: Message) => m.text?.startsWith('Cache warmed on example.com') ?? false;

describe('purge and warm', () => {
  it('/cdn purge --warm refills the edge: the URLs come back cached', async () => {
    const h = await startHarness({ login: true });
    await h.command(`purge example.com ${A} ${B} --warm`);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    const [summary] = await h.slack.waitForMessages(isWarmed);
    expect(summary?.text).toBe('Cache warmed on example.com: 2 of 2 URLs came back cached');
    expect(summary?.channel).toBe(CHANNEL);
    // Each URL fetched in full once (a miss that stores it), then found cached.
    const asked = h.edge.requests.map((r) => `${r.method} ${r.host}${r.path} ${r.status}`);
    expect(asked.filter((line) => line.includes('/a.css'))).toEqual([
      'GET example.com/a.css 200',
      'HEAD example.com/a.css 200',
    ]);
    const [details] = await h.slack.waitForMessages((m) => m.threadTs === summary?.ts);
    expect(textOf(details?.blocks)).toContain('SandboxEdge; hit');
    // The flag is not a URL: only the two URLs were purged.
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/purge')).map((r) => r.body)).toEqual([
      { files: [A, B] },
    ]);
  });

  it('the purge form’s warm box does the same', async () => {
    const h = await startHarness({ login: true });
    const viewId = await openForm(h, 'purge');
    await h.submit(viewId, {
      ...purgeFormValues(h, A),
      [PURGE_IDS.verifyBlock]: {
        [PURGE_IDS.verifyInput]: {
          type: 'checkboxes',
          selected_options: [{ value: 'warm', text: { type: 'plain_text', text: 'Warm' } }],
        },
      },
    });
    const [summary] = await h.slack.waitForMessages(isWarmed);
    expect(summary?.text).toBe('Cache warmed on example.com: 1 of 1 URL came back cached');
  });

  it('a workflow step with warming ends with how many came back cached', async () => {
    const h = await startHarness({ login: true });
    const execution = await runStep(h, STEP_IDS.purge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      items: `${A} ${B}`,
      warm: true,
    });
    expect((await stepEnd(h, execution)).method).toBe('functions.completeSuccess');
    expect(execution.outputs).toMatchObject({ status: 'succeeded', warmed: 2, cached: 2 });
  });

  it('the API takes `warm: true`, and its status tells how many came back cached', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'deploy',
      zones: null,
      kinds: ['urls_tags'],
      channelId: CHANNEL,
    });
    const id = await startPurge(h, secret, { zone: 'example.com', urls: [A, B], warm: true });
    expect(await finalPurge(h, secret, id)).toMatchObject({ status: 'succeeded' });
    await h.slack.waitForMessages(isWarmed);
    await h.deps.runner.settled();
    const read = await fetch(`${h.url}/api/v1/purges/${id}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(await read.json()).toMatchObject({
      status: 'succeeded',
      warm: { done: true, warmed: 2, cached: 2 },
    });
  });
});
