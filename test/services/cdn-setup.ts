// The CDN sandbox on loopback and the CDN services over it as the app builds them (compose.ts), on
// a real store: where the service tests that reach the CDN start (zone index, analytics, purges).
import { CdnTransport } from '../../src/cdn/transport.js';
import { type SandboxOptions, startSandbox } from '../../src/dev/sandbox/server.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { type CdnServicesOptions, cdnServices } from '../../src/services/purge/compose.js';
import type { Store } from '../../src/store/index.js';
import type { ManualClock } from '../helpers/clock.js';
import { type Backend, testStore } from '../helpers/store.js';

export async function cdnSetup(options: {
  clock: ManualClock;
  /** The database, unless `store` is given (a second replica's setup shares the first's). */
  backend?: Backend;
  store?: Store;
  sandbox?: SandboxOptions;
  /** Default: silent. */
  logger?: Logger;
  /** Without a runner: one of its own on the store, as each replica has (not started). */
  zoneIndex: Omit<CdnServicesOptions['zoneIndex'], 'runner'> & { runner?: JobRunner };
}) {
  const { clock } = options;
  const sandbox = await startSandbox({ clock, ...options.sandbox });
  const transport = new CdnTransport();
  const store = options.store ?? (await testStore(options.backend ?? 'sqlite', { clock })).store;
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const services = cdnServices({
    store,
    transport,
    defaultBaseUrl: sandbox.baseUrl,
    clock,
    logger,
    zoneIndex: { runner: new JobRunner({ jobs: store.jobs, clock, logger }), ...options.zoneIndex },
    // Unbounded reads: these tests are about other things.
    readsPerMinute: { person: 0, workspace: 0 },
  });
  return { sandbox, transport, store, logger, services };
}
