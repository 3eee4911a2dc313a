// Small statistics and timing helpers shared by the benchmark suites.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (values: number[]) => percentile(values, 50);

export async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

export function fmt(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'no answer';
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

export interface Section {
  title: string;
  /** Markdown body: a sentence on what was measured, then a table. */
  body: string;
}

export function table(header: string[], rows: Array<Array<string | number>>): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** CPU time (ms) of the whole machine, busy and total, from /proc/stat; undefined off Linux. */
export function machineCpu(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
      line.trim().split(/\s+/).slice(1).map(Number);
    const tick = 10; // USER_HZ is 100 on Linux: a tick is 10 ms
    const busy = (user + nice + system + irq + softirq + steal) * tick;
    return { busy, total: busy + (idle + iowait) * tick };
  } catch {
    return undefined;
  }
}

/** CPU time (ms) of this process and of the children it has reaped, from /proc/self/stat. */
function ownCpu(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): utime is the 14th field overall.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
    return (utime + stime + cutime + cstime) * 10;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/**
 * How busy the machine was while a suite ran: the load average before it, and the share of the
 * CPUs that other processes used meanwhile (the machine's busy time less this process's and its
 * reaped children's). Call it before the suite; the function it returns describes it after.
 * Children still running at the end are not counted as this process's: end them first.
 */
export function machineState(): () => string {
  const load = loadavg()[0] ?? 0;
  const machine = machineCpu();
  const own = ownCpu();
  const started = performance.now();
  return () => {
    const cores = cpus().length;
    const after = machineCpu();
    const ownMs = ownCpu() - own;
    if (!machine || !after) return `load average ${load.toFixed(2)} on ${cores} CPUs before it`;
    const total = after.total - machine.total;
    const others = Math.max(0, after.busy - machine.busy - ownMs);
    const share = total > 0 ? others / total : 0;
    const verdict = share < 0.1 && load < cores / 4 ? 'idle' : 'busy';
    return (
      `machine ${verdict}: load average ${load.toFixed(2)} on ${cores} CPUs before the suite; ` +
      `during its ${((performance.now() - started) / 1000).toFixed(0)} s other processes used ` +
      `${(share * 100).toFixed(0)}% of the CPUs (this benchmark ${((ownMs / Math.max(1, total)) * 100).toFixed(0)}%)`
    );
  };
}

/** CPU time (ms) of a process (every thread), or of one of its threads; undefined once it is gone. */
export function processCpuMs(pid: number, thread?: number): number | undefined {
  try {
    const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const stat = readFileSync(path, 'utf8');
    const [utime = 0, stime = 0] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 13)
      .map(Number);
    return (utime + stime) * 10;
  } catch {
    return undefined;
  }
}

/** Latencies of requests (NaN for one that failed, counted as slower than any answer). */
export interface LatencySummary {
  sent: number;
  /** Answered with a status other than 200, or not answered at all. */
  failed: number;
  /** Answered 200 later than Slack waits (3 s): the user saw an error. */
  over3s: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function latencySummary(latencies: Array<{ ms: number; ok: boolean }>): LatencySummary {
  const values = latencies.map(({ ms, ok }) => (ok && Number.isFinite(ms) ? ms : Infinity));
  return {
    sent: values.length,
    failed: values.filter((ms) => ms === Infinity).length,
    over3s: values.filter((ms) => ms > 3_000 && ms !== Infinity).length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length > 0 ? Math.max(...values) : Number.NaN,
  };
}

/**
 * The scheduler's account of a thread (Linux /proc/<pid>/task/<tid>/schedstat): ms it ran on a
 * core, and ms it was ready to run but waited for one. Undefined once it is gone, or off Linux.
 */
export function schedStat(
  pid: number,
  thread = pid,
): { runMs: number; waitMs: number } | undefined {
  try {
    const [run = 0, wait = 0] = readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return undefined;
  }
}

/** CPU readings of some processes and of the machine at one moment (see `cpuShares`). */
export interface CpuMark {
  at: number;
  processes: Map<number, { all?: number; mainRun?: number; mainWait?: number }>;
  machine?: { busy: number; total: number };
}

export function cpuMark(pids: number[]): CpuMark {
  const machine = machineCpu();
  return {
    at: Date.now(),
    processes: new Map(
      pids.map((pid) => {
        const all = processCpuMs(pid);
        const main = schedStat(pid);
        return [
          pid,
          {
            ...(all === undefined ? {} : { all }),
            ...(main ? { mainRun: main.runMs, mainWait: main.waitMs } : {}),
          },
        ];
      }),
    ),
    ...(machine ? { machine } : {}),
  };
}

/**
 * A process's CPU between two marks, as shares of one core: every thread, its main thread running,
 * and its main thread ready to run but waiting for a core. Undefined where a reading is missing.
 */
export function cpuShares(
  a: CpuMark,
  b: CpuMark,
  pid: number,
): { all?: number; mainRun?: number; mainWait?: number } {
  const wall = Math.max(1, b.at - a.at);
  const before = a.processes.get(pid);
  const after = b.processes.get(pid);
  const share = (key: 'all' | 'mainRun' | 'mainWait') => {
    const x = before?.[key];
    const y = after?.[key];
    return x === undefined || y === undefined ? {} : { [key]: (y - x) / wall };
  };
  return { ...share('all'), ...share('mainRun'), ...share('mainWait') };
}

/** The machine's busy share of all its cores between two marks. */
export function machineShare(a: CpuMark, b: CpuMark): number | undefined {
  if (!a.machine || !b.machine) return undefined;
  return (b.machine.busy - a.machine.busy) / Math.max(1, b.machine.total - a.machine.total);
}

/** A share as a whole percentage, or — when unknown. */
export const pct = (share?: number) =>
  share === undefined || !Number.isFinite(share) ? '—' : `${(share * 100).toFixed(0)}%`;

/** The most of `times` (epoch ms, ascending) that fall within any `windowMs`. */
export function peakInWindow(times: number[], windowMs: number): number {
  let peak = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while ((times[last] ?? 0) - (times[first] ?? 0) >= windowMs) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}
