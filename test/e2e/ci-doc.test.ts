// docs/ci.md's examples run as written: its `curl` block and its GitHub Actions purge step, by bash
// against the bot over real HTTP and the CDN sandbox (issue 30: the documented request itself).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Contexts, docBlocks, evaluate, GITHUB } from './ci-flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

interface Step {
  id?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

/** The job's step `id`, from the YAML as GitHub reads it. */
function stepOf(yaml: string, id: string): Step {
  const workflow = parse(yaml) as { jobs: Record<string, { steps: Step[] }> };
  const step = Object.values(workflow.jobs)
    .flatMap((job) => job.steps)
    .find((s) => s.id === id);
  if (!step) throw new Error(`no step ${id} in the workflow`);
  return step;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** What `sleep` was asked for, in order. */
  sleeps: string[];
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `script` as GitHub runs a `shell: bash` step (`bash --noprofile --norc -eo pipefail
 * {0}`), with `env` and a PATH whose `sleep` advances the bot's clock instead of waiting (the
 * rate limit's window is on that clock) and records what it was asked for.
 */
async function runScript(h: Harness, script: string, env: Record<string, string>): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'ci-doc-'));
  dirs.push(dir);
  const clock = createServer((req, res) => {
    const seconds = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('seconds'));
    h.clock.advance(seconds * 1000);
    res.end();
  });
  await new Promise<void>((resolve) => clock.listen(0, '127.0.0.1', resolve));
  const clockUrl = `http://127.0.0.1:${(clock.address() as AddressInfo).port}/`;
  await writeFile(
    join(dir, 'sleep'),
    `#!/bin/sh\necho "$1" >> "${dir}/sleeps"\ncurl -sS -o /dev/null "${clockUrl}?seconds=$1"\n`,
    { mode: 0o755 },
  );
  await writeFile(join(dir, 'step.sh'), script);
  try {
    const result = await new Promise<Omit<Run, 'sleeps'>>((resolve) => {
      execFile(
        'bash',
        ['--noprofile', '--norc', '-eo', 'pipefail', join(dir, 'step.sh')],
        {
          env: { PATH: `${dir}:${process.env.PATH ?? ''}`, HOME: dir, ...env },
          cwd: dir,
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
    const sleeps = await readFile(join(dir, 'sleeps'), 'utf8').catch(() => '');
    return { ...result, sleeps: sleeps.split('\n').filter(Boolean) };
  } finally {
    clock.close();
  }
}

async function start(env: Record<string, string> = {}) {
  const h = await startHarness({ login: true, env });
  return h;
}

const token = (h: Harness, zones: string[] | null = null) =>
  h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name: 'github: acme/shop',
    zones,
    kinds: ['urls_tags'],
    channelId: CHANNEL,
  });

const purged = (h: Harness) => h.sandbox.state.purges.map((p) => p.items);

async function githubStep(h: Harness, secret: string, github = GITHUB) {
  const step = stepOf((await docBlocks())['github-actions'] ?? '', 'cdn-purge');
  const contexts: Contexts = {
    github,
    vars: { CDN_CHATOPS_URL: h.url },
    secrets: { CDN_CHATOPS_TOKEN: secret },
  };
  const env = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [name, evaluate(value, contexts)]),
  );
  return { step, env, run: () => runScript(h, step.run ?? '', env) };
}

describe('docs/ci.md', () => {
  it('the curl example purges its URLs on the CDN and prints the final state', async () => {
    const h = await start();
    const { secret } = await token(h);
    const script = (await docBlocks()).curl;
    if (!script) throw new Error('no ci-doc=curl block');
    const run = await runScript(h, script, {
      CDN_CHATOPS_URL: h.url,
      CDN_CHATOPS_TOKEN: secret,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^purged: .*"status":"succeeded"/m);
    expect(purged(h)).toEqual([['https://example.com/app.css', 'https://example.com/app.js']]);
    const rows = await h.store.db.selectFrom('api_purges').selectAll().execute();
    expect(rows.map((r) => [r.idempotency_key, r.status])).toEqual([
      ['release-4.2-assets', 'succeeded'],
    ]);
  });

  it('the GitHub Actions step purges after a 429 (Retry-After honoured), and a re-run purges nothing more', async () => {
    const h = await start({ API_RATE_LIMIT_PER_MINUTE: '2' });
    const { secret } = await token(h);
    const { step, run } = await githubStep(h, secret);
    // As GitHub runs it: bash, the context through env, never spliced into the script.
    expect(step.shell).toBe('bash');
    expect(step.run).not.toContain('${{');
    // Another job of the same token spent this minute's budget: the step meets 429s.
    for (let i = 0; i < 2; i++)
      await fetch(`${h.url}/api/v1/purges/none`, {
        headers: { authorization: `Bearer ${secret}` },
      });
    const first = await run();
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('answered 429; trying again in 30 s.');
    expect(first.sleeps.length).toBeGreaterThan(0);
    expect(first.sleeps.every((s) => s === '30')).toBe(true);
    expect(first.stdout).toMatch(/… succeeded \(3\/3 done\)\nPurged example\.com\.\n$/);
    expect(purged(h)).toEqual([
      ['https://example.com/', 'https://example.com/app.css', 'https://example.com/app.js'],
    ]);
    const [row] = await h.store.db.selectFrom('api_purges').selectAll().execute();
    expect(row?.reason).toBe('Deploy of acme/shop at 9f2c41b');
    expect(JSON.parse(row?.context ?? '{}')).toEqual({
      repository: 'acme/shop',
      commit: GITHUB.sha,
      run_url: 'https://github.com/acme/shop/actions/runs/4242',
      actor: 'alice',
    });

    // "Re-run jobs": the same run id, the next attempt.
    const again = await (await githubStep(h, secret, { ...GITHUB, run_attempt: '2' })).run();
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Purged example.com.');
    expect(purged(h)).toHaveLength(1);
  });

  it('the GitHub Actions step fails the job with a clear message when the CDN refuses', async () => {
    const h = await start();
    const { secret } = await token(h);
    h.sandbox.inject({ kind: 'status', status: 400, method: 'POST', path: /purge$/ });
    const run = await (await githubStep(h, secret)).run();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error title=CDN purge failed::the CDN refused: .+$/m);
  });

  it('the GitHub Actions step fails the job, saying why, when the token does not cover the zone', async () => {
    const h = await start();
    const { secret } = await token(h, ['static.example.com']);
    const run = await (await githubStep(h, secret)).run();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^::error title=CDN purge refused::example\.com was not purged \(HTTP 403\): .+$/m,
    );
    expect(purged(h)).toEqual([]);
  });
});
