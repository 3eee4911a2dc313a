// Domain, base-URL and purge-URL validation on arbitrary input: never a throw, and whatever is
// accepted has the shape the rest of the bot relies on.
import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/cdn/base-url.js';
import { EgressPolicy, isPublicAddress } from '../../src/cdn/egress.js';
import { checkHostname } from '../../src/cdn/hostname.js';
import type { Zone } from '../../src/cdn/schemas.js';
import { planPurge } from '../../src/services/purge/purge-targets.js';
import { anyText, fc, RUNS } from '../helpers/property.js';

const ZONES: Zone[] = [
  {
    id: 'z1',
    name: 'example.com',
    status: 'active',
    createdAt: '2026-01-01T00:00:00Z',
    accountId: 'acc_1',
  },
  {
    id: 'z2',
    name: 'static.example.com',
    status: 'active',
    createdAt: '2026-01-01T00:00:00Z',
    accountId: 'acc_1',
  },
  {
    id: 'z3',
    name: 'old.example.org',
    status: 'deleted',
    createdAt: '2026-01-01T00:00:00Z',
    accountId: 'acc_1',
  },
];

const urlish = fc.oneof(
  anyText(100),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom('https://', 'http://', 'ftp://', 'HTTPS://', '//', 'javascript:'),
      fc.constantFrom(
        'example.com',
        'static.example.com',
        'EXAMPLE.com',
        'evil.com',
        'example.com.evil.com',
        'xn--bcher-kva.example',
        '127.0.0.1',
        '[::1]',
        'old.example.org',
      ),
      fc.constantFrom('', ':443', ':0', '@evil.com'),
      anyText(40),
    )
    .map(([scheme, host, port, path]) => `${scheme}${host}${port}/${path}`),
);

describe('validation, on any input', () => {
  it('checkHostname: ascii labels of at most 63, at most 253 in all, or a reason', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(300), fc.domain()), (input) => {
        const check = checkHostname(input);
        if (!check.ok) {
          expect(check.reason.length).toBeGreaterThan(0);
          return;
        }
        expect(check.ascii).toMatch(/^[a-z0-9.-]+$/);
        expect(check.ascii.length).toBeLessThanOrEqual(253);
        for (const label of check.ascii.split('.')) expect(label.length).toBeLessThanOrEqual(63);
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('checkBaseUrl: http(s), ending in /v1, no credentials, query or fragment', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          urlish,
          fc.webUrl().map((u) => `${u}/v1`),
        ),
        (input) => {
          const check = checkBaseUrl(input);
          if (!check.ok) return;
          const url = new URL(check.url);
          expect(['http:', 'https:']).toContain(url.protocol);
          expect(url.pathname).toMatch(/\/v1$/);
          expect(url.username + url.password + url.search + url.hash).toBe('');
        },
      ),
      { numRuns: RUNS.pure },
    );
  });

  it('EgressPolicy: an accepted override is https on a host whose every address is public', async () => {
    const addresses = fc.array(
      fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('127.0.0.1', '169.254.169.254', '10.0.0.1')),
      { minLength: 1, maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          urlish,
          fc.webUrl().map((u) => `${u}/v1`),
        ),
        addresses,
        async (input, ips) => {
          const resolved = ips.map((address) => ({
            address,
            family: address.includes(':') ? 6 : 4,
          }));
          const policy = new EgressPolicy({ resolve: async () => resolved });
          const check = await policy.checkOverride(input);
          if (!check.ok) return;
          const url = new URL(check.url);
          expect(url.protocol).toBe('https:');
          const host = url.hostname.replace(/^\[|\]$/g, '');
          if (/^[\d.]+$|:/.test(host)) expect(isPublicAddress(host)).toBe(true);
          else for (const { address } of resolved) expect(isPublicAddress(address)).toBe(true);
        },
      ),
      { numRuns: RUNS.pure },
    );
  });

  it('planPurge: every URL sent is http(s), fragment-free, and inside its zone', () => {
    fc.assert(
      fc.property(
        fc.array(urlish, { maxLength: 20 }),
        fc.array(anyText(40), { maxLength: 5 }),
        fc.option(fc.constantFrom(...ZONES), { nil: undefined }),
        (urls, tags, zone) => {
          const plan = planPurge({ urls, tags, ...(zone ? { zone } : {}) }, ZONES);
          const sent = plan.groups.flatMap((g) => g.files.map((file) => ({ file, zone: g.zone })));
          for (const { file, zone: target } of sent) {
            const url = new URL(file);
            expect(['http:', 'https:']).toContain(url.protocol);
            expect(url.hash).toBe('');
            expect(url.hostname === target.name || url.hostname.endsWith(`.${target.name}`)).toBe(
              true,
            );
            expect(target.status).not.toBe('deleted');
          }
          // Each is sent to the zone serving it: no live zone with a longer name has its host.
          for (const { file, zone: target } of sent) {
            const host = new URL(file).hostname;
            const closer = ZONES.filter(
              (z) =>
                z.status !== 'deleted' &&
                z.name.length > target.name.length &&
                (host === z.name || host.endsWith(`.${z.name}`)),
            );
            expect(closer).toEqual([]);
          }
          // Nothing is both sent and refused, and nothing is lost.
          expect(
            sent.length + plan.rejected.length + plan.elsewhere.length + plan.duplicates,
          ).toBeGreaterThanOrEqual(urls.length);
        },
      ),
      { numRuns: RUNS.pure },
    );
  });
});
