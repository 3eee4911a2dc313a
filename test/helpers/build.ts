// Child processes run to their end (a build, an install), and the bot built as `npm run build`
// does (tsc -p tsconfig.build.json) into a folder of the test's.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

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

/** Compiles src/ into `outDir` (src/main.ts lands at <outDir>/main.js); resolves with tsc's output. */
export function buildInto(outDir: string): Promise<{ code: number | null; output: string }> {
  return runToEnd(process.execPath, [
    resolve('node_modules/typescript/bin/tsc'),
    '-p',
    'tsconfig.build.json',
    '--outDir',
    outDir,
  ]);
}
