// Where the bot may send a workspace's CDN requests. A base-URL override typed into the login
// modal is user input: left unchecked it would let any workspace admin make the bot call the
// cloud metadata service, a database on the private network, or the bot's own loopback ports
// (SSRF). Overrides must be https and reach public addresses only, checked when the URL is saved
// and again at every connect, so a DNS answer that changes later (rebinding) cannot slip through.
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type Clock, systemClock, within } from '../clock.js';
import type { Logger } from '../logger.js';
import { formatSeconds } from '../network-failures.js';
import { checkBaseUrl } from './base-url.js';

/** Resolves a host name to every address it has (tests inject their own DNS). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

/**
 * How long a name may take to resolve. The system's resolver retries for tens of seconds when a
 * DNS server does not answer (and getaddrinfo cannot be cancelled): past this the bot stops
 * waiting and says so.
 */
export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

export interface DnsTimeoutOptions {
  timeoutMs?: number;
  clock?: Clock;
}

/** A name that did not resolve in time (EAI_AGAIN, as the system says of a DNS server that is down). */
export class DnsTimeoutError extends Error {
  readonly code = 'EAI_AGAIN';
  constructor(hostname: string, timeoutMs: number) {
    super(`${hostname} did not resolve within ${formatSeconds(timeoutMs)}`);
    this.name = 'DnsTimeoutError';
  }
}

/** `resolve(hostname)`, or DnsTimeoutError once `timeoutMs` have passed on the clock. */
export async function resolveWithin(
  resolve: Resolver,
  hostname: string,
  { timeoutMs = DEFAULT_DNS_TIMEOUT_MS, clock = systemClock }: DnsTimeoutOptions = {},
): Promise<LookupAddress[]> {
  return within(clock, timeoutMs, resolve(hostname), () => {
    throw new DnsTimeoutError(hostname, timeoutMs);
  });
}

/**
 * Whether an address is ordinary public unicast. Everything else is refused: loopback, private
 * (RFC 1918, unique local), link-local (which holds 169.254.169.254, the metadata service),
 * carrier-grade NAT, unspecified, multicast, reserved and documentation ranges, and IPv6 forms
 * that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) unless that address is public itself.
 */
export function isPublicAddress(address: string): boolean {
  return rangeOf(address) === 'unicast';
}

/** ipaddr.js's range name, an IPv4-mapped IPv6 address read as the IPv4 one it maps. */
function rangeOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address().range();
  }
  return parsed.range();
}

/** A host as URL gives it: IPv6 literals lose their brackets. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * The one refusal of a host that is not public: an IP literal or a name resolving to a non-public
 * address, and a name that does not resolve at all, are said alike, naming only the host as typed.
 * The address found and its kind (loopback, private, link-local) are never said to the user:
 * they would map the bot's network and what its DNS answers for internal names.
 */
export function notPublicReason(host: string): string {
  return `${host} is not a public address; only public addresses are allowed`;
}

/**
 * A host the bot may not connect to (see notPublicReason). `address` is what it resolved to, if
 * anything: for the operator's logs only, never in the message.
 */
export class NonPublicAddressError extends Error {
  readonly code = 'ENOTPUBLIC';
  readonly hostname: string;
  readonly address: string | undefined;
  constructor(hostname: string, address?: string, options?: { cause?: unknown }) {
    super(notPublicReason(bareHost(hostname)), options);
    this.name = 'NonPublicAddressError';
    this.hostname = hostname;
    this.address = address;
  }
}

/** The NonPublicAddressError an error is or wraps (undici and the CDN client nest it), if any. */
export function nonPublicCause(error: unknown): NonPublicAddressError | undefined {
  for (let cause: unknown = error, depth = 0; cause && depth < 6; depth++) {
    if (cause instanceof NonPublicAddressError) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A `lookup` for net/tls connect that resolves with `resolve` and refuses the connection when any
 * address is not public, so the check holds for the address actually connected to.
 */
export function publicOnlyLookup(
  resolve: Resolver = systemResolver,
  timeout: DnsTimeoutOptions = {},
): LookupFunction {
  return (hostname, options, callback) => {
    const refuse = (address?: string, cause?: unknown) =>
      callback(
        new NonPublicAddressError(hostname, address, cause === undefined ? undefined : { cause }),
        '',
        4,
      );
    resolveWithin(resolve, hostname, timeout).then(
      (found) => {
        const refused = found.find((entry) => !isPublicAddress(entry.address));
        if (refused) return refuse(refused.address);
        const family = options.family === 6 || options.family === 4 ? options.family : undefined;
        const usable = family ? found.filter((entry) => entry.family === family) : found;
        const [first] = usable;
        // No address at all is refused as a non-public one is: the same words, no connection.
        if (!first) return refuse();
        if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, usable);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) =>
        // Out of time: the DNS server did not answer (EAI_AGAIN, safe to try again). Any other
        // failure is a name that does not resolve, refused as a non-public address is.
        error instanceof DnsTimeoutError ? callback(error, '', 4) : refuse(undefined, error),
    );
  };
}

/** Throws NonPublicAddressError when an untrusted URL names a non-public IP address directly. */
export function assertPublicLiteral(url: URL): void {
  const host = bareHost(url.hostname);
  if (ipaddr.isValid(host) && !isPublicAddress(host)) throw new NonPublicAddressError(host, host);
}

export type OverrideCheck = { ok: true; url: string } | { ok: false; reason: string };

export interface EgressPolicyOptions {
  /** CDN_BASE_URL_ALLOWLIST: hosts trusted as the operator's own (any scheme, any address). */
  allowlist?: readonly string[];
  resolve?: Resolver;
  /** How long checking an override's name may take (DEFAULT_DNS_TIMEOUT_MS). */
  dnsTimeoutMs?: number;
  clock?: Clock;
  /** Told of each refused override with the address found: for operators, never for users. */
  logger?: Logger;
}

/** Decides which base URLs are trusted, and checks an override before it is saved. */
export class EgressPolicy {
  readonly #allowlist: ReadonlySet<string>;
  readonly #resolve: Resolver;
  readonly #dns: DnsTimeoutOptions;
  readonly #logger: Logger | undefined;

  constructor(options: EgressPolicyOptions = {}) {
    this.#logger = options.logger;
    this.#allowlist = new Set((options.allowlist ?? []).map(bareHost));
    this.#resolve = options.resolve ?? systemResolver;
    this.#dns = {
      timeoutMs: options.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS,
      clock: options.clock ?? systemClock,
    };
  }

  /** Whether requests to this base URL skip the public-address checks (an allowlisted host). */
  trusts(baseUrl: string): boolean {
    const url = URL.parse(baseUrl);
    return url !== null && this.#allowlist.has(bareHost(url.hostname));
  }

  /** Checks a workspace's override: its form, https, and that every address it has is public. */
  async checkOverride(input: string): Promise<OverrideCheck> {
    const form = checkBaseUrl(input);
    if (!form.ok) return form;
    if (this.trusts(form.url)) return form;
    const url = new URL(form.url);
    if (url.protocol !== 'https:') {
      return { ok: false, reason: 'must use https:// (only the operator can allow other hosts)' };
    }
    const host = bareHost(url.hostname);
    const notPublic = (address: string | undefined): OverrideCheck => {
      this.#logger?.info({ host, address: address ?? null }, 'base URL refused: not public');
      return { ok: false, reason: `is not allowed: ${notPublicReason(host)}` };
    };
    if (ipaddr.isValid(host)) return isPublicAddress(host) ? form : notPublic(host);
    let found: LookupAddress[];
    try {
      found = await resolveWithin(this.#resolve, host, this.#dns);
    } catch (error) {
      if (error instanceof DnsTimeoutError) {
        return {
          ok: false,
          reason: `has a host name that did not resolve in time (${host}, ${formatSeconds(this.#dns.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS)}); try again, or check its DNS`,
        };
      }
      // A name that does not resolve is said as a non-public one is: which of the two it was
      // would tell what the bot's DNS knows of internal names.
      return notPublic(undefined);
    }
    const refused = found.find((entry) => !isPublicAddress(entry.address));
    if (refused || found.length === 0) return notPublic(refused?.address);
    return form;
  }
}
