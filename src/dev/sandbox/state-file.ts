// The sandbox's state in a file (the console keeps it beside its database): read once at start,
// written again, whole and atomically (a new file renamed over the old), after every change.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ZONE_PLANS } from '../../cdn/schemas.js';
import type { Sandbox, SandboxSnapshot } from './server.js';

const VERSION = 1;

const span = { from: z.number(), to: z.number() };
const accountSchema = z.object({
  zones: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      plan: z.enum(ZONE_PLANS),
      createdAt: z.number(),
      activatesAt: z.number().exactOptional(),
      deleted: z.boolean(),
      limits: z.object({ enabled: z.boolean(), mode: z.literal('automatic') }),
    }),
  ),
  shapes: z.record(
    z.string(),
    z.array(
      z.discriminatedUnion('kind', [
        z.object({ ...span, kind: z.enum(['spike', 'drop']), factor: z.number().exactOptional() }),
        z.object({ ...span, kind: z.literal('hitrate'), hitRate: z.number().exactOptional() }),
      ]),
    ),
  ),
  sequence: z.number().int().min(0),
});
const fileSchema = z.object({
  version: z.literal(VERSION),
  default: accountSchema,
  accounts: z.record(z.string(), accountSchema),
});

export type SandboxFileRead =
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'read'; snapshot: SandboxSnapshot };

/** The snapshot in `path`; `missing` when there is no file, `unreadable` when it is not one. */
export function readSandboxFile(path: string): SandboxFileRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', reason: (error as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'not JSON' };
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return { kind: 'unreadable', reason: 'not a sandbox state of this version' };
  const { default: first, accounts } = parsed.data;
  return { kind: 'read', snapshot: { default: first, accounts } };
}

/** Writes the snapshot to `path` at once: a reader finds the old file or the new, never half. */
export function writeSandboxFile(path: string, snapshot: SandboxSnapshot): void {
  mkdirSync(dirname(path), { recursive: true });
  const next = `${path}.next`;
  writeFileSync(next, `${JSON.stringify({ version: VERSION, ...snapshot })}\n`);
  renameSync(next, path);
}

/** Writes the sandbox's state to `path` now and after each change; returns what stops it. */
export function keepSandboxInFile(sandbox: Sandbox, path: string): () => void {
  const write = () => writeSandboxFile(path, sandbox.snapshot());
  write();
  return sandbox.onChange(write);
}
