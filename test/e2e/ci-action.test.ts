// The CI step: cli/cdn-purge.mjs run as a child process against the bot, the fake Slack and the
// CDN sandbox over real HTTP (URLs purged, everything approved or denied in Slack, expiry, timeout,
// refusals, a 429), and docs/ci.md's five-line workflow step run through action.yml as GitHub runs
// a composite action.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { finalPurge } from './api-flows.js';
import {
  type Contexts,
  docBlocks,
  type Exited,
  evaluate,
  GITHUB,
  githubEnv,
  readOutputs,
  runToEnd,
} from './ci-flows.js';
import { everythingRequests, modalOpenedBy, openApprove } from './flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'cli/cdn-purge.mjs');

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

interface Ran extends Exited {
  /** What the step wrote to $GITHUB_OUTPUT. */
  outputs: Record<string, string>;
  /** What it wrote to $GITHUB_STEP_SUMMARY. */
  summary: string;
}

/** A step's files: $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY, in a directory removed after the test. */
async function stepFiles() {
  const dir = await mkdtemp(join(tmpdir(), 'ci-action-'));
  dirs.push(dir);
  return { dir, output: join(dir, 'output'), summary: join(dir, 'summary') };
}

async function ranWith(files: { output: string; summary: string }, exited: Exited): Promise<Ran> {
  return {
    ...exited,
    outputs: await readOutputs(files.output),
    summary: await readFile(files.summary, 'utf8').catch(() => ''),
  };
}

/** Runs the CLI with `args` as a step of a GitHub Actions run, the bot's URL and the token in env. */
async function cli(
  h: Harness,
  secret: string,
  args: string[],
  options: { env?: Record<string, string>; onLine?: (line: string) => void } = {},
): Promise<Ran> {
  const files = await stepFiles();
  const exited = await runToEnd(process.execPath, [CLI, ...args], {
    env: {
      ...githubEnv(GITHUB, files),
      CDN_CHATOPS_URL: h.url,
      CDN_CHATOPS_TOKEN: secret,
      ...options.env,
    },
    cwd: files.dir,
    ...(options.onLine ? { onLine: options.onLine } : {}),
  });
  return ranWith(files, exited);
}

interface ActionYml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: Array<{ id: string; shell: string; run: string; env: Record<string, string> }>;
  };
}

/**
 * Runs a workflow step `uses: <owner>/cdn-chatops@<ref>` with its `with:` as GitHub runs a
 * composite action: the `with:` values evaluated in the workflow's contexts, the inputs' defaults
 * for the rest, each of action.yml's steps run by bash with its `env:` evaluated in the `inputs`
 * context and GITHUB_ACTION_PATH at this repository; the action's outputs from its `outputs:`.
 */
async function runAction(
  step: { uses: string; with?: Record<string, string> },
  contexts: Contexts,
): Promise<Ran & { actionOutputs: Record<string, string> }> {
  const action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;
  expect(action.runs.using).toBe('composite');
  const given = step.with ?? {};
  for (const name of Object.keys(given)) expect(Object.keys(action.inputs)).toContain(name);
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => {
      const value = given[name] !== undefined ? evaluate(String(given[name]), contexts) : undefined;
      if (input.required) expect(value, `input ${name}`).toBeTruthy();
      return [name, value ?? input.default ?? ''];
    }),
  );
  const files = await stepFiles();
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  let last: Ran | undefined;
  for (const inner of action.runs.steps) {
    expect(inner.shell).toBe('bash');
    const env = Object.fromEntries(
      Object.entries(inner.env).map(([name, value]) => [name, evaluate(value, { inputs })]),
    );
    const own = { output: join(files.dir, `${inner.id}.output`), summary: files.summary };
    const exited = await runToEnd(
      'bash',
      ['--noprofile', '--norc', '-eo', 'pipefail', '-c', inner.run],
      {
        env: {
          ...githubEnv(contexts.github as typeof GITHUB, own),
          GITHUB_ACTION_PATH: ROOT,
          ...env,
        },
        cwd: files.dir,
      },
    );
    last = await ranWith(own, exited);
    steps[inner.id] = { outputs: last.outputs };
    if (exited.code !== 0) break;
  }
  if (!last) throw new Error('action.yml has no steps');
  const actionOutputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [
      name,
      evaluate(output.value, { steps } as unknown as Contexts),
    ]),
  );
  return { ...last, actionOutputs };
}

const token = (h: Harness, options: { zones?: string[]; everything?: boolean } = {}) =>
  h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name: 'github: acme/shop',
    zones: options.zones ?? null,
    kinds: options.everything ? ['urls_tags', 'everything'] : ['urls_tags'],
    channelId: CHANNEL,
  });

const purged = (h: Harness) => h.sandbox.state.purges.map((p) => p.items);

const MINUTE = 60_000;

/** Moves the bot's clock on and lets every job now due run. */
async function passTime(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.deps.runner.settled();
}

/** The approval request the bot posts in the channel for a purge of everything. */
async function approvalRequest(h: Harness): Promise<Message> {
  const [message] = await h.slack.waitForMessages(
    (m) => m.channel === CHANNEL && JSON.stringify(m.blocks ?? []).includes(APPROVAL_IDS.approve),
  );
  if (!message) throw new Error('no approval request');
  return message;
}

/** `waiting`, unless the CLI ends first: then its output says why. */
function meanwhile<T>(running: Promise<Ran>, waiting: Promise<T>): Promise<T> {
  const ended = running.then((run): never => {
    throw new Error(`the CLI ended first (exit ${run.code}):\n${run.stdout}${run.stderr}`);
  });
  // Once `waiting` won, the CLI's later end is no error.
  ended.catch(() => undefined);
  return Promise.race([waiting, ended]);
}

/** The lines of a run that are not the token's mask. */
const shown = (run: Exited) =>
  run.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');

describe('cli/cdn-purge.mjs', () => {
  it('purges URLs and waits: exit 0, the outputs, the job summary, the context from the run', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const run = await cli(h, secret, [
      '--zone',
      'example.com',
      '--urls',
      'https://example.com/app.css https://example.com/app.js',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // The token is masked before anything else is printed, and never shown.
    expect(run.stdout.split('\n')[0]).toBe(`::add-mask::${secret}`);
    expect(shown(run)).not.toContain(secret);
    const id = run.outputs['purge-id'];
    expect(id).toMatch(/\S/);
    expect(run.outputs).toEqual({ 'purge-id': id, status: 'succeeded', result: 'succeeded' });
    expect(shown(run)).toContain(`Purge ${id} of example.com (2 URLs): queued`);
    expect(shown(run)).toMatch(/Purged 2 URLs of example\.com\.\n$/);
    expect(run.summary).toContain('### CDN purge of example.com: succeeded');
    expect(run.summary).toContain('| Zone | example.com (CDN account default) |');
    expect(run.summary).toContain('| Done | 2 of 2 |');
    expect(run.summary).toContain(`| Purge id | ${id} |`);
    expect(purged(h)).toEqual([['https://example.com/app.css', 'https://example.com/app.js']]);
    const [row] = await h.store.db.selectFrom('api_purges').selectAll().execute();
    expect(row?.reason).toBe('deploy of acme/shop at 9f2c41b');
    expect(JSON.parse(row?.context ?? '{}')).toEqual({
      repository: 'acme/shop',
      commit: GITHUB.sha,
      run_url: 'https://github.com/acme/shop/actions/runs/4242',
      actor: 'alice',
    });
    expect(row?.idempotency_key).toMatch(/^github-acme\/shop-4242-1-[0-9a-f]{16}$/);
  });

  it('purges once per run attempt: asked again in the same attempt, the same purge; a re-run, a new one', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const args = ['https://example.com/app.css'];
    const first = await cli(h, secret, args);
    const again = await cli(h, secret, args);
    expect([first.code, again.code]).toEqual([0, 0]);
    expect(again.outputs['purge-id']).toBe(first.outputs['purge-id']);
    expect(purged(h)).toHaveLength(1);
    const rerun = await cli(h, secret, args, { env: { GITHUB_RUN_ATTEMPT: '2' } });
    expect(rerun.code).toBe(0);
    expect(rerun.outputs['purge-id']).not.toBe(first.outputs['purge-id']);
    expect(purged(h)).toHaveLength(2);
  });

  it('purges everything once someone approves it in Slack: waits, then exit 0', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h, { everything: true });
    const running = cli(h, secret, ['--zone', 'example.com', '--everything', '--timeout', '5m']);
    const request = await meanwhile(running, approvalRequest(h));
    const viewId = await openApprove(h, request, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    const run = await running;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(shown(run)).toMatch(/^Purge \S+ of example\.com \(everything\): waiting_for_approval$/m);
    expect(shown(run)).toContain(`Purged everything of example.com (approved by ${ADMIN}).`);
    expect(run.outputs).toMatchObject({ status: 'succeeded', result: 'succeeded' });
    expect(run.summary).toContain(`| Approved by | ${ADMIN} |`);
    expect(everythingRequests(h)).toHaveLength(1);
  });

  it('fails with exit 4 and an error annotation when the purge is denied in Slack', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h, { everything: true });
    const running = cli(h, secret, ['--zone', 'example.com', '--everything']);
    const request = await meanwhile(running, approvalRequest(h));
    const viewId = await modalOpenedBy(h, () =>
      h.click(request, APPROVAL_IDS.deny, { user: ADMIN }),
    );
    await h.submit(
      viewId,
      {
        [APPROVAL_IDS.denyReasonBlock]: {
          [APPROVAL_IDS.denyReasonInput]: { type: 'plain_text_input', value: 'not now' },
        },
      },
      { user: ADMIN },
    );
    const run = await running;
    expect(run.code).toBe(4);
    expect(run.stdout).toMatch(
      /^::error title=CDN purge denied::the purge of example\.com was denied in Slack: .*not now$/m,
    );
    expect(run.outputs).toMatchObject({ status: 'rejected', result: 'rejected' });
    expect(everythingRequests(h)).toEqual([]);
  });

  it('fails with exit 5 when nobody approves before the request expires', async () => {
    const h = await startHarness({ login: true, env: { API_APPROVAL_EXPIRY_MINUTES: '5' } });
    const { secret } = await token(h, { everything: true });
    const running = cli(h, secret, ['--zone', 'example.com', '--everything']);
    await meanwhile(running, approvalRequest(h));
    h.clock.advance(5 * 60_000);
    const run = await running;
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/^::error title=CDN purge expired::nobody approved/m);
    expect(run.outputs).toMatchObject({ status: 'expired', result: 'expired' });
  });

  it('stops waiting at its timeout with exit 7, saying the purge still waits', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h, { everything: true });
    const run = await cli(h, secret, ['--zone', 'example.com', '--everything', '--timeout', '1s']);
    expect(run.code).toBe(7);
    expect(run.stdout).toMatch(
      /^::error title=CDN purge timed out::purge \S+ of example\.com is still waiting for approval after 1 s; it goes on without this job \(see Slack\)$/m,
    );
    expect(run.outputs).toMatchObject({ status: 'waiting_for_approval', result: 'timeout' });
    expect(run.summary).toContain('### CDN purge of example.com: timeout');
  });

  it('says a purge the CDN did not confirm is unconfirmed (exit 6, a warning), not failed', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    h.sandbox.inject({ kind: 'status', status: 503, method: 'POST', path: /purge$/, times: 10 });
    const run = await cli(h, secret, ['--zone', 'example.com', '--tags', 'assets']);
    expect(run.code).toBe(6);
    expect(run.stdout).toMatch(
      /^::warning title=CDN purge not confirmed::the CDN did not confirm the purge of example\.com: it may have purged/m,
    );
    expect(run.stdout).not.toContain('::error');
    expect(run.outputs).toMatchObject({ status: 'unknown', result: 'unknown' });
  });

  it('fails with exit 1 when the CDN refuses the purge', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    h.sandbox.inject({ kind: 'status', status: 400, method: 'POST', path: /purge$/ });
    const run = await cli(h, secret, ['https://example.com/app.css']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^::error title=CDN purge failed::the CDN refused the purge of example\.com: .+$/m,
    );
    expect(run.outputs).toMatchObject({ status: 'failed', result: 'failed' });
  });

  it("fails with exit 3 and the API's detail when the token does not cover the zone", async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h, { zones: ['static.example.com'] });
    // The zone taken from the URLs' host.
    const run = await cli(h, secret, ['https://example.com/app.css']);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(
      /^::error title=CDN purge refused::example\.com was not purged \(HTTP 403 forbidden-zone\): .+ \(the zone was taken from the URLs' host: name it if it is another\)$/m,
    );
    expect(run.outputs).toEqual({ 'purge-id': '', status: '', result: 'refused' });
    expect(purged(h)).toEqual([]);
  });

  it('tries again after a 429, as long as its Retry-After says, and purges once', async () => {
    const h = await startHarness({ login: true, env: { API_RATE_LIMIT_PER_MINUTE: '60' } });
    const { secret } = await token(h);
    // Another job of the same token spent this minute's budget.
    for (let i = 0; i < 60; i++)
      await (
        await fetch(`${h.url}/api/v1/purges/none`, {
          headers: { authorization: `Bearer ${secret}` },
        })
      ).body?.cancel();
    const pauses: string[] = [];
    const run = await cli(h, secret, ['https://example.com/app.css'], {
      // The rate limit counts on the bot's clock: it moves as the CLI waits.
      onLine: (line) => {
        const pause = /answered 429 \(rate-limited\); trying again in (\d+) s\.$/.exec(line)?.[1];
        if (pause) {
          pauses.push(pause);
          h.clock.advance(Number(pause) * 1000);
        }
      },
    });
    expect(run.code).toBe(0);
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.every((p) => p === '1')).toBe(true);
    expect(purged(h)).toEqual([['https://example.com/app.css']]);
    expect(await h.store.db.selectFrom('api_purges').selectAll().execute()).toHaveLength(1);
  });

  it('fails with exit 8 at once, saying why, when the bot cannot purge (no CDN key): no retries', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const account = (await h.store.accounts.byName(h.workspaceId, 'default'))?.id;
    if (!account) throw new Error('no default account');
    await h.store.accounts.clearKey(h.workspaceId, account);
    const run = await cli(h, secret, ['https://example.com/app.css']);
    expect(run.code).toBe(8);
    expect(run.stdout).toMatch(
      /^::error title=CDN chat-ops bot unreachable::could not ask for the purge \(HTTP 503 no-cdn-key\): .+$/m,
    );
    // What the bot's setup says is not asked again.
    expect(run.stdout).not.toContain('trying again');
    expect(run.outputs).toMatchObject({ 'purge-id': '', result: 'unreachable' });
  });

  it('refuses to start without the bot, the token or what to purge: exit 2, and says which', async () => {
    const files = await stepFiles();
    const run = (env: Record<string, string>, args: string[] = []) =>
      runToEnd(process.execPath, [CLI, ...args], { env, cwd: files.dir });
    const secret = 'cdnb_never-shown-0123456789';
    const missingUrl = await run({ CDN_CHATOPS_TOKEN: secret }, ['https://example.com/a']);
    expect(missingUrl.code).toBe(2);
    expect(missingUrl.stderr).toContain('CDN_CHATOPS_URL is not set');
    const missingToken = await run({ CDN_CHATOPS_URL: 'https://bot.example' }, [
      'https://example.com/a',
    ]);
    expect(missingToken.code).toBe(2);
    expect(missingToken.stderr).toContain('CDN_CHATOPS_TOKEN is not set');
    const nothing = await run({
      CDN_CHATOPS_URL: 'https://bot.example',
      CDN_CHATOPS_TOKEN: secret,
    });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to purge');
    const two = await run({ CDN_CHATOPS_URL: 'https://bot.example', CDN_CHATOPS_TOKEN: secret }, [
      '--tags',
      'a',
      '--everything',
      '--zone',
      'example.com',
    ]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('not several');
    for (const r of [missingUrl, missingToken, nothing, two])
      expect(r.stdout + r.stderr).not.toContain(secret);
  });
});

describe('cli/cdn-purge.mjs, a purge for later', () => {
  it('--in: sends not_before, exits 0 at once with scheduled and its time; nothing is purged before it', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const due = new Date(h.clock.now() + 30 * MINUTE).toISOString();
    const run = await cli(h, secret, ['--in', '30m', 'https://example.com/app.css']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const id = run.outputs['purge-id'];
    expect(id).toMatch(/\S/);
    expect(run.outputs).toEqual({ 'purge-id': id, status: 'scheduled', result: 'scheduled' });
    expect(shown(run)).toContain(`Purge ${id} of example.com (1 URL): scheduled for ${due}`);
    expect(shown(run)).toMatch(
      new RegExp(`Scheduled 1 URL of example\\.com for ${due}: purge ${id} runs then, .+\\.\\n$`),
    );
    expect(run.stdout).not.toContain('::error');
    expect(run.summary).toContain('### CDN purge of example.com: scheduled');
    expect(run.summary).toContain(`| Not before | ${due} |`);
    await passTime(h, 29 * MINUTE);
    expect(purged(h)).toEqual([]);
    await passTime(h, MINUTE);
    expect(await finalPurge(h, secret, id ?? '')).toMatchObject({ status: 'succeeded' });
    expect(purged(h)).toEqual([['https://example.com/app.css']]);
  });

  it('--at with --wait: waits for its time, then for the result (exit 0, succeeded)', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    let scheduled: () => void = () => {};
    const said = new Promise<void>((resolve) => {
      scheduled = resolve;
    });
    const running = cli(
      h,
      secret,
      [
        '--at',
        '2026-11-22T12:00:00+01:00',
        '--wait',
        '--timeout',
        '5m',
        '--tags',
        'css',
        '--zone',
        'example.com',
      ],
      { onLine: (line) => line.includes(': scheduled for ') && scheduled() },
    );
    await meanwhile(running, said);
    expect(purged(h)).toEqual([]);
    await passTime(h, 60 * MINUTE);
    const run = await running;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(shown(run)).toContain('scheduled for 2026-11-22T11:00:00.000Z');
    expect(shown(run)).toMatch(/Purged 1 tag of example\.com\.\n$/);
    expect(run.outputs).toMatchObject({ status: 'succeeded', result: 'succeeded' });
    expect(purged(h)).toEqual([['css']]);
  });

  it('everything for later: waits for its approval in Slack, then exits 0 scheduled (not purged yet)', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h, { everything: true });
    // Approved while the CLI's read waits from `waiting_for_approval`: a read that starts after
    // the approval waits from `scheduled`, for its time, as long as it asked to (up to 60 s).
    const service = h.deps.apiPurges;
    const waitFrom = service.waitFrom.bind(service);
    const held = new Promise<void>((resolve) => {
      service.waitFrom = (token, first, seconds, signal) => {
        if (first.status === 'waiting_for_approval') resolve();
        return waitFrom(token, first, seconds, signal);
      };
    });
    const running = cli(h, secret, ['--zone', 'example.com', '--everything', '--in', '2h']);
    const request = await meanwhile(running, approvalRequest(h));
    const viewId = await openApprove(h, request, ADMIN);
    await meanwhile(running, held);
    await h.submit(viewId, {}, { user: ADMIN });
    const run = await running;
    expect(run.code).toBe(0);
    expect(shown(run)).toMatch(
      /^Purge \S+ of example\.com \(everything\): waiting_for_approval for \S+Z$/m,
    );
    expect(shown(run)).toMatch(/^… scheduled for \S+Z$/m);
    expect(run.outputs).toMatchObject({ status: 'scheduled', result: 'scheduled' });
    expect(run.summary).toContain(`| Approved by | ${ADMIN} |`);
    expect(everythingRequests(h)).toEqual([]);
  });

  it('the bot judges the time: one already past is refused with its detail (exit 3), nothing scheduled', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const run = await cli(h, secret, ['--at', '2026-11-22T09:00:00Z', 'https://example.com/a.css']);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(
      /^::error title=CDN purge refused::example\.com was not purged \(HTTP 400 invalid-not-before\): .*has passed/m,
    );
    expect(run.outputs).toEqual({ 'purge-id': '', status: '', result: 'refused' });
  });

  it('refuses a time it cannot send before asking anything: exit 2, saying what it takes', async () => {
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const cases: Array<[string[], Record<string, string>, string]> = [
      [['--in', 'soon'], {}, '--in is a duration such as 30m, 1h30m or 2d, not "soon"'],
      [['--in', '8d'], {}, '--in is at most 7 days ahead, not "8d"'],
      [['--in', '0m'], {}, '--in is a duration'],
      [['--at', 'tomorrow'], {}, '--at is an RFC 3339 time with its offset'],
      // No offset: which time zone it means is unknown.
      [['--at', '2026-11-23T02:00:00'], {}, '(or --in 30m)'],
      [['--at', '2026-11-23T02:00:00Z', '--in', '30m'], {}, 'give --at or --in, not both'],
      [
        ['--in', '2h', '--wait'],
        {},
        '--wait would stop at --timeout (10 min), before the purge runs',
      ],
      [
        [],
        { CDN_CHATOPS_NOT_BEFORE: 'next week' },
        'CDN_CHATOPS_NOT_BEFORE (not-before) is an RFC 3339 time',
      ],
      [
        [],
        { CDN_CHATOPS_NOT_BEFORE: 'in 9d' },
        'CDN_CHATOPS_NOT_BEFORE (not-before) is at most 7 days',
      ],
    ];
    for (const [args, env, message] of cases) {
      const run = await cli(h, secret, [...args, 'https://example.com/app.css'], { env });
      expect(run.code, args.join(' ')).toBe(2);
      const [annotation] = run.stdout.split('\n').filter((l) => l.startsWith('::error'));
      expect(annotation).toContain(message);
      expect(annotation).toContain('(cdn-purge --help says more)');
    }
    expect(await h.store.db.selectFrom('api_purges').selectAll().execute()).toEqual([]);
  });
});

describe('docs/ci.md, as written', () => {
  it('its GitHub Actions step is at most five lines, and purges its URLs and waits, through action.yml', async () => {
    const block = (await docBlocks()).action;
    if (!block) throw new Error('no ci-doc=action block');
    expect(block.trimEnd().split('\n').length).toBeLessThanOrEqual(5);
    // The README shows the same step.
    expect(await readFile(join(ROOT, 'README.md'), 'utf8')).toContain(`\`\`\`yaml\n${block}\`\`\``);
    const steps = parse(block) as Array<{ uses: string; with?: Record<string, string> }>;
    expect(steps).toHaveLength(1);
    const [step] = steps;
    if (!step) throw new Error('no step');
    // This repository's action, at a release tag.
    expect(step.uses).toMatch(/^[\w-]+\/cdn-chatops@v\d+$/);

    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const run = await runAction(step, {
      github: GITHUB,
      vars: { CDN_CHATOPS_URL: h.url },
      secrets: { CDN_CHATOPS_TOKEN: secret },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.actionOutputs).toEqual({
      'purge-id': expect.stringMatching(/\S/),
      status: 'succeeded',
      result: 'succeeded',
    });
    expect(run.summary).toContain('### CDN purge of example.com: succeeded');
    const urls = (step.with?.urls ?? '').split(/\s+/).filter(Boolean);
    expect(urls.length).toBeGreaterThan(0);
    expect(purged(h)).toEqual([urls]);
  });

  it('its purge for later, through action.yml: the step ends scheduled; the purge runs at its time, not before', async () => {
    const block = (await docBlocks())['action-later'];
    if (!block) throw new Error('no ci-doc=action-later block');
    const [step] = parse(block) as Array<{ uses: string; with?: Record<string, string> }>;
    if (!step) throw new Error('no step');
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const run = await runAction(step, {
      github: GITHUB,
      vars: { CDN_CHATOPS_URL: h.url },
      secrets: { CDN_CHATOPS_TOKEN: secret },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.actionOutputs).toEqual({
      'purge-id': expect.stringMatching(/\S/),
      status: 'scheduled',
      result: 'scheduled',
    });
    const due = Date.parse(step.with?.['not-before'] ?? '');
    expect(run.summary).toContain(`| Not before | ${new Date(due).toISOString()} |`);
    await passTime(h, due - h.clock.now() - MINUTE);
    expect(purged(h)).toEqual([]);
    await passTime(h, MINUTE);
    expect(await finalPurge(h, secret, run.actionOutputs['purge-id'] ?? '')).toMatchObject({
      status: 'succeeded',
    });
    expect(purged(h)).toEqual([(step.with?.urls ?? '').split(/\s+/).filter(Boolean)]);
  });

  it('its one command for any other CI purges its URLs and waits', async () => {
    const block = (await docBlocks()).command;
    if (!block) throw new Error('no ci-doc=command block');
    // Its curl line fetches this repository's CLI at a tag; here, the file itself is there.
    expect(block).toMatch(
      /^curl .* https:\/\/raw\.githubusercontent\.com\/.+\/cli\/cdn-purge\.mjs$/m,
    );
    const script = block
      .split('\n')
      .filter((line) => !line.startsWith('curl ') && !line.startsWith('#'))
      .join('\n');
    const files = await stepFiles();
    await copyFile(CLI, join(files.dir, 'cdn-purge.mjs'));
    const h = await startHarness({ login: true });
    const { secret } = await token(h);
    const run = await runToEnd('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      env: { CDN_CHATOPS_URL: h.url, CDN_CHATOPS_TOKEN: secret },
      cwd: files.dir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Outside GitHub Actions: no mask, no summary, no outputs; the token never shown.
    expect(run.stdout).not.toContain(secret);
    expect(run.stdout).toMatch(/Purged 2 URLs of example\.com\.\n$/);
    expect(purged(h)).toEqual([['https://example.com/app.css', 'https://example.com/app.js']]);
    const [row] = await h.store.db.selectFrom('api_purges').selectAll().execute();
    expect(row?.reason).toBe('release 4.2');
    expect(row?.context).toBeNull();
  });
});
