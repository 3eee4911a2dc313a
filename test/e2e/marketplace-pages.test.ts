// The privacy and support pages a Marketplace listing links to, served on PORT in both modes
// without a signature, as static HTML that runs nothing.
import { describe, expect, it } from 'vitest';
import { PAGE_PATHS } from '../../src/pages.js';
import { startHarness } from './harness.js';

describe('the Marketplace pages', () => {
  for (const socket of [false, true]) {
    it(`are served ${socket ? 'in Socket Mode, beside the health probes' : 'over HTTP, beside Slack’s endpoint'}`, async () => {
      const h = await startHarness({
        socket,
        env: { SUPPORT_CONTACT: 'cdn-help@example.com', UNINSTALLED_DATA_RETENTION_DAYS: '14' },
      });
      const privacy = await fetch(`${h.url}${PAGE_PATHS.privacy}`);
      expect(privacy.status).toBe(200);
      expect(privacy.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(privacy.headers.get('content-security-policy')).toContain("default-src 'none'");
      const text = await privacy.text();
      expect(text).toContain('14 days later, everything else of the workspace is deleted');
      expect(text).toContain('href="mailto:cdn-help@example.com"');
      expect(text).not.toContain('<script');

      const support = await fetch(`${h.url}${PAGE_PATHS.support}`);
      expect(support.status).toBe(200);
      expect(await support.text()).toContain(`<a href="${PAGE_PATHS.privacy}">privacy</a>`);
      // Only reading: a POST is not a page.
      expect((await fetch(`${h.url}${PAGE_PATHS.privacy}`, { method: 'POST' })).status).toBe(404);
    });
  }
});
