// A sandbox on loopback plus a client wired to it, torn down after each test; what a failed call
// threw, and a canned answer of the CDN.
import { inspect } from 'node:util';
import { CdnClient, type CdnClientOptions } from '../../src/cdn/client.js';
import { type CdnError, isCdnError } from '../../src/cdn/errors.js';
import { CdnTransport } from '../../src/cdn/transport.js';
import {
  SANDBOX_DEMO_KEY,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from '../../src/dev/sandbox/server.js';
import { afterEachTest } from './after-each-test.js';
import { InstantClock } from './clock.js';

export interface CdnFixture {
  sandbox: Sandbox;
  transport: CdnTransport;
  clock: InstantClock;
  client(overrides?: Partial<CdnClientOptions>): CdnClient;
}

const open: Array<() => Promise<void>> = [];

afterEachTest(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** The clock is shared by sandbox and client so sleeps and server time agree. */
export async function cdnFixture(options: SandboxOptions = {}): Promise<CdnFixture> {
  const clock = new InstantClock();
  const sandbox = await startSandbox({ clock, ...options });
  const transport = new CdnTransport();
  open.push(
    () => transport.close(),
    () => sandbox.close(),
  );
  return {
    sandbox,
    transport,
    clock,
    client: (overrides = {}) =>
      new CdnClient({
        baseUrl: sandbox.baseUrl,
        apiKey: SANDBOX_DEMO_KEY,
        transport,
        clock,
        // Mid-range jitter keeps recorded waits exact and readable: half of each ceiling.
        random: () => 0.5,
        ...overrides,
      }),
  };
}

/** The CdnError `promise` rejects with (anything else, or none, fails the test). */
export async function failure(promise: Promise<unknown>): Promise<CdnError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isCdnError(error)) throw new Error(`expected a CdnError, got ${inspect(error)}`);
  return error;
}

/** The sandbox's next answer (to `path` when told) is HTTP 200 with `body`, whatever it holds. */
export function answer200(sandbox: Sandbox, body: unknown, path?: string): void {
  sandbox.inject({ kind: 'status', status: 200, body, ...(path === undefined ? {} : { path }) });
}
