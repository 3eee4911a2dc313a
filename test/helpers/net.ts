// A loopback port nobody listens on (for processes that must be told their port up front).
import { createServer } from 'node:net';
import type { Resolver } from '../../src/cdn/egress.js';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * DNS answers (egress Resolvers) for a host that is not public, one of each kind the bot refuses
 * alike: a loopback, a private and a link-local address, and a name that does not resolve.
 */
export const NON_PUBLIC_ANSWERS: Readonly<Record<string, Resolver>> = {
  loopback: async () => [{ address: '127.0.0.1', family: 4 }],
  private: async () => [{ address: '10.0.0.7', family: 4 }],
  'link-local': async () => [{ address: '169.254.169.254', family: 4 }],
  'does not resolve': async (hostname) => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  },
};
