// The API-key form answers Slack within its 3 s whatever is slow (users.info, DNS, the CDN), and the
// result still reaches the user by updating the modal. The real app over HTTP (test/e2e/harness),
// its clock a ManualClock: Slack's budget passes only when the test moves it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_IDS } from '../../../src/blocks/ids.js';
import type { Resolver } from '../../../src/cdn/egress.js';
import { FakeSlack } from '../../../src/dev/fake-slack/server.js';
import {
  ADMIN,
  CDN_KEY,
  type Harness,
  MEMBER,
  startHarness,
  textOf,
  viewIdOf,
} from '../../e2e/harness.js';

/** Slack's budget for answering a submission, as the handler counts it. */
const INLINE_ANSWER_MS = 2_500;
const CHECKS_TIMEOUT_MS = 60_000;
/** How long a user's profile is kept (src/slack/directory.ts) before users.info is asked again. */
const PROFILE_CACHE_MS = 60_000;

const keyValues = (key: string, baseUrl?: string) => ({
  [LOGIN_IDS.keyBlock]: { [LOGIN_IDS.keyInput]: { type: 'plain_text_input', value: key } },
  [LOGIN_IDS.baseUrlBlock]: {
    [LOGIN_IDS.baseUrlInput]: { type: 'url_text_input', value: baseUrl ?? null },
  },
});

/** A promise and the function that settles it: something a test lets happen when it chooses. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/**
 * A Web API gate in front of the fake Slack (SLACK_API_URL points here): forwards every call,
 * except that it holds the next call of a method until released.
 */
class SlackGate {
  target = '';
  readonly #server: Server;
  readonly #holds: Array<{ method: string; reached: () => void; released: Promise<void> }> = [];

  constructor() {
    this.#server = createServer((req, res) => {
      this.#forward(req).then(
        ({ status, type, body }) => res.writeHead(status, { 'content-type': type }).end(body),
        () => res.writeHead(502).end(),
      );
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/api/`;
  }

  /** Holds the next `method` call; `reached` resolves once the bot made it. */
  hold(method: string): { reached: Promise<void>; release: () => void } {
    const reached = gate();
    const released = gate();
    this.#holds.push({ method, reached: reached.open, released: released.opened });
    return { reached: reached.opened, release: released.open };
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #forward(req: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0];
    const index = this.#holds.findIndex((hold) => hold.method === method);
    const hold = this.#holds.splice(index, index < 0 ? 0 : 1)[0];
    if (hold) {
      hold.reached();
      await hold.released;
    }
    const response = await fetch(`${this.target}${req.url}`, {
      method: req.method ?? 'POST',
      headers: {
        'content-type': String(req.headers['content-type'] ?? ''),
        authorization: String(req.headers.authorization ?? ''),
      },
      body: Buffer.concat(chunks),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? 'application/json',
      body: await response.text(),
    };
  }
}

const gates: SlackGate[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(gates.splice(0).map((g) => g.close()));
});

/** A harness whose Web API calls go through a gate. */
async function gatedHarness(options: { resolve?: Resolver } = {}) {
  const slackGate = new SlackGate();
  gates.push(slackGate);
  const apiUrl = await slackGate.listen();
  // The harness starts its fake Slack, then the app (whose first call is auth.test): the gate
  // learns where the fake Slack is as soon as it listens.
  const start = FakeSlack.prototype.start;
  vi.spyOn(FakeSlack.prototype, 'start').mockImplementation(async function (this: FakeSlack) {
    await start.call(this);
    slackGate.target = this.url;
    return this;
  });
  const env = {
    SLACK_API_URL: apiUrl,
    // Response URLs stay the fake Slack's (the gate is in front of the Web API only): read when
    // the harness loads its config, once the fake Slack listens.
    get SLACK_RESPONSE_URL_BASE() {
      return slackGate.target;
    },
  };
  const h = await startHarness({ env, ...options });
  return { h, slackGate };
}

async function openLogin(h: Harness, user = ADMIN): Promise<string> {
  const before = h.slack.callsTo('views.open').length;
  await h.command('login', { user });
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  // Opening the form checked the admin and kept the profile a minute: past that, the submission
  // asks users.info again (the call these tests hold).
  h.clock.advance(PROFILE_CACHE_MS + 1);
  return viewIdOf(calls[before]);
}

/** Submits the form; resolves with Slack's answer and the clock's time when it came. */
function submit(h: Harness, viewId: string, values: ReturnType<typeof keyValues>, user = ADMIN) {
  const arrived = h.clock.now();
  return h.submit(viewId, values, { user }).then((answer) => ({
    answer: JSON.parse(answer.body) as {
      response_action: string;
      view?: { blocks: unknown };
      errors?: Record<string, string>;
    },
    afterMs: h.clock.now() - arrived,
  }));
}

/** The submission was answered in Slack's time with the view that says the key is being checked. */
async function expectCheckingInTime(submitted: ReturnType<typeof submit>) {
  const { answer, afterMs } = await submitted;
  expect(afterMs).toBeLessThanOrEqual(INLINE_ANSWER_MS);
  expect(textOf(answer.view?.blocks)).toContain('Checking the key');
  return answer;
}

/** ADMIN submits the key while users.info is held, and Slack's 3 s pass: the answer is due. */
async function submittedWhileUsersInfoHeld() {
  const { h, slackGate } = await gatedHarness();
  const viewId = await openLogin(h);
  const slowSlack = slackGate.hold('users.info');
  const submitted = submit(h, viewId, keyValues(CDN_KEY));
  await slowSlack.reached;
  h.clock.advance(INLINE_ANSWER_MS);
  return { h, viewId, slowSlack, submitted };
}

/** Holds the CDN's next answer until `cdn` opens; `reached` opens once it is held. */
function holdCdn(h: Harness) {
  const cdn = gate();
  const reached = gate();
  h.sandbox.inject({ kind: 'hold', until: cdn.opened, onHeld: reached.open });
  return { cdn, reached };
}

/** The next views.update of `viewId` (after `before` of them). */
async function nextUpdate(h: Harness, viewId: string, before = 0) {
  const calls = await h.slack.waitForCalls(
    (c) => c.method === 'views.update' && c.args.view_id === viewId,
    before + 1,
  );
  return calls[before];
}

describe('the key modal answers within Slack’s 3 s', () => {
  it('when users.info is slow: a checking view in time, then the saved key', async () => {
    const { h, viewId, slowSlack, submitted } = await submittedWhileUsersInfoHeld();

    expect((await expectCheckingInTime(submitted)).response_action).toBe('update');
    // Nothing was checked yet: users.info has not answered.
    expect(h.sandbox.requests).toEqual([]);

    slowSlack.release();
    const update = await nextUpdate(h, viewId);
    expect(textOf(update?.args.view)).toContain('Key saved');
    expect((await h.store.credentials.get(h.workspaceId))?.apiKey).toBe(CDN_KEY);
    await h.slack.waitForMessages((m) => m.text?.includes('key is saved') ?? false);
  });

  it('when users.info never answers: after the checks’ own bound, says so and saves nothing', async () => {
    const { h, viewId, slowSlack, submitted } = await submittedWhileUsersInfoHeld();
    await expectCheckingInTime(submitted);

    h.clock.advance(CHECKS_TIMEOUT_MS);
    const update = await nextUpdate(h, viewId);
    expect(textOf(update?.args.view)).toContain(
      'Nothing was saved: Slack did not say whether you are a workspace admin within 60 s.',
    );
    // Slack answering late changes nothing.
    slowSlack.release();
    await h.slack.waitForCalls((c) => c.method === 'users.info', 2);
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
    expect(h.sandbox.requests).toEqual([]);
  });

  it('when a slow users.info says the user is no admin: the modal tells them', async () => {
    const { h, slackGate } = await gatedHarness();
    const viewId = await openLogin(h);
    const slowSlack = slackGate.hold('users.info');
    // The admin was demoted between opening the form and submitting it.
    h.slack.addUser({ id: ADMIN, name: 'alice', isAdmin: false });
    const submitted = submit(h, viewId, keyValues(CDN_KEY));
    await slowSlack.reached;
    h.clock.advance(INLINE_ANSWER_MS);
    expect((await submitted).answer.response_action).toBe('update');
    slowSlack.release();
    const update = await nextUpdate(h, viewId);
    expect(textOf(update?.args.view)).toContain(
      'Only workspace admins and owners can set the CDN API key.',
    );
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });

  it('when DNS is slow: a checking view in time, then the base URL’s problem in the form', async () => {
    const dns = gate<void>();
    const asked = gate<string>();
    const resolve: Resolver = async (hostname) => {
      asked.open(hostname);
      await dns.opened;
      return [{ address: '10.0.0.7', family: 4 }];
    };
    const { h } = await gatedHarness({ resolve });
    const viewId = await openLogin(h);
    const submitted = submit(h, viewId, keyValues(CDN_KEY, 'https://slow-dns.example/v1'));
    expect(await asked.opened).toBe('slow-dns.example');
    h.clock.advance(INLINE_ANSWER_MS);

    await expectCheckingInTime(submitted);

    dns.open();
    const update = await nextUpdate(h, viewId);
    const form = textOf(update?.args.view);
    expect(form).toContain(
      'The base URL is not allowed: slow-dns.example is not a public address; only public addresses are allowed.',
    );
    // The form again, with what was typed, ready to correct.
    expect(JSON.stringify(update?.args.view)).toContain('https://slow-dns.example/v1');
    expect(h.sandbox.requests).toEqual([]);
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });

  it('when the CDN is slow: a checking view in time, then the saved key', async () => {
    const { h } = await gatedHarness();
    const viewId = await openLogin(h);
    const { cdn, reached } = holdCdn(h);
    const submitted = submit(h, viewId, keyValues(CDN_KEY));
    await reached.opened;
    h.clock.advance(INLINE_ANSWER_MS);

    await expectCheckingInTime(submitted);

    cdn.open();
    const update = await nextUpdate(h, viewId);
    expect(textOf(update?.args.view)).toContain('Key saved');
    expect((await h.store.credentials.get(h.workspaceId))?.apiKey).toBe(CDN_KEY);
  });

  it('counts Slack’s 3 s from the submission, not from the CDN check', async () => {
    // users.info takes 2 s of the budget: the CDN check gets only what is left of it.
    const { h, slackGate } = await gatedHarness();
    const viewId = await openLogin(h);
    const slowSlack = slackGate.hold('users.info');
    const { cdn, reached } = holdCdn(h);
    const submitted = submit(h, viewId, keyValues(CDN_KEY));
    await slowSlack.reached;
    h.clock.advance(2_000);
    slowSlack.release();
    await reached.opened;
    h.clock.advance(INLINE_ANSWER_MS - 2_000);

    const { answer, afterMs } = await submitted;
    expect(afterMs).toBe(INLINE_ANSWER_MS);
    expect(textOf(answer.view?.blocks)).toContain('Checking the key');
    cdn.open();
    expect(textOf((await nextUpdate(h, viewId))?.args.view)).toContain('Key saved');
  });

  it('still answers inline when every check is quick', async () => {
    const { h } = await gatedHarness();
    const viewId = await openLogin(h);
    const { answer, afterMs } = await submit(h, viewId, keyValues('sk_wrong'));
    expect(afterMs).toBe(0);
    expect(answer.errors?.[LOGIN_IDS.keyBlock]).toMatch(
      /^The CDN at \S+ refused this key \(401\): Invalid API key$/,
    );
    const member = await submit(h, viewId, keyValues(CDN_KEY), MEMBER);
    expect(member.answer.errors?.[LOGIN_IDS.keyBlock]).toBe(
      'Only workspace admins and owners can set the CDN API key.',
    );
    expect(h.slack.callsTo('views.update')).toEqual([]);
  });
});
