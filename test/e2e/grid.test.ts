// Enterprise Grid and Slack Connect, over the signed HTTP receiver: in a workspace of a Grid
// organization, a colleague whose home is another workspace of the same organization is one of
// its people (they approve a purge of everything); someone of another organization in a shared
// channel is refused, and told it is another organization. Installed once for the whole
// organization (OAuth, org-wide), one login serves every workspace of it, its admins administer
// it, and its uninstall removes it. The payloads carry the Grid fields of Slack's recorded ones
// (src/dev/fake-slack/payloads.ts cites them).
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import {
  answerTo,
  everythingRequests,
  installThroughBrowser,
  OAUTH,
  OAUTH_ENV,
  openApprove,
  requestEverything,
} from './flows.js';
import { ADMIN, CDN_KEY, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const ORG = 'E0ACME';
const COLLEAGUE = 'WCOLLEAGUE';
const PARTNER = 'UPARTNER';
const LONER = 'ULONER';
const ORG_ADMIN = 'WORGADMIN';

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

/** The colleague approves the request in `message`: the purge of everything runs, once. */
async function colleagueApproves(h: Harness, message: Message): Promise<void> {
  const viewId = await openApprove(h, message, COLLEAGUE);
  expect((await h.submit(viewId, {}, { user: COLLEAGUE })).body).toBe('');
  await h.slack.waitForMessages((m) => m === message && (m.text?.includes('was purged') ?? false));
  expect(everythingRequests(h)).toHaveLength(1);
  expect(textOf(message.blocks)).toContain(`Approved by <@${COLLEAGUE}>`);
}

const OTHER_ORG = (doing: string) =>
  `You are from another organization (this channel is shared with it through Slack Connect), so you can't ${doing} here. Ask someone from this workspace.`;

describe('a workspace of an Enterprise Grid organization', () => {
  it('lets a colleague of another of its workspaces approve a purge of everything', async () => {
    const h = await gridWorkspace();
    const message = await requestEverything(h);
    await colleagueApproves(h, message);
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

/** Installed for the whole organization over OAuth by its admin, who then logged in once. */
async function orgInstalled(): Promise<Harness> {
  const h = await startHarness({
    slack: { enterpriseId: ORG, orgWideInstall: true, oauth: OAUTH },
    env: OAUTH_ENV,
  });
  h.slack.addUser({ id: COLLEAGUE, name: 'dana', teamId: 'T0SISTER', enterpriseId: ORG });
  h.slack.addUser({ id: PARTNER, name: 'erin', teamId: 'T0PARTNER', enterpriseId: 'E0OTHER' });
  h.slack.addUser({
    id: ORG_ADMIN,
    name: 'olga',
    teamId: 'T0HQ',
    enterpriseId: ORG,
    isOrgAdmin: true,
  });
  const done = await installThroughBrowser(h, {
    orgWide: true,
    enterpriseId: ORG,
    userId: ORG_ADMIN,
  });
  expect(done.status).toBe(200);
  // The organization's one CDN key, as its admin's /cdn login leaves it.
  await h.store.credentials.set(ORG, CDN_KEY, { userId: ORG_ADMIN, validated: true });
  return h;
}

describe('installed once for a whole Enterprise Grid organization', () => {
  it('serves every workspace of it with the one installation and the one login', async () => {
    const h = await orgInstalled();
    const here = await answerTo(h, ADMIN, () => h.command('zones', { user: ADMIN }));
    expect(here).toContain('example.com');
    const sister = await answerTo(h, COLLEAGUE, () =>
      h.command('zones', { user: COLLEAGUE, team: 'T0SISTER' }),
    );
    expect(sister).toContain('example.com');
    // No workspace installation, no workspace key: the organization's.
    const rows = await h.store.db.selectFrom('slack_installations').select('id').execute();
    expect(rows).toEqual([{ id: `E:${ORG}` }]);
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });

  it('lets a colleague from another workspace approve a purge of everything, and refuses an outsider', async () => {
    const h = await orgInstalled();
    const message = await requestEverything(h);
    const refused = await answerTo(h, PARTNER, () =>
      h.click(message, APPROVAL_IDS.approve, { user: PARTNER }),
    );
    expect(refused).toBe(OTHER_ORG('approve or deny purges'));
    expect(everythingRequests(h)).toEqual([]);

    await colleagueApproves(h, message);
  });

  it('its admins administer it from any workspace; a workspace’s admin alone does not', async () => {
    const h = await orgInstalled();
    const opened = h.slack.callsTo('views.open').length;
    await h.command('login', { user: ORG_ADMIN, team: 'T0HQ' });
    await h.slack.waitForCalls((c) => c.method === 'views.open', opened + 1);
    const refused = await answerTo(h, ADMIN, () => h.command('login', { user: ADMIN }));
    expect(refused).toBe(
      "Only your organization's admins and owners can set the CDN API key: cdn-chatops is installed for the whole organization.",
    );
  });

  it('holds purges to its operators group: a member purges, someone outside it is refused', async () => {
    const h = await orgInstalled();
    h.slack.addUsergroup('S0SRE', 'sre', [MEMBER]);
    const set = await answerTo(h, ORG_ADMIN, () =>
      h.command('config operators @sre', { user: ORG_ADMIN }),
    );
    expect(textOf(set)).not.toContain('Something went wrong');
    expect((await h.store.workspaces.ensure(ORG)).operatorGroupId).toBe('S0SRE');

    await h.command('purge example.com https://example.com/a.css', { user: MEMBER });
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    // The organization's token names the group's workspace: the one the command came from.
    const [lookup] = h.slack.callsTo('usergroups.users.list');
    expect(lookup?.args).toMatchObject({ usergroup: 'S0SRE', team_id: h.workspaceId });

    const refused = await answerTo(h, ADMIN, () =>
      h.command('purge example.com https://example.com/b.css', { user: ADMIN }),
    );
    expect(textOf(refused)).toBe(
      "Only members of this workspace's CDN operators group can purge cached content. `/cdn config` shows which group that is.",
    );
    await h.deps.runner.settled();
    const purged = h.sandbox.requests.filter((r) => r.method !== 'GET');
    expect(purged).toHaveLength(1);
    expect(JSON.stringify(purged[0])).toContain('a.css');
  });

  it('its background work finds the organization’s token, after a restart too', async () => {
    const h = await orgInstalled();
    const [orgToken] = h.slack.issuedTokens;
    expect(await h.deps.clients.tokenFor(ORG)).toBe(orgToken);
    await h.restart();
    expect(await h.deps.clients.tokenFor(ORG)).toBe(orgToken);
  });

  it('tokens_revoked for the organization’s bot removes its installation and its key', async () => {
    const h = await orgInstalled();
    const bot = h.slack.botUserId;
    expect((await h.event({ type: 'tokens_revoked', tokens: { bot: [bot] } })).status).toBe(200);
    await h.logs.waitFor('workspace access revoked');
    expect(await h.store.db.selectFrom('slack_installations').selectAll().execute()).toEqual([]);
    expect(await h.store.credentials.get(ORG)).toBeUndefined();
  });

  it('an uninstall for the organization removes its installation and its key', async () => {
    const h = await orgInstalled();
    expect((await h.event({ type: 'app_uninstalled' })).status).toBe(200);
    await h.logs.waitFor('workspace access revoked');
    expect(await h.store.db.selectFrom('slack_installations').selectAll().execute()).toEqual([]);
    expect(await h.store.credentials.get(ORG)).toBeUndefined();
    expect(await h.store.uninstalled.markedAt(ORG)).toBeDefined();
  });
});
