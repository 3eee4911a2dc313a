// requestContext, callerOf, ackedIn and tracked, driven directly with fakes of Bolt's arguments.
import type { Context } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import {
  ackedIn,
  callerOf,
  isOutsider,
  requestContext,
  tracked,
} from '../../src/listeners/context.js';
import type { Caller } from '../../src/services/access/access.js';
import { GroupMembersCache } from '../../src/slack/directory.js';
import { InstantClock } from '../helpers/clock.js';
import {
  blockSuggestion,
  buildArguments,
  CHANNEL,
  eventCallback,
  fakeClient,
  homeButton,
  messageButton,
  type Overrides,
  slashCommand,
  TEAM,
  USER,
  viewSubmission,
} from './helpers.js';

/** Runs requestContext over `overrides`' request; returns the caller it resolved and the fakes. */
async function resolve(overrides: Overrides) {
  const built = buildArguments(overrides);
  const groups = new GroupMembersCache(new InstantClock());
  let seen: Caller | undefined;
  built.next.mockImplementation(async () => {
    seen = callerOf(built.context);
  });
  await requestContext(groups)(built.args);
  expect(built.next).toHaveBeenCalledOnce();
  if (!seen) throw new Error('next ran without a caller');
  return { ...built, groups, caller: seen };
}

/** A context in which Bolt named no team. */
const unauthorized = (): Context => ({ isEnterpriseInstall: false });

describe('requestContext: the workspace', () => {
  const everywhere = {
    team_id: 'T0FIELD',
    team: { id: 'T0TEAMOBJ' },
    user: { id: USER, team_id: 'T0USERS' },
  };

  it('is Bolt’s authorized team first', async () => {
    const { caller } = await resolve({
      body: everywhere,
      context: { isEnterpriseInstall: false, teamId: 'T0BOLT' },
    });
    expect(caller.workspaceId).toBe('T0BOLT');
  });

  it('else the payload’s team', async () => {
    const { caller } = await resolve({ body: everywhere, context: unauthorized() });
    expect(caller.workspaceId).toBe('T0TEAMOBJ');
  });

  it('else the user’s team (team is null in org-wide payloads)', async () => {
    const { caller } = await resolve({
      body: { ...everywhere, team: null },
      context: unauthorized(),
    });
    expect(caller.workspaceId).toBe('T0USERS');
  });

  it('else the top-level team_id (slash commands, event envelopes)', async () => {
    const { caller } = await resolve({
      body: { team_id: 'T0FIELD', user_id: USER },
      context: unauthorized(),
    });
    expect(caller.workspaceId).toBe('T0FIELD');
  });

  it('is empty when nothing names one', async () => {
    const { caller } = await resolve({ body: { user_id: USER }, context: unauthorized() });
    expect(caller.workspaceId).toBe('');
  });
});

describe('requestContext: the user', () => {
  it.each([
    ['a slash command’s user_id', slashCommand({ user_id: 'U0CMD' }), 'U0CMD'],
    ['a button’s user', homeButton('home_login'), USER],
    ['a submission’s user', viewSubmission('create_modal'), USER],
    ['an options request’s user', blockSuggestion('zone_picker', 'exa'), USER],
    [
      'an event’s user',
      eventCallback({ type: 'app_home_opened', user: 'U0EVENT', tab: 'home' }),
      'U0EVENT',
    ],
    // user_change and the like carry a whole user object: that is not who acted.
    [
      'nobody, for an event whose user is an object',
      eventCallback({ type: 'user_change', user: { id: 'U0OBJ' } }),
      '',
    ],
    ['nobody, for an event with no user', eventCallback({ type: 'app_uninstalled' }), ''],
  ])('is %s', async (_name, body, expected) => {
    const { caller } = await resolve({ body });
    expect(caller.userId).toBe(expected);
  });
});

describe('requestContext: the directory', () => {
  it('is built for the request without calling Slack', async () => {
    const { client, caller } = await resolve({ body: slashCommand() });
    expect(caller.workspaceId).toBe(TEAM);
    expect(client.users.info).not.toHaveBeenCalled();
    expect(client.usergroups.users.list).not.toHaveBeenCalled();
    expect(client.chat.postMessage).not.toHaveBeenCalled();
  });

  it('asks the request’s client for a user', async () => {
    const { client, caller } = await resolve({ body: slashCommand() });
    client.users.info.mockResolvedValueOnce({
      ok: true,
      user: { id: 'U0BOB', is_admin: true, tz: 'Europe/Paris' },
    });
    expect(await caller.directory.user('U0BOB')).toEqual({
      isAdmin: true,
      timeZone: 'Europe/Paris',
    });
    expect(client.users.info).toHaveBeenCalledExactlyOnceWith({ user: 'U0BOB' });
  });

  it.each([
    ['users.info does not find them', 'user_not_found'],
    ['users.info may not show them', 'user_not_visible'],
  ])('calls a user a stranger when %s', async (_name, error) => {
    const { client, caller } = await resolve({ body: slashCommand() });
    client.users.info.mockRejectedValueOnce(
      Object.assign(new Error(`An API error occurred: ${error}`), {
        data: { ok: false, error },
      }),
    );
    expect(await caller.directory.user('U0GUEST')).toEqual({
      isAdmin: false,
      timeZone: 'UTC',
      stranger: 'unknown',
    });
  });

  it.each([
    ['Slack marks is_stranger', { team_id: TEAM, is_stranger: true }, 'unknown', undefined],
    ['they belong to another team', { team_id: 'T0OTHER' }, 'external', undefined],
    [
      'another team of another organization',
      { team_id: 'T0OTHER', enterprise_user: { enterprise_id: 'E0THEIRS' } },
      'organization',
      'E0OURS',
    ],
    [
      'nothing, for another team of the same organization',
      { team_id: 'T0SISTER', enterprise_user: { enterprise_id: 'E0OURS' } },
      undefined,
      'E0OURS',
    ],
    ['nothing, for this team’s own', { team_id: TEAM }, undefined, undefined],
  ])('calls a user a stranger when %s', async (_name, user, stranger, enterpriseId) => {
    const { client, caller } = await resolve({
      body: slashCommand(),
      context: {
        isEnterpriseInstall: false,
        teamId: TEAM,
        ...(enterpriseId ? { enterpriseId } : {}),
      },
    });
    client.users.info.mockResolvedValueOnce({ ok: true, user: { id: 'U0X', ...user } });
    expect((await caller.directory.user('U0X')).stranger).toBe(stranger);
  });

  it.each([
    ['a multi-channel guest', { is_restricted: true, is_ultra_restricted: false }, true],
    // Slack's own example answer marks a single-channel guest with is_ultra_restricted alone.
    ['a single-channel guest', { is_restricted: false, is_ultra_restricted: true }, true],
    ['a full member', { is_restricted: false, is_ultra_restricted: false }, undefined],
  ])('knows %s', async (_name, flags, isGuest) => {
    const { client, caller } = await resolve({ body: slashCommand() });
    client.users.info.mockResolvedValueOnce({
      ok: true,
      user: { id: 'U0X', team_id: TEAM, ...flags },
    });
    expect((await caller.directory.user('U0X')).isGuest).toBe(isGuest);
  });

  it('lets other failures of users.info through', async () => {
    const { client, caller } = await resolve({ body: slashCommand() });
    const failure = Object.assign(new Error('An API error occurred: ratelimited'), {
      data: { ok: false, error: 'ratelimited' },
    });
    client.users.info.mockRejectedValueOnce(failure);
    await expect(caller.directory.user('U0X')).rejects.toBe(failure);
  });

  it('caches a profile for a minute under the resolved workspace', async () => {
    const { client, caller, groups } = await resolve({ body: slashCommand() });
    client.users.info.mockResolvedValueOnce({ ok: true, user: { id: 'U0X', team_id: TEAM } });
    await caller.directory.user('U0X');
    await caller.directory.user('U0X');
    expect(client.users.info).toHaveBeenCalledOnce();
    expect([...groups.users.keys()]).toEqual([`${TEAM}:U0X`]);
  });

  it('tells WorkspaceClients where an authorized workspace is installed', async () => {
    const built = buildArguments({
      body: slashCommand(),
      context: { isEnterpriseInstall: false, teamId: 'T0GRID', enterpriseId: 'E0ORG' },
    });
    const remember = vi.fn();
    await requestContext(new GroupMembersCache(new InstantClock()), { remember })(built.args);
    expect(remember).toHaveBeenCalledExactlyOnceWith('T0GRID', {
      enterpriseId: 'E0ORG',
      isEnterpriseInstall: false,
    });
  });

  it('keeps an org-wide install’s requests under the organization, from any of its workspaces', async () => {
    const built = buildArguments({
      body: slashCommand(),
      context: { isEnterpriseInstall: true, teamId: 'T0GRID', enterpriseId: 'E0ORG' },
    });
    const remember = vi.fn();
    await requestContext(new GroupMembersCache(new InstantClock()), { remember })(built.args);
    expect(callerOf(built.args.context).workspaceId).toBe('E0ORG');
    expect(remember).toHaveBeenCalledExactlyOnceWith('E0ORG', {
      enterpriseId: 'E0ORG',
      isEnterpriseInstall: true,
    });
  });

  it('caches group members under the resolved workspace', async () => {
    const { client, caller, groups } = await resolve({
      body: slashCommand(),
      context: { isEnterpriseInstall: false, teamId: 'T0BOLT' },
    });
    client.usergroups.users.list.mockResolvedValueOnce({ ok: true, users: ['U1', 'U2'] });
    expect(await caller.directory.groupMembers('S0OPS')).toEqual(['U1', 'U2']);
    expect(await caller.directory.groupMembers('S0OPS')).toEqual(['U1', 'U2']);
    expect(client.usergroups.users.list).toHaveBeenCalledExactlyOnceWith({ usergroup: 'S0OPS' });
    expect([...groups.cache.keys()]).toEqual(['T0BOLT:S0OPS']);
  });

  it('names the request’s workspace to an org-wide install’s group lookup (Slack requires it)', async () => {
    const { client, caller, groups } = await resolve({
      body: slashCommand({ team_id: 'T0GRID' }),
      context: { isEnterpriseInstall: true, teamId: 'T0GRID', enterpriseId: 'E0ORG' },
    });
    client.usergroups.users.list.mockResolvedValueOnce({ ok: true, users: ['U1'] });
    expect(await caller.directory.groupMembers('S0OPS')).toEqual(['U1']);
    expect(client.usergroups.users.list).toHaveBeenCalledExactlyOnceWith({
      usergroup: 'S0OPS',
      team_id: 'T0GRID',
    });
    expect([...groups.cache.keys()]).toEqual(['E0ORG:T0GRID:S0OPS']);
  });
});

describe('requestContext: the chain', () => {
  it('lets what a later middleware throws through (answering is the error policy’s)', async () => {
    const built = buildArguments({ body: slashCommand() });
    const failure = new Error('boom');
    built.next.mockRejectedValueOnce(failure);
    await expect(
      requestContext(new GroupMembersCache(new InstantClock()))(built.args),
    ).rejects.toBe(failure);
  });
});

describe('callerOf', () => {
  it('throws when requestContext did not run', () => {
    expect(() => callerOf({ isEnterpriseInstall: false })).toThrow(
      'requestContext middleware did not run',
    );
  });

  it('returns what requestContext set', async () => {
    const { context, caller } = await resolve({ body: slashCommand() });
    expect(callerOf(context)).toBe(caller);
    expect(caller).toMatchObject({ workspaceId: TEAM, userId: USER });
  });
});

describe('tracked', () => {
  const fresh = (): Context => ({ isEnterpriseInstall: false });

  it('records an ack in the context and passes the response through', async () => {
    const context = fresh();
    const ack = vi.fn(async (_response?: unknown) => {});
    const response = { response_action: 'errors', errors: { zone: 'Pick a zone' } };
    const before: boolean[] = [];
    await tracked(async (args: { ack: typeof ack; context: Context }) => {
      before.push(ackedIn(args.context));
      await args.ack(response);
    })({ ack, context });

    expect(before).toEqual([false]);
    expect(ack).toHaveBeenCalledExactlyOnceWith(response);
    expect(context.acked).toBe(true);
    expect(ackedIn(context)).toBe(true);
  });

  it('passes an empty ack through empty', async () => {
    const context = fresh();
    const ack = vi.fn(async (_response?: unknown) => {});
    await tracked(async (args: { ack: typeof ack; context: Context }) => {
      await args.ack();
    })({ ack, context });
    expect(ack).toHaveBeenCalledExactlyOnceWith();
    expect(ackedIn(context)).toBe(true);
  });

  it('leaves the context unacknowledged when the listener did not ack', async () => {
    const context = fresh();
    const ack = vi.fn(async (_response?: unknown) => {});
    await tracked(async (_args: { ack: typeof ack; context: Context }) => {})({ ack, context });
    expect(ack).not.toHaveBeenCalled();
    expect(context.acked).toBeUndefined();
    expect(ackedIn(context)).toBe(false);
  });

  it('hands the listener every other argument as it was', async () => {
    const context = fresh();
    const body = { type: 'view_submission' };
    const ack = vi.fn(async (_response?: unknown) => {});
    let seen: { body: unknown; context: Context } | undefined;
    await tracked(async (args: { ack: typeof ack; context: Context; body: unknown }) => {
      seen = args;
    })({ ack, context, body });
    expect(seen?.body).toBe(body);
    expect(seen?.context).toBe(context);
  });

  it('lets the listener’s failure through, with the ack recorded', async () => {
    const context = fresh();
    const ack = vi.fn(async (_response?: unknown) => {});
    const failure = new Error('boom');
    await expect(
      tracked(async (args: { ack: typeof ack; context: Context }) => {
        await args.ack();
        throw failure;
      })({ ack, context }),
    ).rejects.toBe(failure);
    expect(ackedIn(context)).toBe(true);
  });

  it('counts an ack Bolt refused as made (a second ack would be refused too)', async () => {
    const context = fresh();
    const refused = new Error('ReceiverMultipleAckError');
    const ack = vi.fn(async (_response?: unknown) => {
      throw refused;
    });
    await expect(
      tracked(async (args: { ack: typeof ack; context: Context }) => {
        await args.ack();
      })({ ack, context }),
    ).rejects.toBe(refused);
    expect(ackedIn(context)).toBe(true);
  });
});

/** What a responding listener receives, as far as these tests look. */
type Responding = {
  ack: () => Promise<void>;
  context: Context;
  respond: (message: unknown) => Promise<unknown>;
};
const responds = (message: unknown) =>
  tracked(async (args: Responding) => {
    await args.respond(message);
  });

describe('tracked: respond', () => {
  /** Runs a tracked listener that responds `message` through a response_url that refuses it. */
  async function respondThroughDeadUrl(message: Record<string, unknown>, body = slashCommand()) {
    const built = buildArguments({
      body,
      respond: vi.fn(async (_message: unknown) => {
        throw Object.assign(new Error('404'), {
          code: 'slack_bolt_respond_error',
          statusCode: 404,
        });
      }),
    });
    await responds(message)(built.args as unknown as Responding);
    return built;
  }
  const reply = { text: 'Zones', blocks: [] };

  it('says an ephemeral answer in the channel when the response_url refuses it', async () => {
    const built = await respondThroughDeadUrl({ response_type: 'ephemeral', ...reply });
    expect(built.respond).toHaveBeenCalledOnce();
    expect(built.client.chat.postEphemeral).toHaveBeenCalledExactlyOnceWith({
      channel: CHANNEL,
      user: USER,
      ...reply,
    });
  });

  it('posts an in_channel answer in the channel, replacing nothing', async () => {
    const built = await respondThroughDeadUrl({
      response_type: 'in_channel',
      replace_original: true,
      ...reply,
    });
    expect(built.client.chat.postMessage).toHaveBeenCalledExactlyOnceWith({
      channel: CHANNEL,
      ...reply,
    });
  });

  it('sends a DM when the channel refuses too', async () => {
    const client = fakeClient();
    client.chat.postEphemeral.mockRejectedValueOnce(new Error('not_in_channel'));
    const built = buildArguments({
      client,
      respond: vi.fn(async () => {
        throw new Error('expired');
      }),
    });
    await responds(reply)(built.args as unknown as Responding);
    expect(client.chat.postMessage).toHaveBeenCalledExactlyOnceWith({ channel: USER, ...reply });
  });

  it('answers a button in the channel of its message', async () => {
    const built = await respondThroughDeadUrl(reply, messageButton('zones_next'));
    expect(built.client.chat.postEphemeral).toHaveBeenCalledExactlyOnceWith({
      channel: CHANNEL,
      user: USER,
      ...reply,
    });
  });

  it('leaves respond alone when the response_url takes the answer', async () => {
    const built = buildArguments({ body: slashCommand() });
    await responds(reply)(built.args as unknown as Responding);
    expect(built.respond).toHaveBeenCalledExactlyOnceWith(reply);
    expect(built.client.chat.postEphemeral).not.toHaveBeenCalled();
    expect(built.client.chat.postMessage).not.toHaveBeenCalled();
  });
});

describe('ackedIn', () => {
  it.each([
    [undefined, false],
    [false, false],
    ['yes', false],
    [true, true],
  ])('is %s → %s', (acked, expected) => {
    expect(ackedIn({ isEnterpriseInstall: false, acked })).toBe(expected);
  });
});

describe('isOutsider', () => {
  const context = {} as Context;
  const click = (user: Record<string, string>, team: Record<string, string> = { id: 'T1' }) => ({
    type: 'block_actions',
    user: { id: 'U1', ...user },
    team,
  });

  it('is someone whose own team is neither the workspace nor its Enterprise org', () => {
    expect(isOutsider(click({ team_id: 'T2' }), context)).toBe(true);
    expect(isOutsider(click({ team_id: 'T2' }), { teamId: 'T1' } as Context)).toBe(true);
  });

  it('is not the workspace’s own people, nor its org’s, nor a payload that names no team', () => {
    expect(isOutsider(click({ team_id: 'T1' }), context)).toBe(false);
    expect(isOutsider(click({ team_id: 'E1' }, { id: 'T1', enterprise_id: 'E1' }), context)).toBe(
      false,
    );
    expect(isOutsider(click({}), context)).toBe(false);
    expect(isOutsider({ user_id: 'U1', team_id: 'T1' }, context)).toBe(false);
  });
});
