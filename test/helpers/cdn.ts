// A sandbox on loopback plus a client wired to it, torn down after each test.
import { CdnClient, type CdnClientOptions } from '../../src/cdn/client.js';
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
