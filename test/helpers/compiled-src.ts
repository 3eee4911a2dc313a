// src/ compiled to JavaScript for bots started as child processes (test/helpers/child-bot.ts):
// `node main.js` starts on a third of the CPU time of `node --import tsx src/main.ts`, and the
// fault tests start dozens of bots. Each file is transpiled on its own, as tsx does (no type
// check: `npm run typecheck` does that). The build is kept in the system's temporary folder under
// a hash of this checkout's path and of every source file, so it is made once per change of src,
// whichever test process asks first; one that loses the race uses the winner's.
import { createHash } from 'node:crypto';
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
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(CHECKOUT, 'src');
const CACHE = join(tmpdir(), 'cdn-chatops-compiled-src');

let compiled: Promise<string> | undefined;

/** The path of src/main.ts compiled (with the rest of src) to JavaScript, built if need be. */
export function compiledMain(): Promise<string> {
  compiled ??= build();
  return compiled;
}

async function build(): Promise<string> {
  const files = (await readdir(SRC, { recursive: true })).filter(
    (file) => file.endsWith('.ts') || file.endsWith('.mjs'),
  );
  files.sort();
  const texts = await Promise.all(files.map((file) => readFile(join(SRC, file), 'utf8')));
  const hash = createHash('sha256').update(CHECKOUT);
  for (const [i, file] of files.entries()) hash.update(`\0${file}\0${texts[i]}`);
  const root = join(CACHE, hash.digest('hex').slice(0, 16));
  const main = join(root, 'src', 'main.js');
  if (existsSync(main)) return main;

  const { default: ts } = await import('typescript');
  await mkdir(CACHE, { recursive: true });
  const staging = await mkdtemp(join(CACHE, 'staging-'));
  // The build resolves its dependencies and runs as ESM, as it would in the checkout.
  await writeFile(join(staging, 'package.json'), '{ "type": "module" }\n');
  await symlink(join(CHECKOUT, 'node_modules'), join(staging, 'node_modules'), 'dir');
  const compilerOptions = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2023,
    verbatimModuleSyntax: true,
  };
  await Promise.all(
    files.map(async (file, i) => {
      const text = texts[i] ?? '';
      const out = join(staging, 'src', file.replace(/\.ts$/, '.js'));
      await mkdir(dirname(out), { recursive: true });
      await writeFile(
        out,
        file.endsWith('.ts')
          ? ts.transpileModule(text, { fileName: file, compilerOptions }).outputText
          : text,
      );
    }),
  );
  // Whole or not at all: the folder appears under its name in one step.
  await rename(staging, root).catch(async () => {
    // Another process finished the same build first.
    await rm(join(staging, 'node_modules'), { force: true });
    await rm(staging, { recursive: true, force: true });
  });
  if (!existsSync(main)) throw new Error(`compiling src into ${root} failed`);
  return main;
}
