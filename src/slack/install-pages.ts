// The pages a person sees at the end of an OAuth install (Bolt's callbackOptions): what was
// installed and what to do next, or why it failed and how to start again. They show only Slack ids
// (checked to be ids) and fixed text, so nothing a person or Slack supplied is written into HTML.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackOptions, Installation } from '@slack/oauth';
import type { Logger } from '../logger.js';

/** Where the install starts (Bolt's default install path). */
export const INSTALL_PATH = '/slack/install';

const SLACK_ID = /^[A-Z0-9]+$/;
const id = (value: string | undefined): string | undefined =>
  value && SLACK_ID.test(value) ? value : undefined;

function page(res: ServerResponse, status: number, title: string, paragraphs: string[]): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cdn-chatops: ${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>
</head><body><h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</body></html>`);
}

/** What the page says after an install, by where it went: a workspace, or a whole organization. */
export function installedPage(installation: Installation, res: ServerResponse): void {
  const appId = id(installation.appId);
  if (installation.isEnterpriseInstall) {
    const org = id(installation.enterprise?.id);
    // Slack's own advice: the org-wide app is in no workspace yet, the admin adds it to some
    // (https://api.slack.com/enterprise/apps/reference, "oauth.v2.access response").
    const add =
      org && appId
        ? `<a href="https://app.slack.com/manage/${org}/integrations/profile/${appId}/workspaces/add">Add cdn-chatops to workspaces</a>`
        : 'Add cdn-chatops to workspaces from your organization’s app management page';
    page(res, 200, 'Installed for your organization', [
      'cdn-chatops is installed for the whole Enterprise Grid organization, but it is not in any workspace yet.',
      `Next: ${add}. It serves every workspace you add it to, with this one installation.`,
      'Then, in each workspace, an admin (of the workspace or of the organization) connects a CDN account with <code>/cdn login</code>: CDN accounts and keys, operators, channel defaults and the audit log belong to each workspace, not to the organization.',
    ]);
    return;
  }
  const team = id(installation.team?.id);
  const open = team
    ? `<a href="https://app.slack.com/client/${team}">Open Slack</a>`
    : 'Open Slack';
  page(res, 200, 'Installed', [
    'cdn-chatops is installed in your workspace.',
    `Next: ${open} and, as a workspace admin, type <code>/cdn login</code> in a channel to connect your CDN account. Then <code>/cdn help</code> lists what the bot does, and <code>/cdn zones</code> shows your zones.`,
  ]);
}

/** How a failed install is said: cancelled, a stale or foreign link, or Slack's refusal. */
export function failedPage(
  error: { code?: string },
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const again = `<a href="${INSTALL_PATH}">Start the install again</a>`;
  const asked = new URL(req.url ?? '/', 'http://callback').searchParams;
  if (asked.get('error') === 'access_denied') {
    page(res, 200, 'Install cancelled', [
      'The install was cancelled in Slack: nothing was installed.',
      `${again} when you are ready.`,
    ]);
    return;
  }
  switch (error.code) {
    case 'slack_oauth_missing_state':
    case 'slack_oauth_invalid_state':
    case 'slack_oauth_missing_code':
      page(res, 400, 'This install link cannot be used', [
        'The link has expired, was used already, or was opened in another browser than the one that started the install.',
        `${again} from this browser.`,
      ]);
      return;
    default:
      page(res, 500, 'The install did not complete', [
        'Slack did not complete the install: nothing was installed.',
        `${again}. If it fails again, tell whoever runs cdn-chatops: the reason is in its logs.`,
      ]);
  }
}

/** Bolt's callbackOptions: these pages, and the failure logged (its code, never a secret). */
export function installCallbacks(logger: Logger): CallbackOptions {
  return {
    success: (installation, _options, _req, res) => installedPage(installation, res),
    failure: (error, _options, req, res) => {
      logger.warn({ code: error.code, reason: error.message }, 'an OAuth install failed');
      failedPage(error, req, res);
    },
  };
}
