// Serves GET /metrics: on a port of its own (METRICS_PORT, a plain node:http server), or on PORT
// beside the health probes as a Bolt custom route. With METRICS_TOKEN, a scrape must carry it as
// `Authorization: Bearer <token>` (compared in constant time); without it, 401.
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../logger.js';
import type { BotMetrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

export interface MetricsAccess {
  /** Required of every scrape when set (METRICS_TOKEN). */
  token?: string;
}

/** Whether the request carries the token (always true when there is none to carry). */
export function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) return false;
  // Digests of equal length, so timingSafeEqual compares them whatever was sent.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

/** Answers one scrape: 405 for anything but GET/HEAD, 401 without the token, else the metrics. */
export function serveMetrics(metrics: BotMetrics, access: MetricsAccess, logger?: Logger) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (!authorized(req, access.token)) {
      res
        .writeHead(401, {
          'www-authenticate': 'Bearer realm="metrics"',
          'cache-control': 'no-store',
        })
        .end('unauthorized\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger?.warn({ err: error }, 'metrics not collected');
        res.writeHead(500).end('metrics not collected\n');
      },
    );
  };
}

/** GET /metrics as a Bolt custom route on PORT (when there is no METRICS_PORT). */
export function metricsRoute(
  metrics: BotMetrics,
  access: MetricsAccess,
  logger?: Logger,
): CustomRoute {
  return {
    path: METRICS_PATH,
    method: ['GET', 'HEAD'],
    handler: serveMetrics(metrics, access, logger),
  };
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** A plain HTTP server on `port` (0: any free one) answering /metrics, and 404 for anything else. */
export async function startMetricsServer(options: {
  metrics: BotMetrics;
  port: number;
  token?: string;
  host?: string;
  logger?: Logger;
}): Promise<MetricsServer> {
  const serve = serveMetrics(
    options.metrics,
    options.token === undefined ? {} : { token: options.token },
    options.logger,
  );
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404).end('not found\n');
      return;
    }
    serve(req, res);
  });
  // A scrape's connection is short; a stop does not wait for an idle keep-alive one.
  server.keepAliveTimeout = 5_000;
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
