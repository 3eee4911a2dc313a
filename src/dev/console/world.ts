// The console's pretend workspace: who can act, where messages go, and how typed text is turned
// into what Slack would send (mentions and channels escaped, as with `should_escape: true`).
import { md } from '../../blocks/text.js';
import type { FakeSlack } from '../fake-slack/server.js';

export const CONSOLE_TEAM_ID = 'TCONSOLE';
export const CONSOLE_BOT_TOKEN = 'xoxb-console';

export interface ConsoleUser {
  id: string;
  name: string;
  role: string;
}

/** An admin (who logs in and configures) and two members (who purge and approve). */
export const CONSOLE_USERS: readonly ConsoleUser[] = [
  { id: 'UALICE', name: 'alice', role: 'workspace admin' },
  { id: 'UBOB', name: 'bob', role: 'member' },
  { id: 'UCAROL', name: 'carol', role: 'member' },
];

/** Where commands are typed; the bot is a member of both. */
export const CONSOLE_CHANNEL = { id: 'COPS', name: 'ops' };
const CHANNELS = [
  { id: 'COPS', name: 'ops', botMember: true },
  { id: 'CREPORTS', name: 'cdn-reports', botMember: true },
  // One the bot was never invited to, to see what happens.
  { id: 'CRANDOM', name: 'random', botMember: false },
];
const GROUPS = [
  { id: 'SSRE', handle: 'sre', members: ['UALICE', 'UBOB'] },
  { id: 'SLEADS', handle: 'leads', members: ['UALICE', 'UCAROL'] },
];

export function seedWorld(slack: FakeSlack, timeZone: string): void {
  for (const user of CONSOLE_USERS) {
    slack.addUser({ id: user.id, name: user.name, isAdmin: user.id === 'UALICE', tz: timeZone });
  }
  for (const channel of CHANNELS) slack.addChannel(channel);
  for (const group of GROUPS) slack.addUsergroup(group.id, group.handle, group.members);
}

export function userNamed(name: string): ConsoleUser | undefined {
  const wanted = name.replace(/^@/, '').toLowerCase();
  return CONSOLE_USERS.find((user) => user.name === wanted);
}

/** Display names for ids, for rendering `<@U…>` and `<#C…>`. */
export const USER_NAMES: ReadonlyMap<string, string> = new Map(
  CONSOLE_USERS.map((user) => [user.id, user.name]),
);
export const CHANNEL_NAMES: ReadonlyMap<string, string> = new Map(
  CHANNELS.map((channel) => [channel.id, channel.name]),
);

export const GROUP_HANDLES: ReadonlyMap<string, string> = new Map(
  GROUPS.map((group) => [group.id, group.handle]),
);

/** How the console names users, channels and groups when it renders mrkdwn. */
export const NAMES = { users: USER_NAMES, channels: CHANNEL_NAMES, groups: GROUP_HANDLES };

export function channelNamed(name: string): { id: string; name: string } | undefined {
  const wanted = name.replace(/^#/, '').toLowerCase();
  return CHANNELS.find((channel) => channel.name === wanted);
}

export const CONSOLE_CHANNELS: ReadonlyArray<{ id: string; name: string }> = CHANNELS;

/**
 * Command text as Slack delivers it: `&`, `<` and `>` as entities, then `https://…` →
 * `<https://…>`, `#ops` → `<#COPS|ops>`, `@bob` → `<@UBOB|bob>`, `@sre` → `<!subteam^SSRE|@sre>`.
 */
export function escapeCommandText(text: string): string {
  return md`${text}`.text
    .replace(/(^|\s)(https?:\/\/\S+)/gi, '$1<$2>')
    .replace(
      /(^|\s)([#@])([a-z0-9._-]+)(?=\s|$)/gi,
      (whole, space: string, sigil, name: string) => {
        if (sigil === '#') {
          const channel = channelNamed(name);
          return channel ? `${space}<#${channel.id}|${channel.name}>` : whole;
        }
        const user = userNamed(name);
        if (user) return `${space}<@${user.id}|${user.name}>`;
        const group = GROUPS.find((g) => g.handle === name.toLowerCase());
        return group ? `${space}<!subteam^${group.id}|@${group.handle}>` : whole;
      },
    );
}
