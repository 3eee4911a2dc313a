// The /cdn subcommands, each declared once: the router, /cdn help, "did you mean", the App Home
// and manifest.yml's usage hint all come from this list.
import type { SubcommandInfo } from '../../blocks/help.js';
import { accounts } from './accounts.js';
import { analytics } from './analytics.js';
import { audit } from './audit.js';
import { config } from './config.js';
import type { SubcommandHandler } from './context.js';
import { create } from './create.js';
import { freeze } from './freeze.js';
import { login } from './login.js';
import { logout } from './logout.js';
import { purge } from './purge.js';
import { ratelimit } from './ratelimit.js';
import { report } from './report.js';
import { tokens } from './tokens.js';
import { unwatch } from './unwatch.js';
import { use } from './use.js';
import { watch } from './watch.js';
import { zones } from './zones.js';

export interface Subcommand extends SubcommandInfo {
  handler: SubcommandHandler;
}

/** `/cdn help` (and `/cdn` alone) is answered by the router itself, from this list. */
const HELP = 'help';

export const SUBCOMMANDS: readonly Subcommand[] = [
  {
    name: 'zones',
    usage: '/cdn zones [active|pending|deleted] [name] [page N]',
    summary: 'List the zones on the CDN, or those whose name holds a word (Unicode or punycode).',
    handler: zones,
  },
  {
    name: 'create',
    usage: '/cdn create <domain> [free|pro|business|enterprise]',
    summary: 'Onboard a domain and get the CNAME record to set. Alone, it opens a form.',
    audience: 'operators',
    handler: create,
  },
  {
    name: 'purge',
    usage:
      '/cdn purge <zone> <url>… | <url>… | [zone] /path… | [zone] tag:<tag>… | [zone] everything [at HH:MM|in 30m] | scheduled | cancel <id>',
    summary:
      'Purge cached URLs or tags now, or later with `at 02:00` or `in 30m` (`scheduled` lists those, `cancel <id>` cancels one); purging everything needs a second person. Alone, it opens a form. Add `--verify` to check the URLs at the edge once purged.',
    audience: 'operators',
    handler: purge,
  },
  {
    name: 'ratelimit',
    usage: '/cdn ratelimit <zone> on|off | on|off | <zone>',
    summary:
      "Turn a zone's rate limit on or off (reaches every edge within 30 s); a zone alone shows its state. No zone: the channel's default.",
    audience: 'operators',
    handler: ratelimit,
  },
  {
    name: 'analytics',
    usage: '/cdn analytics <zone> [1h|6h|24h|7d|30d] [minute|5min|hour|day]',
    summary:
      "Chart a zone's requests, bandwidth and cache hit rate (default: the last 24 h). No zone: the channel's default.",
    handler: analytics,
  },
  {
    name: 'report',
    usage: '/cdn report <zone> daily [HH:MM] [#channel] | list | stop <id>',
    summary:
      "Post a zone's traffic every day at a time of your choosing, or list and stop reports.",
    audience: 'operators',
    handler: report,
  },
  {
    name: 'audit',
    usage:
      '/cdn audit [export] [zone] [@person] [kind:<kind>] [since:YYYY-MM-DD] [until:YYYY-MM-DD]',
    summary:
      'The changes made from Slack, 20 a page, filtered by zone, person (or `token:<name>`), kind (purge, purge-everything, ratelimit, key, config, freeze), dates (your time zone) and CDN account (`account:<name>`, or `<account>/<zone>`); `export` sends them to your DM as a CSV file.',
    handler: audit,
  },
  {
    name: 'login',
    usage: '/cdn login',
    summary: "Set this workspace's CDN API key in a private form.",
    audience: 'admins',
    handler: login,
  },
  {
    name: 'logout',
    usage: '/cdn logout',
    summary:
      "Remove this workspace's CDN API key: it says what stops and asks first; watches and reports pause until the next key, or are deleted if you choose.",
    audience: 'admins',
    handler: logout,
  },
  {
    name: 'accounts',
    usage: '/cdn accounts',
    summary:
      "List the workspace's CDN accounts (prod, staging…) with their zones and whether each key works; admins add, rename, re-key and remove them in private forms.",
    handler: accounts,
  },
  {
    name: 'config',
    usage:
      '/cdn config [operators|approvers @group|everyone] [account:<name>] | guests read|operate | purge-channels #channel…|anywhere | limits <limit> <number>',
    summary:
      'Show or set who may change things, who may approve purges (for the workspace, or for one CDN account with `account:<name>`), whether guests may change things, the only channels purges may be run from, and how much may be stored.',
    audience: 'admins',
    handler: config,
  },
  {
    name: 'freeze',
    usage:
      '/cdn freeze add <zone>|account:<name>|workspace <window> [tz:<Area/City>] [#channel] [--purges] <reason> | list | remove <id> | except <zone>|account:<name> everything|ratelimit|create|purge <reason>',
    summary:
      'Change freezes: admins declare a window, once (`2026-12-20 18:00 → 2027-01-04 08:00`) or every week (`every fri 16:00 → mon 08:00`), in a time zone (default: theirs in Slack); during it rate-limit changes, zone creation and purge-everything (with `--purges`, every purge) are refused unless a second person approves an exception, used once.',
    handler: freeze,
  },
  {
    name: 'tokens',
    usage: '/cdn tokens',
    summary:
      'List, create and revoke the tokens CI uses to purge over the HTTP API; a new token is shown once.',
    audience: 'admins',
    handler: tokens,
  },
  {
    name: 'use',
    usage: '/cdn use <zone> | none',
    summary:
      "Make a zone this channel's default: then `/cdn purge /path`, `/cdn analytics` and `/cdn ratelimit on|off` need no zone. Alone, it shows the default.",
    audience: 'operators',
    handler: use,
  },
  {
    name: 'watch',
    usage: '/cdn watch <zone> [requests>50k/5m] [hitrate<80%] | list',
    summary:
      'Alert this channel on spikes, drops and cache-hit-rate falls (or your thresholds), and when the zone goes live. `list` shows every watch, with Unmute for muted alerts.',
    audience: 'operators',
    handler: watch,
  },
  {
    name: 'unwatch',
    usage: '/cdn unwatch <zone>',
    summary: "Stop this channel's alerts for a zone.",
    audience: 'operators',
    handler: unwatch,
  },
];

/** Every subcommand as help shows it, `help` last. */
export const HELP_ENTRIES: readonly SubcommandInfo[] = [
  ...SUBCOMMANDS.map(({ handler: _handler, ...info }) => info),
  { name: HELP, usage: '/cdn help', summary: 'Show this help.' },
];

/** Every word the router answers to. */
export const SUBCOMMAND_NAMES: readonly string[] = HELP_ENTRIES.map((entry) => entry.name);

export function findSubcommand(name: string): Subcommand | undefined {
  return SUBCOMMANDS.find((entry) => entry.name === name);
}

export function isHelp(name: string): boolean {
  return name === '' || name === HELP;
}

/**
 * manifest.yml's `usage_hint`: each usage's first form without its optional parts
 * (`purge <zone> <url>…`, `ratelimit <zone> on|off`).
 */
export function usageHint(): string {
  return HELP_ENTRIES.map((entry) =>
    (entry.usage.replace(/^\/cdn /, '').split(' | ')[0] ?? '').replace(/\s*\[[^\]]*\]/g, '').trim(),
  ).join(' | ');
}
