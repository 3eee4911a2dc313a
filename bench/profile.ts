// Where a bot's main thread spent its time in a stretch of a benchmark, from a V8 CPU profile
// (`node --cpu-prof`): each sample goes to the nearest frame of ours (src/…) or of a package, and
// idle, garbage collection and V8's own work are kept apart. Profile times are the monotonic clock
// process.hrtime reads, so a stretch is given as two hrtime readings of the measuring process.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What the main thread did in a stretch: ms per category, busiest first. */
export interface ThreadTime {
  wallMs: number;
  idleMs: number;
  categories: Array<{ name: string; ms: number }>;
}

/** A monotonic time in µs, as the profile counts (call at the edges of a stretch). */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const SPECIAL: Record<string, string> = {
  '(idle)': 'idle',
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 and native code (compiling, I/O callbacks)',
  '(root)': 'V8 and native code (compiling, I/O callbacks)',
};

/** A frame's own category, if it is one worth naming: a package, or a file of ours. */
function ownCategory(url: string): string | undefined {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope = '', name = ''] = url.slice(modules + '/node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1).replace(/^file:\/\//, '');
  return undefined;
}

/** The main thread's profile (thread 0) among those node wrote for process `pid` in `dir`. */
export async function mainThreadProfile(dir: string, pid: number): Promise<string | undefined> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const name = files.find((file) => file.includes(`.${pid}.0.`) && file.endsWith('.cpuprofile'));
  return name && join(dir, name);
}

/** Time per category between two monotonic readings (µs), from the profile at `path`. */
export async function threadTime(
  path: string,
  stretches: Array<{ from: number; to: number }>,
): Promise<ThreadTime[]> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const category = new Map<number, string>();
  // Depth first from the root: a frame with no category of its own takes its caller's.
  const root = profile.nodes[0];
  const stack: Array<[ProfileNode, string]> = root ? [[root, 'node.js internals']] : [];
  while (stack.length > 0) {
    const [node, inherited] = stack.pop() as [ProfileNode, string];
    const name =
      SPECIAL[node.callFrame.functionName] ?? ownCategory(node.callFrame.url) ?? inherited;
    category.set(node.id, name);
    for (const child of node.children ?? []) {
      const next = byId.get(child);
      if (next) stack.push([next, name]);
    }
  }
  return stretches.map(({ from, to }) => {
    const totals = new Map<string, number>();
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      if (at < from || at > to) continue;
      const name = category.get(profile.samples[i] ?? -1) ?? 'node.js internals';
      totals.set(name, (totals.get(name) ?? 0) + delta / 1000);
    }
    const idleMs = totals.get('idle') ?? 0;
    totals.delete('idle');
    return {
      wallMs: (to - from) / 1000,
      idleMs,
      categories: [...totals.entries()]
        .map(([name, ms]) => ({ name, ms }))
        .sort((a, b) => b.ms - a.ms),
    };
  });
}
