// The /cdn subcommands: names, usage and one line each, for the router, help and "did you mean".

export interface Subcommand {
  name: string;
  usage: string;
  summary: string;
  /** Who may run it, as shown in help. */
  audience?: 'admins' | 'operators';
}

export const SUBCOMMANDS: readonly Subcommand[] = [
  {
    name: 'zones',
    usage: '/cdn zones [active|pending|deleted] [page N]',
    summary: 'List the zones on the CDN.',
  },
  {
    name: 'create',
    usage: '/cdn create <domain> [free|pro|business|enterprise]',
    summary: 'Onboard a domain and get the CNAME record to set. Alone, it opens a form.',
    audience: 'operators',
  },
  {
    name: 'purge',
    usage: '/cdn purge <zone> <url>… | <url>… | <zone> tag:<tag>… | <zone> everything',
    summary:
      'Purge cached URLs or tags now; purging everything needs a second person. Alone, it opens a form.',
    audience: 'operators',
  },
  {
    name: 'ratelimit',
    usage: '/cdn ratelimit <zone> on|off',
    summary: "Turn a zone's rate limit on or off (reaches every edge within 30 s).",
    audience: 'operators',
  },
  {
    name: 'login',
    usage: '/cdn login',
    summary: "Set this workspace's CDN API key in a private form.",
    audience: 'admins',
  },
  {
    name: 'logout',
    usage: '/cdn logout',
    summary: "Remove this workspace's CDN API key.",
    audience: 'admins',
  },
  {
    name: 'config',
    usage: '/cdn config [operators|approvers @group|everyone]',
    summary: 'Show or set who may change things and who may approve purges.',
    audience: 'admins',
  },
  { name: 'help', usage: '/cdn help', summary: 'Show this help.' },
];
