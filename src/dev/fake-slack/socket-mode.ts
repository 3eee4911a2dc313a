// Slack's side of Socket Mode: the WebSocket URL apps.connections.open hands out, a hello on each
// connection, and envelopes delivered to the app, which must acknowledge each by its envelope_id.
// Sources: https://api.slack.com/apis/connections/socket-implement (connect, hello, envelopes,
// acknowledgements); https://api.slack.com/methods/apps.connections.open (the URL:
// wss://…/link/?ticket=…&app_id=…); recorded frames in slackapi/python-slack-sdk
// tests/slack_sdk/socket_mode/mock_socket_mode_server.py (hello and the three envelope types).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** An Events API retry (HTTP: x-slack-retry-num / x-slack-retry-reason). */
export interface Retry {
  attempt: number;
  reason: string;
}

/** The app's acknowledgement of an envelope, and how long it took (wall time). */
export interface SocketAck {
  payload?: unknown;
  ms: number;
}

/** Interactions whose ack carries an answer (errors of a form, options of a menu). */
const ANSWERED = new Set(['view_submission', 'block_suggestion']);

export class SocketModeLink {
  readonly #server = new WebSocketServer({ noServer: true });
  /** Tickets of URLs handed out and not yet connected to: each is good for one connection. */
  readonly #tickets = new Set<string>();
  readonly #open: WebSocket[] = [];
  readonly #waiting = new Map<string, (ack: { payload?: unknown }) => void>();

  constructor(private readonly appId: string) {}

  /** apps.connections.open's answer: a new URL on `base` (the fake's http://host:port). */
  open(base: string): string {
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    return `${base.replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${this.appId}`;
  }

  /** An HTTP upgrade to the fake's port: a connection with a ticket becomes a socket. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/link/' || !this.#tickets.delete(url.searchParams.get('ticket') ?? '')) {
      socket.destroy();
      return;
    }
    this.#server.handleUpgrade(req, socket, head, (ws) => this.#connected(ws));
  }

  #connected(ws: WebSocket): void {
    this.#open.push(ws);
    ws.on('close', () => this.#open.splice(this.#open.indexOf(ws), 1));
    ws.on('message', (data) => {
      const ack = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      const resolve = ack.envelope_id ? this.#waiting.get(ack.envelope_id) : undefined;
      if (ack.envelope_id) this.#waiting.delete(ack.envelope_id);
      resolve?.(ack);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.#open.length,
        debug_info: { host: 'applink-fake', approximate_connection_time: 18_060 },
        connection_info: { app_id: this.appId },
      }),
    );
  }

  /**
   * Sends `payload` in an envelope on the newest connection; resolves with the app's ack. Events
   * carry retry_attempt and retry_reason (0 and "" on a first delivery); slash commands and the
   * interactions whose ack is an answer accept a response payload.
   */
  deliver(type: EnvelopeType, payload: Record<string, unknown>, retry?: Retry): Promise<SocketAck> {
    const ws = this.#open.at(-1);
    if (!ws) throw new Error('no Socket Mode connection is open');
    const envelopeId = randomUUID();
    const started = performance.now();
    const acked = new Promise<SocketAck>((resolve) => {
      this.#waiting.set(envelopeId, (ack) => resolve({ ...ack, ms: performance.now() - started }));
    });
    ws.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload:
          type === 'slash_commands' ||
          (type === 'interactive' && ANSWERED.has(String(payload.type))),
        ...(type === 'events_api'
          ? { retry_attempt: retry?.attempt ?? 0, retry_reason: retry?.reason ?? '' }
          : {}),
      }),
    );
    return acked;
  }

  close(): void {
    for (const ws of this.#open) ws.terminate();
    this.#server.close();
  }
}
