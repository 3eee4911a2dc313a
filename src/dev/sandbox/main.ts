// `npm run sandbox`: the CDN sandbox as a standalone server for local use.
import { z } from 'zod';
import { SANDBOX_DEMO_KEY, startSandbox } from './server.js';

const env = z
  .object({
    SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
    SANDBOX_HOST: z.string().default('127.0.0.1'),
    SANDBOX_API_KEYS: z.string().default(SANDBOX_DEMO_KEY),
    SANDBOX_BULK_ZONES: z.coerce.number().int().min(0).max(100_000).default(0),
    SANDBOX_ACTIVATION_DELAY_MS: z.coerce.number().int().min(0).default(60_000),
  })
  .safeParse(process.env);

if (!env.success) {
  const issue = env.error.issues[0];
  console.error(`sandbox: ${String(issue?.path[0])}: ${issue?.message}`);
  process.exit(1);
}

const options = env.data;
const sandbox = await startSandbox({
  port: options.SANDBOX_PORT,
  host: options.SANDBOX_HOST,
  apiKeys: options.SANDBOX_API_KEYS.split(',').map((key) => key.trim()),
  bulkZones: options.SANDBOX_BULK_ZONES,
  activationDelayMs: options.SANDBOX_ACTIVATION_DELAY_MS,
});

process.stdout.write(
  [
    `CDN sandbox listening: CDN_API_BASE_URL=${sandbox.baseUrl}`,
    `Demo API key: ${options.SANDBOX_API_KEYS === SANDBOX_DEMO_KEY ? SANDBOX_DEMO_KEY : '(from SANDBOX_API_KEYS)'}`,
    `Try: curl -H 'Authorization: Bearer ${SANDBOX_DEMO_KEY}' ${sandbox.baseUrl}/zones`,
    '',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => process.exit(0));
  });
}
