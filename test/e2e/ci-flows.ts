// What the tests of docs/ci.md share: its marked blocks, GitHub's `${{ … }}` as a workflow uses
// it, the `github` context of one run and the environment GitHub gives a step of that run, and a
// child process run to its end with its output read line by line.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const DOC = new URL('../../docs/ci.md', import.meta.url);

/** The fenced blocks of docs/ci.md marked `ci-doc=<name>` in their info string, by name. */
export async function docBlocks(): Promise<Record<string, string>> {
  const text = await readFile(DOC, 'utf8');
  const blocks: Record<string, string> = {};
  for (const match of text.matchAll(/^```\w+ ci-doc=([\w-]+)\n([\s\S]*?)^```$/gm))
    blocks[match[1] as string] = match[2] as string;
  return blocks;
}

/** Contexts by name (`github`, `vars`, `secrets`, `inputs`, `steps`…), nested as GitHub's are. */
export type Contexts = Record<string, Record<string, unknown>>;

/** `${{ context.a.b }}` in a value, as GitHub evaluates it; any other expression is an error. */
export function evaluate(value: string, contexts: Contexts): string {
  return value.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) => {
    let found: unknown = contexts;
    for (const name of path.split('.'))
      found =
        found && typeof found === 'object' ? (found as Record<string, unknown>)[name] : undefined;
    if (typeof found !== 'string') throw new Error(`no value for ${path}`);
    return found;
  });
}

/** The `github` context of one run of the documented workflow. */
export const GITHUB = {
  repository: 'acme/shop',
  sha: '9f2c41b7e0d3a8c5f6e1b2a3c4d5e6f708192a3b',
  server_url: 'https://github.com',
  run_id: '4242',
  run_attempt: '1',
  actor: 'alice',
  workflow: 'deploy',
};

/** The variables GitHub sets for a step of that run (the `GITHUB_*` of the `github` context). */
export function githubEnv(
  github: typeof GITHUB,
  files: { output: string; summary: string },
): Record<string, string> {
  return {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: github.repository,
    GITHUB_SHA: github.sha,
    GITHUB_SERVER_URL: github.server_url,
    GITHUB_RUN_ID: github.run_id,
    GITHUB_RUN_ATTEMPT: github.run_attempt,
    GITHUB_ACTOR: github.actor,
    GITHUB_WORKFLOW: github.workflow,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
  };
}

/** A step's outputs from its `$GITHUB_OUTPUT` file (`name=value` and `name<<EOF` forms). */
export async function readOutputs(file: string): Promise<Record<string, string>> {
  const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n');
  const outputs: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2] as string, i + 1);
      outputs[heredoc[1] as string] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

export interface Exited {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` with exactly `env` (and PATH) to its end; `onLine` sees each line of its stdout
 * as it comes (a test acts on what the process says it waits for).
 */
export function runToEnd(
  command: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string; onLine?: (line: string) => void },
): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine?.(line);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }),
    );
  });
}
