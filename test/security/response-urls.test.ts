// Issue 32, item 5, over the signed HTTP receiver: the bot posts answers only to Slack's own
// response URLs. A modal's private_metadata (what a forger with the signing secret could send)
// or a payload naming a loopback address makes the bot post nothing there.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ZONES_IDS } from '../../src/blocks/ids.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import { openForm, purgeFormValues } from '../e2e/flows.js';
import { MEMBER, startHarness } from '../e2e/harness.js';

/** A server on loopback that records what reaches it: where a forged response_url points. */
async function trap(): Promise<{ url: string; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/internal`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const traps: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of traps.splice(0)) await close();
});

describe('response URLs', () => {
  it('a modal submission whose metadata names a loopback response_url: nothing is posted there', async () => {
    const internal = await trap();
    traps.push(internal.close);
    const h = await startHarness();
    await h.login();
    // A channel the bot is not in: the purge's answer would go to the modal's response_url.
    h.slack.addChannel({ id: 'CNOTIN', name: 'outside', botMember: false });
    const viewId = await openForm(h, 'purge', { channel: 'CNOTIN' });
    const view = h.slack.views.get(viewId);
    if (!view) throw new Error('no view');
    view.view.private_metadata = JSON.stringify({ channelId: 'CNOTIN', responseUrl: internal.url });
    await h.submit(viewId, purgeFormValues(h, 'https://example.com/a.css'));
    // The result reaches the requester another way (not the made-up address).
    const [result] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(result?.via).not.toBe('response_url');
    expect(internal.hits).toEqual([]);
  });

  it('a payload whose response_url is not Slack’s is acknowledged and dropped', async () => {
    const internal = await trap();
    traps.push(internal.close);
    const h = await startHarness({ sandbox: { bulkZones: 25 } });
    await h.login();
    await h.command('zones');
    const [list] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    if (!list) throw new Error('no list');
    const payload = {
      ...new SlackPayloads(h.slack, h.workspaceId).blockAction(list, ZONES_IDS.next, {
        user: MEMBER,
      }),
      response_url: internal.url,
    };
    const answer = await h.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(answer.status).toBe(200);
    // Dropped before any listener: said in the log before the acknowledgement.
    expect(h.logs.text()).toContain('payload with a response_url not Slack’s dropped');
    expect(internal.hits).toEqual([]);
    expect(list.history).toHaveLength(0);
  });
});
