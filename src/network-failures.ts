// Why Slack, the CDN or the database could not be reached, in one line naming the host and the
// kind of failure (DNS, a refused connection, a timeout, TLS), never a secret. A service that was
// reached and refused the credentials is another matter, said by each caller in its own words.
/** A wait as a timeout reads: 30 s, 2.5 s. */
export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

export type UnreachableKind = 'dns' | 'refused' | 'timeout' | 'tls' | 'reset' | 'network';

/** How a connection failed: the kind, and the system's code for it when there is one. */
export interface Unreachable {
  kind: UnreachableKind;
  code?: string;
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const TIMEOUT = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);
const NETWORK = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
/** OpenSSL's certificate verdicts (Node passes them on as the error's code). */
const CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'EPROTO',
]);
/** node-postgres says some of them in words only. */
const PG_TIMEOUT = /timeout exceeded when trying to connect|connection timeout|Query read timeout/i;
const PG_TLS = /does not support SSL connections/i;

/** An error and the causes it wraps (fetch, undici and the Slack client nest the socket's error). */
function* causes(error: unknown): Generator<{ code?: unknown; name?: unknown; message?: unknown }> {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    yield current as { code?: unknown; name?: unknown; message?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

/** How `error` says the connection failed, or undefined when it says something else. */
export function unreachableOf(error: unknown): Unreachable | undefined {
  for (const cause of causes(error)) {
    const code = typeof cause.code === 'string' ? cause.code : undefined;
    const message = typeof cause.message === 'string' ? cause.message : '';
    if (code !== undefined) {
      if (DNS.has(code)) return { kind: 'dns', code };
      if (code === 'ECONNREFUSED') return { kind: 'refused', code };
      if (TIMEOUT.has(code)) return { kind: 'timeout', code };
      if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || CERTIFICATE.has(code)) {
        return { kind: 'tls', code };
      }
      if (RESET.has(code)) return { kind: 'reset', code };
      if (NETWORK.has(code)) return { kind: 'network', code };
    }
    // AbortSignal.timeout()'s reason, which fetch rejects with.
    if (cause.name === 'TimeoutError' || PG_TIMEOUT.test(message)) return { kind: 'timeout' };
    if (PG_TLS.test(message)) return { kind: 'tls' };
  }
  return undefined;
}

/**
 * The SQLSTATE of a database that was reached and refused the login: class 28, invalid
 * authorization (28P01 a wrong password, 28000 an unknown role or a pg_hba.conf rule).
 */
export function databaseLoginRefusal(error: unknown): string | undefined {
  for (const cause of causes(error)) {
    if (typeof cause.code === 'string' && /^28[0-9A-Z]{3}$/.test(cause.code)) return cause.code;
  }
  return undefined;
}

/** The kind in words: "DNS lookup failed (ENOTFOUND)", "timed out after 10 s". */
export function unreachableReason(failure: Unreachable, timeoutMs?: number): string {
  const code = failure.code ? ` (${failure.code})` : '';
  switch (failure.kind) {
    case 'dns':
      return `DNS lookup failed${code}`;
    case 'refused':
      return `connection refused${code}`;
    case 'timeout':
      return timeoutMs === undefined
        ? `timed out${code}`
        : `timed out after ${formatSeconds(timeoutMs)}`;
    case 'tls':
      return `TLS handshake failed${code}`;
    case 'reset':
      return `connection closed${code}`;
    case 'network':
      return `no route to the host${code}`;
  }
}

/** "Cannot reach Slack at slack.com: DNS lookup failed (ENOTFOUND)". */
export function cannotReach(
  service: string,
  host: string,
  failure: Unreachable,
  timeoutMs?: number,
): string {
  return `Cannot reach ${service} at ${host}: ${unreachableReason(failure, timeoutMs)}`;
}
