// Loads ./.env (when there is one) into process.env with Node's own parser; the environment wins.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

/** What loading did, by variable name only: the values may be secrets and are never kept. */
export interface EnvFileLoad {
  path: string;
  /** Variables the file set, in alphabetical order (as are those below). */
  set: string[];
  /** Variables the file also names that were already in the environment, which wins. */
  ignored: string[];
}

/** Loads `path` unless it does not exist; any other failure to read it throws. */
export function loadEnvFile(path = '.env'): EnvFileLoad | undefined {
  let content: string;
  try {
    content = readFileSync(resolve(path), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const names = Object.keys(parseEnv(content)).sort();
  const ignored = names.filter((name) => process.env[name] !== undefined);
  // process.loadEnvFile leaves variables that are already set as they are.
  process.loadEnvFile(path);
  return { path, set: names.filter((name) => !ignored.includes(name)), ignored };
}
