// The kinds of change the audit log groups its actions into, in one place: `/cdn audit kind:…`
// filters by them (src/store/audit-log.ts turns them into SQL) and the CSV export names them.

/** The kinds, as people type them. */
export const AUDIT_KIND_NAMES = [
  'purge',
  'purge-everything',
  'ratelimit',
  'key',
  'config',
  'freeze',
] as const;
export type AuditKindName = (typeof AUDIT_KIND_NAMES)[number];

/**
 * Which actions each kind holds: an action is in a kind when it starts with one of its prefixes
 * (each ends with a dot, or is a whole action) and with none of its `except` prefixes.
 */
export const AUDIT_KINDS: Record<AuditKindName, { prefixes: string[]; except?: string[] }> = {
  // purge.urls, purge.tags, purge.urls_tags; and purges asked over the HTTP API
  // (api.purge.requested / replayed / refused, of everything too: its approval and outcome are the
  // purge-everything entries); scheduled purges (purge.scheduled, .cancelled, .ran, .skipped), of
  // everything too
  purge: { prefixes: ['purge.', 'api.purge.'], except: ['purge.everything.'] },
  // purge.everything.requested / approved / denied / cancelled / expired / done…
  'purge-everything': { prefixes: ['purge.everything.'] },
  ratelimit: { prefixes: ['ratelimit.'] },
  // credentials.set / remove, CDN accounts (account.add / rename / rekey / remove), the HTTP API's
  // tokens (api.token.revoked), and Slack revoking the app (its key goes with it)
  key: { prefixes: ['credentials.', 'account.', 'api.token.', 'app.', 'tokens.'] },
  // settings and what a channel is set up to do: config.*, channel.use / unuse, zone.create,
  // report.scheduled / stopped (and posted / failed / skipped), watch.*, watches_reports.delete
  config: {
    prefixes: ['config.', 'channel.', 'zone.', 'report.', 'watch.', 'watches_reports.'],
  },
  // change freezes: freeze.declared / removed / started / ended, and their exceptions
  // (freeze.exception.requested / approved / denied / used)
  freeze: { prefixes: ['freeze.'] },
};

/** The kind of an action, or undefined when it is in none (a new action not mapped yet). */
export function auditKindOf(action: string): AuditKindName | undefined {
  for (const name of AUDIT_KIND_NAMES) {
    const { prefixes, except = [] } = AUDIT_KINDS[name];
    if (prefixes.some((p) => action.startsWith(p)) && !except.some((p) => action.startsWith(p)))
      return name;
  }
  return undefined;
}

/** Who an actor id names: a person (a Slack user id), a CI token (`token:<name>`), or the bot. */
export const TOKEN_ACTOR_PREFIX = 'token:';
