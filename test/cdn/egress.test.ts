// SSRF guards for workspace base-URL overrides: which addresses count as public, how an override
// is checked before it is saved, and the connect-time check that defeats DNS rebinding.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { CdnClient } from '../../src/cdn/client.js';
import {
  EgressPolicy,
  isPublicAddress,
  notPublicReason,
  publicOnlyLookup,
  type Resolver,
} from '../../src/cdn/egress.js';
import { CdnTransport } from '../../src/cdn/transport.js';
import { failure } from '../helpers/cdn.js';
import { InstantClock, ManualClock } from '../helpers/clock.js';

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
    ['https://169.254.169.254/v1', 'is not allowed: 169.254.169.254 is not a public address'],
    ['https://10.0.0.1/v1', 'is not allowed: 10.0.0.1 is not a public address'],
    ['https://[::1]/v1', 'is not allowed: ::1 is not a public address'],
    ['https://[::ffff:7f00:1]/v1', 'is not allowed: ::ffff:7f00:1 is not a public address'],
    ['https://sneaky.example/v1', 'is not allowed: sneaky.example is not a public address'],
    ['https://metadata.example/v1', 'is not allowed: metadata.example is not a public address'],
    ['https://nowhere.example/v1', 'is not allowed: nowhere.example is not a public address'],
    ['https://cdn.example/api', '/v1'],
  ])('refuses %s: %s', async (input, reason) => {
    const check = await policy.checkOverride(input);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('refuses https://localhost through the real resolver', async () => {
    const check = await new EgressPolicy().checkOverride('https://localhost/v1');
    expect(check).toEqual({ ok: false, reason: `is not allowed: ${notPublicReason('localhost')}` });
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
      message: 'rebound.example is not a public address; only public addresses are allowed',
      // For the operator's log only.
      address: '127.0.0.1',
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

describe('a refusal says only that the address is not public', () => {
  /** What the bot's DNS answers for the one name every case uses, and how often it was asked. */
  const answers: Record<string, () => Promise<LookupAddress[]>> = {
    loopback: async () => [{ address: '127.0.0.1', family: 4 }],
    private: async () => [{ address: '10.20.30.40', family: 4 }],
    'IPv6 unique local': async () => [{ address: 'fd00::7', family: 6 }],
    'link-local': async () => [{ address: '169.254.169.254', family: 4 }],
    'no address': async () => [],
    'does not resolve': async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND target.example'), {
        code: 'ENOTFOUND',
      });
    },
  };
  const counted = (answer: () => Promise<LookupAddress[]>) => {
    const asked: string[] = [];
    const resolve: Resolver = (hostname) => {
      asked.push(hostname);
      return answer();
    };
    return { asked, resolve };
  };
  /** Nothing of what the name led to: no address, no kind of address, no word of DNS. */
  const FORBIDDEN =
    /127\.0\.0\.1|10\.20|fd00|169\.254|loopback|private|link-local|unique|metadata|resolve|ENOTFOUND|no usable/i;
  const cases = Object.keys(answers);

  it('the override check: one text for every case, the host as typed and nothing more', async () => {
    const reasons = new Set<string>();
    for (const name of cases) {
      const { asked, resolve } = counted(answers[name] as () => Promise<LookupAddress[]>);
      const check = await new EgressPolicy({ resolve }).checkOverride('https://target.example/v1');
      if (check.ok) throw new Error(`${name}: accepted`);
      expect(check.reason, name).not.toMatch(FORBIDDEN);
      // One lookup on every path, and nothing else.
      expect(asked, name).toEqual(['target.example']);
      reasons.add(check.reason);
    }
    expect([...reasons]).toEqual([
      'is not allowed: target.example is not a public address; only public addresses are allowed',
    ]);
  });

  it('the connect-time lookup: the same error for every case, the address kept for the log', async () => {
    const seen = new Map<string, NodeJS.ErrnoException>();
    for (const name of cases) {
      const lookup = publicOnlyLookup(
        counted(answers[name] as () => Promise<LookupAddress[]>).resolve,
      );
      const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
        lookup('target.example', {}, (e) => resolve(e)),
      );
      if (!error) throw new Error(`${name}: connected`);
      seen.set(name, error);
    }
    const texts = new Set([...seen.values()].map((e) => `${e.code} ${e.message}`));
    expect([...texts]).toEqual([
      'ENOTPUBLIC target.example is not a public address; only public addresses are allowed',
    ]);
    expect(seen.get('loopback')).toMatchObject({ address: '127.0.0.1' });
    expect(seen.get('does not resolve')).toMatchObject({ address: undefined });
  });

  it('a literal address is echoed as typed, with no kind', async () => {
    for (const literal of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]']) {
      const check = await new EgressPolicy().checkOverride(`https://${literal}/v1`);
      expect(check).toEqual({
        ok: false,
        reason: `is not allowed: ${notPublicReason(literal.replace(/[[\]]/g, ''))}`,
      });
    }
  });

  it('the CDN client at a workspace base URL: one refusal, one lookup, no retry, whatever the case', async () => {
    const messages = new Set<string>();
    for (const name of cases) {
      const { asked, resolve } = counted(answers[name] as () => Promise<LookupAddress[]>);
      const transport = new CdnTransport({ resolve });
      try {
        const client = new CdnClient({
          baseUrl: 'https://target.example/v1',
          apiKey: 'sk_test',
          untrusted: true,
          transport,
          clock: new InstantClock(),
        });
        const error = await failure(client.listZones());
        expect(error.code, name).toBe('blocked_address');
        // A name that does not resolve is not retried (a private one never was): no more DNS
        // work on one path than on the other, and no connection on either.
        expect(asked, name).toEqual(['target.example']);
        messages.add(error.message);
      } finally {
        await transport.close();
      }
    }
    expect([...messages]).toEqual([
      'target.example is not a public address; only public addresses are allowed',
    ]);
  });
});
