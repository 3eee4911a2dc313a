// Child processes run to their end (a build, an install), and the bot built as `npm run build`
// does (tsc -p tsconfig.build.json): into a folder of the test's, or once per change of what the
// build reads, shared by the tests that start the built bot (builtDist).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs `command` to its end; resolves with its exit code and everything it printed. */
export async function runToEnd(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

/**
 * Runs `command` with `input` on its standard input (closed after it), to its end: its exit code
 * and what it wrote on each stream.
 */
export async function runWithInput(
  command: string,
  args: string[],
  input: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin?.end(input);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/**
 * `npm start` from source in `cwd` (src/main.ts through tsx), fed these lines: with no Slack
 * variables in `env` (PATH and LOG_LEVEL=info are given), the local console.
 */
export function startFromSource(
  cwd: string,
  lines: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runWithInput(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), resolve('src/main.ts')],
    [...lines, ''].join('\n'),
    { cwd, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env } },
  );
}

/**
 * Compiles src/ into `outDir` (src/main.ts lands at <outDir>/main.js); resolves with tsc's output.
 * The same JavaScript as `npm run build`, byte for byte, without its type check (--noCheck): with
 * isolatedModules and verbatimModuleSyntax (tsconfig.json) tsc emits each file without reading
 * types, and `npm run typecheck` checks them. A third of the CPU time: 10 s, not 32.
 */
export function buildInto(outDir: string): Promise<{ code: number | null; output: string }> {
  return runToEnd(process.execPath, [
    resolve('node_modules/typescript/bin/tsc'),
    '-p',
    'tsconfig.build.json',
    '--noCheck',
    '--outDir',
    outDir,
  ]);
}

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const BUILDS = join(tmpdir(), 'cdn-chatops-built-dist');

/**
 * A hash of everything `tsc -p tsconfig.build.json` reads that can change between runs: this
 * checkout's path, its tsconfig files, the compiler's version and every file under src/.
 */
async function buildHash(): Promise<string> {
  const hash = createHash('sha256').update(CHECKOUT);
  const inputs = ['tsconfig.json', 'tsconfig.build.json', 'node_modules/typescript/package.json'];
  const src = (await readdir(join(CHECKOUT, 'src'), { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(CHECKOUT.length))
    .sort();
  for (const file of [...inputs, ...src]) {
    hash.update(`\0${file}\0`).update(await readFile(join(CHECKOUT, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

let built: Promise<{ root: string; dist: string }> | undefined;

/**
 * The bot as `npm run build` makes it, in `<root>/dist`; `<root>` runs it as the checkout would
 * (a package.json of type module, the checkout's node_modules linked). Made once per change of
 * what the build reads (buildHash), in the system's temporary folder, whichever test asks first:
 * production-start.test.ts in `npm test`, then the install smoke, take the same build. A build
 * appears under its name whole or not at all; a process that loses the race takes the winner's.
 * Treat it as read-only: it is shared.
 */
export function builtDist(): Promise<{ root: string; dist: string }> {
  built ??= (async () => {
    const root = join(BUILDS, await buildHash());
    const dist = join(root, 'dist');
    if (existsSync(join(dist, 'main.js'))) return { root, dist };
    await mkdir(BUILDS, { recursive: true });
    const staging = await mkdtemp(join(BUILDS, 'staging-'));
    try {
      const { code, output } = await buildInto(join(staging, 'dist'));
      if (code !== 0 || output !== '') {
        throw new Error(`tsc -p tsconfig.build.json exited ${code}:\n${output}`);
      }
      await writeFile(join(staging, 'package.json'), '{ "type": "module" }\n');
      await symlink(join(CHECKOUT, 'node_modules'), join(staging, 'node_modules'), 'dir');
      await rename(staging, root);
    } catch (error) {
      // The link first, so removing the folder can never reach the checkout's node_modules.
      await rm(join(staging, 'node_modules'), { force: true });
      await rm(staging, { recursive: true, force: true });
      // Another process finished the same build first: its folder is the one to use.
      if (!existsSync(join(dist, 'main.js'))) throw error;
    }
    return { root, dist };
  })();
  return built;
}
