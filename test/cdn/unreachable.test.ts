// A CDN out of reach, by real failures: a host name that does not resolve, a closed port, a server
// that never answers, TLS spoken to a plain-HTTP server. Each is one line naming the host and the
// kind, in the CdnError, in a command's answer and in the API-key form's check; a refused key is
// told apart from all of them.
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { errorText } from '../../src/blocks/errors.js';
import { keyRefusedText, keyUncheckedText } from '../../src/blocks/login.js';
import { plainText } from '../../src/blocks/text.js';
import { CdnClient } from '../../src/cdn/client.js';
import { CdnError } from '../../src/cdn/errors.js';
import { CdnTransport } from '../../src/cdn/transport.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { CdnAccess } from '../../src/services/accounts/cdn-access.js';
import { CredentialService } from '../../src/services/accounts/credentials.js';
import type { Store } from '../../src/store/index.js';
import { InstantClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { freePort } from '../helpers/net.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function transport(): CdnTransport {
  const t = new CdnTransport();
  closers.push(() => t.close(100));
  return t;
}

/** Accepts connections and never answers on them. */
async function silentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as { port: number }).port;
}

/** A plain-HTTP server, to be addressed as https. */
async function plainHttpServer(): Promise<number> {
  const server = createHttpServer((_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as { port: number }).port;
}

async function failureAt(baseUrl: string, timeoutMs = 10_000): Promise<CdnError> {
  const client = new CdnClient({
    baseUrl,
    apiKey: 'sk_unreachable_test_key',
    transport: transport(),
    clock: new InstantClock(),
    timeoutMs,
    retry: { maxRetries: 0 },
  });
  const error = await client.listZones().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CdnError)) throw new Error(`expected a CdnError, got ${String(error)}`);
  return error;
}

describe('a CDN out of reach, said in one line naming the host and why', () => {
  it('a host name that does not resolve', async () => {
    const error = await failureAt('https://api.cdn-chatops.invalid/v1');
    expect(error.code).toBe('network');
    expect(error.message).toMatch(
      /^Cannot reach the CDN at api\.cdn-chatops\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN)\)$/,
    );
    expect(plainText(errorText(error))).toBe(`${error.message}. Try again in a minute.`);
  });

  it('a closed port', async () => {
    const port = await freePort();
    const error = await failureAt(`http://127.0.0.1:${port}/v1`);
    expect(error).toMatchObject({
      code: 'network',
      message: `Cannot reach the CDN at 127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
    });
  });

  it('a server that never answers, within the configured timeout', async () => {
    const port = await silentServer();
    const error = await failureAt(`http://127.0.0.1:${port}/v1`, 200);
    expect(error).toMatchObject({
      code: 'timeout',
      message: `The CDN at 127.0.0.1:${port} did not answer within 0.2 s`,
    });
    expect(plainText(errorText(error))).toBe(
      `The CDN at 127.0.0.1:${port} did not answer within 0.2 s. Check the result before trying again.`,
    );
  });

  it('TLS spoken to a plain-HTTP server', async () => {
    const port = await plainHttpServer();
    const error = await failureAt(`https://127.0.0.1:${port}/v1`);
    expect(error.code).toBe('network');
    expect(error.message).toMatch(
      new RegExp(
        `^Cannot reach the CDN at 127\\.0\\.0\\.1:${port}: TLS handshake failed \\(\\w+\\)$`,
      ),
    );
  });
});

describe("the API-key form's check", () => {
  async function credentials(defaultBaseUrl: string) {
    // The check reads nothing else: no store, no egress, access or zone service.
    const store = {} as Store;
    const cdn = new CdnAccess({
      store,
      transport: transport(),
      clock: new InstantClock(),
      logger: captureLogs('warn').logger,
      defaultBaseUrl,
    });
    return new CredentialService({
      store,
      cdn,
      egress: undefined as never,
      access: undefined as never,
      zones: undefined as never,
    });
  }

  it('says the CDN refused the key (401), naming the host, apart from a CDN out of reach', async () => {
    const sandbox = await startSandbox({ apiKeys: ['sk_right'] });
    closers.push(() => sandbox.close());
    const host = new URL(sandbox.baseUrl).host;
    const check = await (await credentials(sandbox.baseUrl)).check('sk_wrong', null);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(keyRefusedText(check.refusal)).toBe(
      `The CDN at ${host} refused this key (401): Invalid API key`,
    );

    const port = await freePort();
    const unreachable = await (await credentials(`http://127.0.0.1:${port}/v1`))
      .check('sk_wrong', null)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(keyUncheckedText(plainText(errorText(unreachable)))).toBe(
      `Couldn't check the key: Cannot reach the CDN at 127.0.0.1:${port}: connection refused (ECONNREFUSED). Try again in a minute.`,
    );
  });
});
