// Enterprise Grid and Slack Connect, over the signed HTTP receiver: in a workspace of a Grid
// organization, a colleague whose home is another workspace of the same organization is one of
// its people (they approve a purge of everything); someone of another organization in a shared
// channel is refused, and told it is another organization. The payloads carry the Grid fields of
// Slack's recorded ones (src/dev/fake-slack/payloads.ts cites them).
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import { answerTo, everythingRequests, openApprove, requestEverything } from './flows.js';
import { ADMIN, type Harness, startHarness, textOf } from './harness.js';

const ORG = 'E0ACME';
const COLLEAGUE = 'WCOLLEAGUE';
const PARTNER = 'UPARTNER';
const LONER = 'ULONER';

async function gridWorkspace(): Promise<Harness> {
  const h = await startHarness({ slack: { enterpriseId: ORG } });
  // Home workspace: another of the organization's.
  h.slack.addUser({ id: COLLEAGUE, name: 'dana', teamId: 'T0SISTER', enterpriseId: ORG });
  // Slack Connect: a workspace of another Grid organization, and one of no organization.
  h.slack.addUser({ id: PARTNER, name: 'erin', teamId: 'T0PARTNER', enterpriseId: 'E0OTHER' });
  h.slack.addUser({ id: LONER, name: 'finn', teamId: 'T0LONER' });
  await h.login();
  return h;
}

const OTHER_ORG = (doing: string) =>
  `You are from another organization (this channel is shared with it through Slack Connect), so you can't ${doing} here. Ask someone from this workspace.`;

describe('a workspace of an Enterprise Grid organization', () => {
  it('lets a colleague of another of its workspaces approve a purge of everything', async () => {
    const h = await gridWorkspace();
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, COLLEAGUE);
    expect((await h.submit(viewId, {}, { user: COLLEAGUE })).body).toBe('');
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
    expect(textOf(message.blocks)).toContain(`Approved by <@${COLLEAGUE}>`);
  });

  it('lets a colleague list zones, as one of its people', async () => {
    const h = await gridWorkspace();
    const zones = await answerTo(h, COLLEAGUE, () => h.command('zones', { user: COLLEAGUE }));
    expect(zones).toContain('example.com');
  });

  it.each([
    ['of another Grid organization', PARTNER],
    ['of a workspace of no organization', LONER],
  ])('refuses someone %s, saying it is another organization', async (_name, user) => {
    const h = await gridWorkspace();
    const message = await requestEverything(h);
    const approve = await answerTo(h, user, () => h.click(message, APPROVAL_IDS.approve, { user }));
    expect(approve).toBe(OTHER_ORG('approve or deny purges'));
    const purge = await answerTo(h, user, () =>
      h.command('purge example.com https://example.com/a.css', { user }),
    );
    expect(purge).toBe(OTHER_ORG('purge cached content'));
    expect(everythingRequests(h)).toEqual([]);
    expect(h.sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('shares a colleague’s audit export with them: the background job knows the organization too', async () => {
    const h = await gridWorkspace();
    await h.command('ratelimit example.com on');
    await answerTo(h, COLLEAGUE, () => h.command('audit export', { user: COLLEAGUE }));
    // Past the people cache of the request: the job asks users.info itself.
    h.clock.advance(61_000);
    await h.deps.runner.settled();
    const [complete] = await h.slack.waitForCalls(
      (call) => call.method === 'files.completeUploadExternal',
    );
    expect(complete?.args.channel_id).toBe(`D${COLLEAGUE}`);
  });

  it('still lets its own admin approve', async () => {
    const h = await gridWorkspace();
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, ADMIN);
    expect((await h.submit(viewId, {}, { user: ADMIN })).body).toBe('');
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
  });
});
