// The pages Slack's Marketplace asks an app for, served beside the health probes in both modes:
// /privacy (what the bot keeps, for how long, what an uninstall deletes) and /support (how to get
// help). Short HTML made from the retention settings the bot runs with; docs/privacy.md says all
// of it, table by table. The uninstall's promises are data, so that a test holds each to the code.
import type { ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { SupportContact } from './config.js';

export const PAGE_PATHS = { privacy: '/privacy', support: '/support' } as const;

/** What an uninstall (or the bot token's revocation) deletes at once, as /privacy promises it. */
export const DELETED_AT_UNINSTALL = {
  slackTokens: "the workspace's Slack tokens",
  cdnKeys: 'every CDN API key given to the bot, and the zone lists read with them',
  apiTokens: 'its API tokens, revoked: CI can no longer purge',
  approvals:
    'its pending purge-everything requests, expired: an Approve button left in a channel does nothing',
} as const;

export interface PagesOptions {
  /** How long rows are kept (Config.retention): the page states the bot's own settings. */
  retention: { jobsMs: number; auditMs: number; uninstalledMs: number };
  supportContact?: SupportContact | undefined;
}

const DAY_MS = 86_400_000;

const days = (ms: number) => {
  const count = Math.round(ms / DAY_MS);
  return count === 1 ? '1 day' : `${count} days`;
};

/** The five characters that end text or an attribute in HTML, as entities. */
const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

const list = (items: readonly string[]) =>
  `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`;

function contactLine(contact: SupportContact | undefined, ask: string): string {
  return contact
    ? `${ask}: <a href="${escapeHtml(contact.href)}">${escapeHtml(contact.label)}</a>.`
    : `${ask}: the people who run this bot for your organization (your Slack admins know who).`;
}

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.5}</style>',
    `</head><body><h1>${title}</h1>${body}</body></html>`,
  ].join('\n');
}

export function privacyPage(options: PagesOptions): string {
  const { jobsMs, auditMs, uninstalledMs } = options.retention;
  return page(
    'CDN for Slack: privacy',
    [
      '<h2>What the bot keeps</h2>',
      list([
        'Slack ids of the people and channels it works with; never their names, e-mail addresses or the messages of a conversation.',
        "The workspace's settings: operator and approver groups, purge channels, default zones, reports and watches.",
        "The workspace's Slack tokens and the CDN API keys its admins give it, encrypted (AES-256-GCM); nobody is shown a key again.",
        'What people type into it (URLs to purge, reasons, decision notes, watch rules) and what CI sends with a purge (repository, commit, run link, actor).',
        'An audit log: who did what, when and why.',
      ]),
      '<h2>For how long</h2>',
      list([
        auditMs === 0
          ? 'Audit log entries: without an age limit.'
          : `Audit log entries: ${days(auditMs)}.`,
        `Finished work (purges' progress, verifications, exports) and purges asked by CI: ${days(jobsMs)}.`,
        'Everything else: while the app is installed.',
      ]),
      '<h2>When the app is uninstalled</h2>',
      '<p>At once, when Slack tells the bot it was uninstalled or its token revoked:</p>',
      list(Object.values(DELETED_AT_UNINSTALL)),
      `<p>${days(uninstalledMs)} later, everything else of the workspace is deleted: settings, CDN accounts, reports, watches, purges, API tokens and the audit log. Installing the app again before then keeps it all.</p>`,
      '<h2>Who sees it</h2>',
      "<p>In Slack, people see the details of the conversations they are in only; Slack keeps the messages and charts the bot posts. The bot's logs hold ids and outcomes, never a token or key.</p>",
      `<p>${contactLine(options.supportContact, 'Questions, or a request to delete a workspace’s data sooner')}</p>`,
    ].join('\n'),
  );
}

export function supportPage(options: PagesOptions): string {
  return page(
    'CDN for Slack: support',
    [
      `<p>${contactLine(options.supportContact, 'Write to')}</p>`,
      '<h2>Help in Slack</h2>',
      list([
        '<code>/cdn help</code> lists every command and what it does.',
        'When the bot refuses something, its answer says why and who may do it.',
        'An admin of the workspace gives the bot its CDN key with <code>/cdn login</code>.',
      ]),
      '<h2>When you write</h2>',
      list([
        'Say which workspace, when it happened and what you typed or clicked.',
        'Never send a CDN API key, an API token or a Slack token.',
      ]),
      '<h2>Uninstalling</h2>',
      `<p>Remove the app in your workspace's app management. What is deleted, and when: <a href="${PAGE_PATHS.privacy}">privacy</a>.</p>`,
    ].join('\n'),
  );
}

function html(res: ServerResponse, body: string): void {
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'public, max-age=300',
      // Static text: no script, no frame, no other origin.
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      'x-content-type-options': 'nosniff',
    })
    .end(body);
}

/** GET /privacy and /support, rendered once: they change only with the settings. */
export function marketplacePages(options: PagesOptions): CustomRoute[] {
  const privacy = privacyPage(options);
  const support = supportPage(options);
  return [
    { path: PAGE_PATHS.privacy, method: ['GET'], handler: (_req, res) => html(res, privacy) },
    { path: PAGE_PATHS.support, method: ['GET'], handler: (_req, res) => html(res, support) },
  ];
}
