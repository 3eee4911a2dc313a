// The gate in front of the fake Slack's Web API for the fault tests (see bot-process.ts): the
// bots' Web API calls go through it, and a test holds the one it chooses (the call, or only
// Slack's answer to it) until it lets it through; a call from a bot killed meanwhile is dropped.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs, readBody } from '../../src/dev/fake-slack/http.js';

/** A Web API call the bot made, as the gate in front of the fake Slack sees it. */
export interface GatedCall {
  /** The Web API method, e.g. chat.update. */
  method: string;
  args: Record<string, unknown>;
}

/** A Web API call held at the gate until released. */
export interface Hold {
  /** Resolves with the call once the bot has made it (it is being held from then on). */
  readonly reached: Promise<GatedCall>;
  /**
   * Lets the held call through to the fake Slack, unless the bot that made it is gone (a killed
   * process's call is dropped, as if it never left). Before the call arrives: lets it through.
   */
  release(): void;
}

/** The gate in front of the fake Slack's Web API: forwards every call, holds the ones asked for. */
export class SlackGate {
  readonly #target: URL;
  readonly #server: Server;
  readonly #holds: Array<{
    match: (call: GatedCall) => boolean;
    taken: boolean;
    /** Forward first, hold the answer. */
    answer: boolean;
    reached: (call: GatedCall) => void;
    released: Promise<void>;
    release: () => void;
  }> = [];
  #url = '';

  constructor(target: string) {
    this.#target = new URL(target);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  get apiUrl(): string {
    return `${this.#url}/api/`;
  }

  hold(match: (call: GatedCall) => boolean, options: { answer?: boolean } = {}): Hold {
    let reached!: (call: GatedCall) => void;
    let release!: () => void;
    const reachedPromise = new Promise<GatedCall>((resolve) => {
      reached = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#holds.push({
      match,
      taken: false,
      answer: options.answer ?? false,
      reached,
      released,
      release,
    });
    return { reached: reachedPromise, release };
  }

  async close(): Promise<void> {
    for (const hold of this.#holds) hold.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let gone = false;
    res.once('close', () => {
      gone = !res.writableFinished;
    });
    const path = req.url ?? '/';
    if (path.startsWith('/api/')) {
      const call: GatedCall = {
        method: path.slice('/api/'.length).split('?')[0] ?? '',
        args: parseArgs(String(req.headers['content-type'] ?? ''), body),
      };
      const hold = this.#holds.find((h) => !h.taken && h.match(call));
      if (hold) {
        hold.taken = true;
        // Slack does the work now; its answer waits for the release.
        const answered = hold.answer ? await this.#forward(req, body) : undefined;
        hold.reached(call);
        await hold.released;
        // The caller died while its call was held: it never hears (or the call never reaches Slack).
        if (gone || req.socket.destroyed) {
          res.destroy();
          return;
        }
        if (answered) return answer(res, answered);
      }
    }
    answer(res, await this.#forward(req, body));
  }

  #forward(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const headers = { ...req.headers, host: this.#target.host };
    delete headers.connection;
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(
        {
          host: this.#target.hostname,
          port: this.#target.port,
          method: req.method,
          path: req.url,
          headers,
        },
        (reply) => {
          readBody(reply).then(
            (replyBody) =>
              resolve({ status: reply.statusCode ?? 502, headers: reply.headers, body: replyBody }),
            reject,
          );
        },
      );
      upstream.once('error', reject);
      upstream.end(body);
    });
  }
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function answer(res: ServerResponse, { status, headers, body }: Answer): void {
  const rest = { ...headers };
  // The body is whole now: its length is known, whatever encoding carried it.
  delete rest['transfer-encoding'];
  res.writeHead(status, { ...rest, 'content-length': body.length }).end(body);
}
