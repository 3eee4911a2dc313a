// A reference beside the acks: what the bots' database takes, right then, for a command's write.
import pg from 'pg';
import { type Sample, steadyCalls } from './open-loop.js';

// The replay guard's kind of INSERT … ON CONFLICT (one commit), from a connection of its own, open
// loop. An ack slower than this waits for something else too.

export interface DbProbe {
  /** Writes `perSecond` times a second for `durationMs` (or until `signal` aborts). */
  run(perSecond: number, options: { durationMs?: number; signal?: AbortSignal }): Promise<Sample[]>;
  close(): Promise<void>;
}

export async function startDbProbe(url: string): Promise<DbProbe> {
  // A few connections: a slow commit does not hold the next write back.
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // An idle connection ended by the database being dropped (an interrupted run) is no error here.
  pool.on('error', () => undefined);
  await pool.query('create table if not exists bench_probe (key text primary key, at bigint)');
  let runs = 0;
  return {
    run(perSecond, options) {
      const run = ++runs;
      return steadyCalls(perSecond, options, (i) =>
        pool.query('insert into bench_probe (key, at) values ($1, $2) on conflict do nothing', [
          `${run}.${i}`,
          Date.now(),
        ]),
      );
    },
    close: () => pool.end(),
  };
}
