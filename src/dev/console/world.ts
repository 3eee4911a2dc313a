// The console's pretend workspace: who can act and where messages go. The fake Slack knows them
// too, so typed text reaches the bot escaped as Slack would send it (fake-slack/escape.ts).
import type { FakeSlack } from '../fake-slack/server.js';

export const CONSOLE_TEAM_ID = 'TCONSOLE';
export const CONSOLE_BOT_TOKEN = 'xoxb-console';

export interface ConsoleUser {
  id: string;
  name: string;
  role: string;
  /** A guest of the workspace: multi-channel (`is_restricted`) or single-channel (`is_ultra_restricted`). */
  guest?: 'multi-channel' | 'single-channel';
}

/**
 * An admin (who logs in and configures), two members (who purge and approve), and two guests, who
 * only read until alice allows them more (`/cdn config guests operate`).
 */
export const CONSOLE_USERS: readonly ConsoleUser[] = [
  { id: 'UALICE', name: 'alice', role: 'workspace admin' },
  { id: 'UBOB', name: 'bob', role: 'member' },
  { id: 'UCAROL', name: 'carol', role: 'member' },
  { id: 'UGRACE', name: 'grace', role: 'multi-channel guest', guest: 'multi-channel' },
  { id: 'USAM', name: 'sam', role: 'single-channel guest', guest: 'single-channel' },
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
    slack.addUser({
      id: user.id,
      name: user.name,
      isAdmin: user.id === 'UALICE',
      isRestricted: user.guest === 'multi-channel',
      isUltraRestricted: user.guest === 'single-channel',
      tz: timeZone,
    });
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

export const CONSOLE_CHANNELS: ReadonlyArray<{ id: string; name: string }> = CHANNELS;
