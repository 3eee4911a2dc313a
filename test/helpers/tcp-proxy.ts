// A TCP proxy on loopback for network-fault tests: it forwards to a target until told to black-hole
// (bytes either way are held back and new connections are accepted but never connected on, as a
// partition looks from both ends), then heals (what was held back flows, new connections go through).

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

interface Link {
  client: Socket;
  upstream: Socket | undefined;
  /** Held back while black-holed: [to upstream, to client]. */
  held: [Buffer[], Buffer[]];
}

export class TcpProxy {
  readonly #server: Server;
  readonly #links = new Set<Link>();
  #blackholed = false;
  #port = 0;

  private constructor(private readonly target: { host: string; port: number }) {
    this.#server = createServer((client) => this.#accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.#port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  /** Connections open now. */
  get connections(): number {
    return this.#links.size;
  }

  blackhole(): void {
    this.#blackholed = true;
  }

  heal(): void {
    this.#blackholed = false;
    for (const link of this.#links) {
      if (!link.upstream) this.#connectUpstream(link);
      else this.#flush(link);
    }
  }

  async close(): Promise<void> {
    for (const link of this.#links) {
      link.client.destroy();
      link.upstream?.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    const link: Link = { client, upstream: undefined, held: [[], []] };
    this.#links.add(link);
    client.on('data', (chunk) => {
      if (this.#blackholed || !link.upstream) link.held[0].push(chunk);
      else link.upstream.write(chunk);
    });
    const end = () => {
      this.#links.delete(link);
      client.destroy();
      link.upstream?.destroy();
    };
    client.on('close', end);
    client.on('error', end);
    if (!this.#blackholed) this.#connectUpstream(link);
  }

  #connectUpstream(link: Link): void {
    const upstream = connect(this.target.port, this.target.host);
    link.upstream = upstream;
    upstream.on('connect', () => this.#flush(link));
    upstream.on('data', (chunk) => {
      if (this.#blackholed) link.held[1].push(chunk);
      else link.client.write(chunk);
    });
    const end = () => {
      this.#links.delete(link);
      link.client.destroy();
      upstream.destroy();
    };
    upstream.on('close', end);
    upstream.on('error', end);
  }

  #flush(link: Link): void {
    if (this.#blackholed || !link.upstream || link.upstream.connecting) return;
    for (const chunk of link.held[0].splice(0)) link.upstream.write(chunk);
    for (const chunk of link.held[1].splice(0)) link.client.write(chunk);
  }
}
