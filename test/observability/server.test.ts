// The metrics endpoint on a port of its own: only GET /metrics, and only with the bearer token when
// one is set; the text it serves parses strictly as Prometheus exposition.
import { afterEach, describe, expect, it } from 'vitest';
import { BotMetrics } from '../../src/observability/metrics.js';
import { type MetricsServer, startMetricsServer } from '../../src/observability/server.js';
import { parseExposition, sumOf } from '../helpers/prometheus.js';

const TOKEN = 'unit-metrics-token-9c1d2e3f';
let server: MetricsServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(token?: string) {
  const metrics = new BotMetrics({ processMetrics: false });
  server = await startMetricsServer({
    metrics,
    port: 0,
    host: '127.0.0.1',
    ...(token ? { token } : {}),
  });
  const url = `http://127.0.0.1:${server.port}`;
  return { metrics, url };
}

const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(url, { method, headers });

describe('startMetricsServer', () => {
  it('serves /metrics and nothing else, without a token when none is set', async () => {
    const { metrics, url } = await start();
    metrics.command('purge', 'ok');
    const response = await get(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const families = parseExposition(await response.text());
    expect(sumOf(families, 'cdn_chatops_commands_total', { subcommand: 'purge' })).toBe(1);
    expect((await get(`${url}/`)).status).toBe(404);
    expect((await get(`${url}/metrics/x`)).status).toBe(404);
    expect((await get(`${url}/metrics`, {}, 'POST')).status).toBe(405);
  });

  it('asks for the bearer token when one is set, compared whole', async () => {
    const { url } = await start(TOKEN);
    const status = async (authorization?: string) =>
      (await get(`${url}/metrics`, authorization ? { authorization } : {})).status;
    expect(await status()).toBe(401);
    expect(await status(TOKEN)).toBe(401);
    expect(await status(`Basic ${TOKEN}`)).toBe(401);
    expect(await status(`Bearer ${TOKEN.slice(0, -1)}`)).toBe(401);
    expect(await status(`Bearer ${TOKEN}0`)).toBe(401);
    expect(await status(`Bearer ${TOKEN}`)).toBe(200);
    expect(await status(`bearer ${TOKEN}`)).toBe(200);
    const refused = await get(`${url}/metrics`);
    expect(refused.headers.get('www-authenticate')).toContain('Bearer');
    expect(await refused.text()).not.toContain('cdn_chatops');
  });

  it('answers a scrape even when the job queue cannot be counted (empty gauge, no hang)', async () => {
    const { metrics, url } = await start();
    metrics.watchJobQueue(() => new Promise(() => undefined));
    metrics.watchPool(() => ({ total: 5, idle: 2, waiting: 3 }));
    const started = Date.now();
    const families = parseExposition(await (await get(`${url}/metrics`)).text());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(families.get('cdn_chatops_jobs_in_database')?.samples).toEqual([]);
    expect(sumOf(families, 'cdn_chatops_db_pool_connections', { state: 'in_use' })).toBe(3);
    expect(sumOf(families, 'cdn_chatops_db_pool_waiting')).toBe(3);
  });
});
