import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { CdnTransport } from '../../src/cdn/transport.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import { startFakeSlack } from '../../src/dev/fake-slack/server.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { buildTestApp, testConfig } from '../helpers/app.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs, expectNoSecrets } from '../helpers/logs.js';
import { freePort } from '../helpers/net.js';
import { testStore } from '../helpers/store.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The bot in Socket Mode against a fake Slack and a WebSocket server standing in for Slack's. */
async function startSocketBot() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  closers.push(() => new Promise((resolve) => wss.close(resolve)));
  const appToken = 'xapp-1-A0FAKE-socket-test';
  const logs = captureLogs('debug');
  const clock = new ManualClock();
  const slack = await startFakeSlack({
    clock,
    socket: { appToken, url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/` },
  });
  closers.push(() => slack.close());
  slack.addUser({ id: 'U1', name: 'u' });
  const sandbox = await startSandbox({ clock });
  closers.push(() => sandbox.close());
  const { store } = await testStore('sqlite', { clock });
  const transport = new CdnTransport();
  closers.push(() => transport.close());
  const port = await freePort();
  const config = testConfig(slack, sandbox, { SLACK_APP_TOKEN: appToken, PORT: String(port) });
  expect(config.mode).toBe('socket');
  const { app } = buildTestApp(config, { store, transport, clock, logger: logs.logger });
  await app.init();
  /** Says hello on every connection the bot opens, as Slack does. */
  const sockets: WebSocket[] = [];
  wss.on('connection', (socket) => {
    sockets.push(socket);
    socket.send(
      JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0FAKE' } }),
    );
  });
  const connected = once(wss, 'connection') as Promise<[WebSocket]>;
  await app.start();
  const [socket] = await connected;
  closers.push(() => app.stop() as Promise<unknown>);
  const health = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
  return { app, slack, logs, appToken, socket, sockets, wss, health };
}

describe('Socket Mode', () => {
  it('connects through apps.connections.open, acks a slash command envelope and answers it', async () => {
    const { slack, logs, appToken, socket } = await startSocketBot();
    const acked = new Promise<Record<string, unknown>>((resolve) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>;
        if (message.envelope_id === 'env-1') resolve(message);
      });
    });
    socket.send(
      JSON.stringify({
        envelope_id: 'env-1',
        type: 'slash_commands',
        accepts_response_payload: true,
        payload: new SlackPayloads(slack, slack.teamId).slashCommand('help', {
          user: 'U1',
          channel: 'C1',
        }),
      }),
    );
    expect(await acked).toMatchObject({ envelope_id: 'env-1' });
    const [reply] = await slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.text).toBe('CDN commands');
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
    expectNoSecrets(logs, { 'the app token': appToken, 'the bot token': slack.botToken });
    expect(logs.lines.length).toBeGreaterThan(0);
  });

  it('serves the health probes on PORT, ready only while the socket is connected', async () => {
    const { health, socket, wss } = await startSocketBot();
    expect((await health('/livez')).status).toBe(200);
    expect((await health('/healthz')).status).toBe(200);
    const ready = await health('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, database: 'ok', socket: 'connected' });

    // Slack drops the connection: not ready until the client has connected again.
    const reconnected = once(wss, 'connection');
    socket.terminate();
    const report = await (async () => {
      for (;;) {
        const answer = await health('/readyz');
        if (answer.status === 503) return answer.json();
        await answer.body?.cancel();
      }
    })();
    expect(report).toMatchObject({ ready: false, database: 'ok' });
    expect(['reconnecting', 'disconnected', 'connecting']).toContain(
      (report as { socket: string }).socket,
    );
    await reconnected;
    for (;;) {
      const answer = await health('/readyz');
      await answer.body?.cancel();
      if (answer.status === 200) break;
    }
    expect((await health('/livez')).status).toBe(200);
  });
});
