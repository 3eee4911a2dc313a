// SSRF guards for workspace base-URL overrides: which addresses count as public, how an override
// is checked before it is saved, and the connect-time check that defeats DNS rebinding.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { EgressPolicy, isPublicAddress, publicOnlyLookup } from '../../src/cdn/egress.js';
import { ManualClock } from '../helpers/clock.js';

const dns =
  (table: Record<string, string[]>) =>
  async (hostname: string): Promise<LookupAddress[]> => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'accepts %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('EgressPolicy.checkOverride', () => {
  const policy = new EgressPolicy({
    allowlist: ['cdn.internal.example', '127.0.0.1'],
    resolve: dns({
      'cdn.example': ['93.184.216.34', '2606:4700::1111'],
      'sneaky.example': ['93.184.216.34', '10.1.2.3'],
      'metadata.example': ['169.254.169.254'],
      'cdn.internal.example': ['10.0.0.9'],
    }),
  });

  it.each([
    ['http://192.168.0.1:8080/v1', 'must use https://'],
    ['http://cdn.example/v1', 'must use https://'],
    ['https://169.254.169.254/v1', 'points at 169.254.169.254, a link-local address'],
    ['https://10.0.0.1/v1', 'points at 10.0.0.1, a private-network address'],
    ['https://[::1]/v1', 'points at ::1, a loopback address'],
    ['https://[::ffff:7f00:1]/v1', 'a loopback address'],
    ['https://sneaky.example/v1', 'resolves to 10.1.2.3, a private-network address'],
    ['https://metadata.example/v1', 'resolves to 169.254.169.254, a link-local address'],
    ['https://nowhere.example/v1', 'does not resolve'],
    ['https://cdn.example/api', '/v1'],
  ])('refuses %s: %s', async (input, reason) => {
    const check = await policy.checkOverride(input);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('refuses https://localhost through the real resolver', async () => {
    const check = await new EgressPolicy().checkOverride('https://localhost/v1');
    expect(check).toMatchObject({ ok: false, reason: expect.stringContaining('loopback') });
  });

  it('accepts a public https host, and allowlisted hosts whatever their address or scheme', async () => {
    expect(await policy.checkOverride('https://cdn.example/v1/')).toEqual({
      ok: true,
      url: 'https://cdn.example/v1',
    });
    expect((await policy.checkOverride('https://cdn.internal.example/v1')).ok).toBe(true);
    expect((await policy.checkOverride('http://127.0.0.1:9999/v1')).ok).toBe(true);
    expect(policy.trusts('http://127.0.0.1:9999/v1')).toBe(true);
    expect(policy.trusts('https://cdn.example/v1')).toBe(false);
  });
});

describe('publicOnlyLookup, at connect time', () => {
  const lookup = publicOnlyLookup(
    dns({ 'cdn.example': ['93.184.216.34', '2606:4700::1111'], 'rebound.example': ['127.0.0.1'] }),
  );
  const run = (hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<{ error: NodeJS.ErrnoException | null; result: unknown }>((resolve) => {
      lookup(hostname, options as never, (error, address, family) =>
        resolve({ error, result: options.all ? address : { address, family } }),
      );
    });

  it('hands net.connect public addresses, one or all, filtered by family', async () => {
    expect(await run('cdn.example', {})).toEqual({
      error: null,
      result: { address: '93.184.216.34', family: 4 },
    });
    expect((await run('cdn.example', { family: 6 })).result).toEqual({
      address: '2606:4700::1111',
      family: 6,
    });
    expect((await run('cdn.example', { all: true })).result).toHaveLength(2);
  });

  it('refuses the connection when the name now resolves to a private address', async () => {
    const { error } = await run('rebound.example', { all: true });
    expect(error).toMatchObject({
      code: 'ENOTPUBLIC',
      message:
        'rebound.example resolves to 127.0.0.1, a loopback address; only public addresses are allowed',
    });
  });
});

describe('DNS that does not answer', () => {
  /** A resolver that never answers, and how often it was asked. */
  const silent = () => {
    const asked: string[] = [];
    const resolve = (hostname: string) => {
      asked.push(hostname);
      return new Promise<LookupAddress[]>(() => {});
    };
    return { asked, resolve };
  };

  it('refuses an override whose name does not resolve in time, saying so', async () => {
    const clock = new ManualClock();
    const { asked, resolve } = silent();
    const policy = new EgressPolicy({ resolve, clock, dnsTimeoutMs: 2_000 });
    const check = policy.checkOverride('https://slow.example/v1');
    await clock.sleepers(1);
    expect(asked).toEqual(['slow.example']);
    clock.advance(2_000);
    expect(await check).toEqual({
      ok: false,
      reason:
        'has a host name that did not resolve in time (slow.example, 2 s); try again, or check its DNS',
    });
  });

  it('fails a connection whose name does not resolve in time, as a name that did not resolve', async () => {
    const clock = new ManualClock();
    const lookup = publicOnlyLookup(silent().resolve, { timeoutMs: 5_000, clock });
    const failed = new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('slow.example', {}, (error) => resolve(error)),
    );
    await clock.sleepers(1);
    clock.advance(5_000);
    // EAI_AGAIN: the transport reads it as "not sent" (safe to retry) and "could not be resolved".
    expect(await failed).toMatchObject({
      code: 'EAI_AGAIN',
      message: 'slow.example did not resolve within 5 s',
    });
  });

  it('leaves a quick answer alone, and no timer behind', async () => {
    const clock = new ManualClock();
    const policy = new EgressPolicy({
      resolve: dns({ 'cdn.example': ['93.184.216.34'] }),
      clock,
    });
    expect(await policy.checkOverride('https://cdn.example/v1')).toEqual({
      ok: true,
      url: 'https://cdn.example/v1',
    });
    // The timeout's sleep was cancelled: advancing the clock finds nothing to wake.
    let woke = false;
    clock.sleepers(1).then(() => {
      woke = true;
    });
    await Promise.resolve();
    expect(woke).toBe(false);
  });
});
