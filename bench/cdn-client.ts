// Benchmark: the CDN client's purge batching against raw undici sending the same batches.
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { CdnClient } from '../src/cdn/client.js';
import { bodyFor, planPurge } from '../src/cdn/purge.js';
import { CdnTransport } from '../src/cdn/transport.js';
import { SANDBOX_DEMO_KEY, startSandbox } from '../src/sandbox/server.js';
import { fmt, median, type Section, table, timed } from './stats.js';

const URL_COUNT = 10_000;
const BATCH = 30;
const CONCURRENCY = 4;
const ROUNDS = 7;

export async function cdnClientBench(): Promise<Section> {
  const sandbox = await startSandbox({ maxPurgeItems: BATCH });
  const zone = sandbox.state.byName('example.com');
  if (!zone) throw new Error('demo zone missing');
  const files = Array.from({ length: URL_COUNT }, (_, i) => `https://example.com/static/${i}.js`);
  const batches = planPurge({ files }, BATCH);

  const transport = new CdnTransport({ connections: CONCURRENCY });
  const client = new CdnClient({
    baseUrl: sandbox.baseUrl,
    apiKey: SANDBOX_DEMO_KEY,
    transport,
    purge: { batchSize: BATCH, concurrency: CONCURRENCY },
  });
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const url = `${sandbox.baseUrl}/zones/${zone.id}/purge`;

  const viaClient = async () => {
    const report = await client.purge(zone.id, { files });
    if (!report.ok) throw new Error('client purge failed');
    return report.results.length;
  };
  const raw = async () => {
    const limit = pLimit(CONCURRENCY);
    await Promise.all(
      batches.map((batch) =>
        limit(async () => {
          const response = await request(url, {
            method: 'POST',
            dispatcher: agent,
            headers: {
              authorization: `Bearer ${SANDBOX_DEMO_KEY}`,
              'content-type': 'application/json',
              accept: 'application/json',
            },
            body: JSON.stringify(bodyFor(batch)),
          });
          await response.body.json();
          if (response.statusCode !== 200) throw new Error(`raw purge got ${response.statusCode}`);
        }),
      ),
    );
    return batches.length;
  };

  // Warm both paths (JIT, connections), then alternate so drift hits both equally.
  await viaClient();
  await raw();
  const clientMs: number[] = [];
  const rawMs: number[] = [];
  let requestsPerRun = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const before = sandbox.requests.length;
    clientMs.push((await timed(viaClient)).ms);
    requestsPerRun = sandbox.requests.length - before;
    rawMs.push((await timed(raw)).ms);
  }
  await agent.close();
  await transport.close();
  await sandbox.close();

  const ratio = median(clientMs) / median(rawMs);
  return {
    title: 'CDN client: 10,000-URL purge',
    body: [
      `${URL_COUNT.toLocaleString('en')} URLs against the sandbox on loopback, batches of ${BATCH}, ` +
        `${CONCURRENCY} in flight, median of ${ROUNDS} alternating rounds after a warm-up. ` +
        'The raw side sends the same bodies with bare undici and p-limit.',
      '',
      table(
        ['path', 'median wall time', 'requests per run'],
        [
          ['CdnClient.purge', fmt(median(clientMs)), requestsPerRun],
          ['raw undici', fmt(median(rawMs)), batches.length],
        ],
      ),
      '',
      `Client / raw: **${ratio.toFixed(2)}×** (issue 5 target: within 1.1×).`,
    ].join('\n'),
  };
}
