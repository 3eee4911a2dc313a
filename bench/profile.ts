// Where a bot's main thread spent its time, from a V8 CPU profile (`node --cpu-prof`).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

// Each sample goes to the nearest frame of ours (src/…) or of a package; idle, garbage collection
// and V8's own work are kept apart. Profile times are the monotonic clock process.hrtime reads, so
// a stretch is given as two hrtime readings of the measuring process.

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

/** Each profile node's category: its own (a package, a file of ours, idle, GC) or its caller's. */
function categorize(profile: CpuProfile): Map<number, string> {
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
  return category;
}

/** The main thread's profile (thread 0) among those node wrote for process `pid` in `dir`. */
export async function mainThreadProfile(dir: string, pid: number): Promise<string | undefined> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const name = files.find((file) => file.includes(`.${pid}.0.`) && file.endsWith('.cpuprofile'));
  return name && join(dir, name);
}

/** How a thread spent some stretches (each a slow request's wait), in ms summed over them. */
export interface Attribution {
  wallMs: number;
  /** Running JavaScript or V8 work, by category (as `threadTime` names them). */
  running: Array<{ name: string; ms: number }>;
  /** Idle in the event loop: waiting for I/O (the database, a socket). */
  idleMs: number;
  /** Time between samples beyond the usual interval: the thread was not running to take them. */
  unscheduledMs: number;
}

/**
 * Where the thread's time went during each group of stretches (monotonic µs): a window, or the
 * waits of some slow requests. Each sample stands for the time since the one before; beyond twice
 * the profile's usual interval, that time counts as a gap.
 */
export async function attribute(
  path: string,
  groups: Array<Array<{ from: number; to: number }>>,
): Promise<Attribution[]> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const category = categorize(profile);
  return groups.map((stretches) => attributeIn(profile, category, stretches));
}

function attributeIn(
  profile: CpuProfile,
  category: Map<number, string>,
  stretches: Array<{ from: number; to: number }>,
): Attribution {
  const deltas = [...profile.timeDeltas].sort((a, b) => a - b);
  const usual = deltas[Math.floor(deltas.length / 2)] ?? 1_000;
  const sorted = [...stretches].sort((a, b) => a.from - b.from);
  const running = new Map<string, number>();
  let idle = 0;
  let gaps = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    const start = at;
    at += delta;
    // The part of (start, at] inside the stretches.
    let inside = 0;
    for (const { from, to } of sorted)
      inside += Math.max(0, Math.min(at, to) - Math.max(start, from));
    if (inside === 0) continue;
    const gap = Math.max(0, delta - usual) * (inside / Math.max(1, delta));
    gaps += gap;
    const name = category.get(profile.samples[i] ?? -1) ?? 'node.js internals';
    if (name === 'idle') idle += inside - gap;
    else running.set(name, (running.get(name) ?? 0) + inside - gap);
  }
  return {
    wallMs: stretches.reduce((ms, { from, to }) => ms + (to - from) / 1000, 0),
    running: [...running.entries()]
      .map(([name, us]) => ({ name, ms: us / 1000 }))
      .sort((a, b) => b.ms - a.ms),
    idleMs: idle / 1000,
    unscheduledMs: gaps / 1000,
  };
}

/** A table of where the main thread went in each window: the categories that took the most. */
export function profileShares(windows: Attribution[], labels: string[], top = 10): string[] {
  const share = (a: Attribution, ms: number) =>
    `${((100 * ms) / Math.max(1, a.wallMs)).toFixed(1)}%`;
  const totals = new Map<string, number>();
  for (const w of windows)
    for (const { name, ms } of w.running) totals.set(name, (totals.get(name) ?? 0) + ms);
  const names = [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name]) => name);
  const of = (a: Attribution, name: string) => a.running.find((c) => c.name === name)?.ms ?? 0;
  const ran = (a: Attribution) => a.running.reduce((ms, c) => ms + c.ms, 0);
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    'Where the bot’s main thread went, from its V8 CPU profile (BENCH_PROFILE=1; each sample given ' +
      'to the nearest frame of ours or of a package), as a share of each window. The profiler makes ' +
      'the event loop’s utilisation read higher than it is (an idle loop reads over 50%), so the ' +
      'background pace (BACKGROUND_LOOP_PERCENT) holds back more under it: its latencies and wave ' +
      'times are not those of the bot unprofiled.',
    '',
    row(['main thread', ...labels]),
    row(['---', ...labels.map(() => '---')]),
    row(['running', ...windows.map((w) => share(w, ran(w)))]),
    ...names.map((name) => row([`… ${name}`, ...windows.map((w) => share(w, of(w, name)))])),
    row(['idle', ...windows.map((w) => share(w, w.idleMs))]),
  ];
}
