// The Marketplace's pages as text: /privacy states the retention the bot runs with and the same
// promises as docs/privacy.md; /support names the configured contact, escaped.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { DELETED_AT_UNINSTALL, privacyPage, supportPage } from '../src/pages.js';

const pages = (env: Record<string, string> = {}) => {
  const config = loadConfig(env);
  const options = { retention: config.retention, supportContact: config.supportContact };
  return { privacy: privacyPage(options), support: supportPage(options) };
};

/** docs/privacy.md's section `title`, up to the next one. */
function section(title: string): string {
  const text = readFileSync('docs/privacy.md', 'utf8');
  const start = text.indexOf(`## ${title}`);
  expect(start, title).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Where docs/privacy.md's uninstall section makes each promise the page makes. */
const IN_PRIVACY_DOC: Record<keyof typeof DELETED_AT_UNINSTALL, RegExp> = {
  slackTokens: /the Slack installation \(tokens\)/,
  cdnKeys: /the CDN API keys of every account \(with their\s+zone indexes\)/,
  apiTokens: /every API token is revoked/,
  approvals: /pending purge-everything requests expire/,
};

describe('the privacy page', () => {
  it('states the retention settings the bot runs with', () => {
    const { privacy } = pages({
      AUDIT_RETENTION_DAYS: '90',
      JOBS_RETENTION_DAYS: '3',
      UNINSTALLED_DATA_RETENTION_DAYS: '1',
    });
    expect(privacy).toContain('Audit log entries: 90 days.');
    expect(privacy).toContain('purges asked by CI: 3 days.');
    expect(privacy).toContain('<p>1 day later, everything else of the workspace is deleted');
    expect(pages({ AUDIT_RETENTION_DAYS: '0' }).privacy).toContain(
      'Audit log entries: without an age limit.',
    );
  });

  it('makes the promises docs/privacy.md makes, with the same defaults', () => {
    const { privacy } = pages();
    const uninstall = section('Uninstall');
    for (const [key, text] of Object.entries(DELETED_AT_UNINSTALL)) {
      expect(privacy).toContain(`<li>${text}</li>`);
      expect(uninstall, key).toMatch(IN_PRIVACY_DOC[key as keyof typeof DELETED_AT_UNINSTALL]);
    }
    expect(Object.keys(IN_PRIVACY_DOC)).toEqual(Object.keys(DELETED_AT_UNINSTALL));
    const glance = section('Retention at a glance');
    expect(glance).toMatch(/\| Everything of an uninstalled workspace \| 30 days after/);
    expect(privacy).toContain('30 days later, everything else of the workspace is deleted');
    expect(glance).toMatch(/\| Audit log .*\| 365 days after each entry/);
    expect(privacy).toContain('Audit log entries: 365 days.');
    expect(glance).toMatch(/\| API purges .*\| 7 days after/);
    expect(privacy).toContain('purges asked by CI: 7 days.');
  });
});

describe('the support page', () => {
  it('links the contact: an e-mail address, or an https page, escaped', () => {
    expect(pages({ SUPPORT_CONTACT: 'cdn-help@example.com' }).support).toContain(
      'Write to: <a href="mailto:cdn-help@example.com">cdn-help@example.com</a>.',
    );
    const { support, privacy } = pages({
      SUPPORT_CONTACT: 'https://help.example.com/cdn?team=ops&q=\'x"<b>',
    });
    const href = 'https://help.example.com/cdn?team=ops&amp;q=%27x%22%3Cb%3E';
    expect(support).toContain(`<a href="${href}">${href}</a>`);
    expect(privacy).toContain(`<a href="${href}">`);
    expect(support).not.toContain('<b>');
    expect(pages({ SUPPORT_CONTACT: "o'neil@example.com" }).support).toContain(
      '<a href="mailto:o&#39;neil@example.com">o&#39;neil@example.com</a>',
    );
  });

  it('says whom to ask when no contact is set', () => {
    expect(pages().support).toContain('the people who run this bot for your organization');
  });

  it('refuses a contact that is neither', () => {
    for (const value of ['javascript:alert(1)', 'http://help.example.com', 'help desk']) {
      expect(() => loadConfig({ SUPPORT_CONTACT: value }), value).toThrow(
        'SUPPORT_CONTACT: must be an e-mail address or an https URL',
      );
    }
  });
});
