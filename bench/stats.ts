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
function machineCpu(): { busy: number; total: number } | undefined {
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
