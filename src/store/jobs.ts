// Repository: durable jobs and their steps. A job is claimed with a lease by one conditional UPDATE
// (FOR UPDATE SKIP LOCKED on PostgreSQL), renewed by its holder's heartbeat, and taken over by any
// replica once the lease has expired. Every write by a holder is conditional on still holding it.
// (Over 400 lines: claim, hold, renew, checkpoint, the step writes and finish share that one
// condition.)
import { randomUUID } from 'node:crypto';
import {
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  sql,
  type UpdateObject,
} from 'kysely';
import type { Clock } from '../clock.js';
import type { SqlDialect } from './db.js';
import type { Database, JobState, JobsTable } from './schema.js';

export interface Job<Payload = unknown, Checkpoint = Record<string, unknown>> {
  id: string;
  workspaceId: string;
  kind: string;
  key: string | null;
  state: JobState;
  payload: Payload;
  checkpoint: Checkpoint;
  /** Claims so far, this one included. */
  attempts: number;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface NewJob {
  workspaceId: string;
  kind: string;
  payload: unknown;
  /** Enqueuing the same key again returns the first job instead of a second. */
  key?: string;
  runAt?: number;
  /** Inputs of the job's steps (a purge's batches), stored with it. */
  steps?: unknown[];
  checkpoint?: Record<string, unknown>;
}

export interface JobStep<Input = unknown, Result = unknown> {
  idx: number;
  input: Input;
  /** Undefined until the step is done. */
  result: Result | undefined;
}

/** Steps are written in chunks: SQLite takes at most 32,766 bound values per statement. */
const STEP_CHUNK = 500;

export class JobRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** Deletes a workspace's jobs of these keys, whatever their state (work that is gone for good). */
  async deleteByKeys(
    workspaceId: string,
    keys: readonly string[],
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    if (keys.length === 0) return;
    await db
      .deleteFrom('jobs')
      .where('workspace_id', '=', workspaceId)
      .where('key', 'in', [...keys])
      .execute();
  }

  /**
   * Stores jobs without steps in as few statements as it can, inside the caller's transaction
   * (`db`); a job whose key is already used is left out. Returns how many were stored.
   */
  async enqueueMany(inputs: readonly NewJob[], db: Kysely<Database> = this.db): Promise<number> {
    const rows = inputs.map((input) => {
      if (input.steps?.length) throw new Error('enqueueMany stores jobs without steps');
      return newRow(input, this.clock.now(), this.newId());
    });
    let stored = 0;
    for (let i = 0; i < rows.length; i += STEP_CHUNK) {
      const result = await db
        .insertInto('jobs')
        .values(rows.slice(i, i + STEP_CHUNK))
        .onConflict((c) => c.column('key').doNothing())
        .executeTakeFirst();
      stored += Number(result.numInsertedOrUpdatedRows ?? 0n);
    }
    return stored;
  }

  /**
   * Stores the job and its steps together (on PostgreSQL one statement, elsewhere one
   * transaction); with a key already used, the first job.
   */
  async enqueue(input: NewJob): Promise<{ job: Job; created: boolean }> {
    const row = newRow(input, this.clock.now(), this.newId());
    const created =
      this.dialect === 'postgres'
        ? await this.insertAtOnce(row, input.steps ?? [])
        : await this.insertInTransaction(row, input.steps ?? []);
    if (created) return { job: toJob(row), created };
    const existing = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('key', '=', input.key ?? '')
      .executeTakeFirstOrThrow();
    return { job: toJob(existing), created };
  }

  /**
   * PostgreSQL: the job and its steps in one statement (the steps' insert reads the job's, so a
   * key already used stores neither): one round trip instead of four (begin, two inserts, commit).
   */
  private async insertAtOnce(
    row: Selectable<JobsTable>,
    steps: readonly unknown[],
  ): Promise<boolean> {
    const inputs = steps.map((step) => JSON.stringify(step));
    const stored = await this.db
      .with('inserted', (db) =>
        db
          .insertInto('jobs')
          .values(row)
          .onConflict((c) => c.column('key').doNothing())
          .returning('id'),
      )
      .with('steps', (db) =>
        db
          .insertInto('job_steps')
          .columns(['job_id', 'idx', 'input', 'result'])
          .expression(
            sql`select inserted.id, s.idx - 1, s.input, null from inserted, unnest(${inputs}::text[]) with ordinality as s(input, idx)`,
          )
          .returning('job_id'),
      )
      .selectFrom('inserted')
      .select('id')
      .executeTakeFirst();
    return stored !== undefined;
  }

  private async insertInTransaction(
    row: Selectable<JobsTable>,
    input: readonly unknown[],
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('jobs')
        .values(row)
        .onConflict((c) => c.column('key').doNothing())
        .executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) return false;
      const steps = input.map((step, idx) => ({
        job_id: row.id,
        idx,
        input: JSON.stringify(step),
        result: null,
      }));
      for (let i = 0; i < steps.length; i += STEP_CHUNK) {
        await trx
          .insertInto('job_steps')
          .values(steps.slice(i, i + STEP_CHUNK))
          .execute();
      }
      return true;
    });
  }

  async get(id: string): Promise<Job | undefined> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toJob(row);
  }

  /** The job stored under `key`, if there is one. */
  async byKey(key: string): Promise<Job | undefined> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirst();
    return row && toJob(row);
  }

  /** The keys and states of the jobs whose key starts with `prefix` (a person's exports). */
  async keyedLike(prefix: string): Promise<Array<{ key: string; state: JobState }>> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['key', 'state'])
      .where(sql<string>`substr(key, 1, ${sql.lit(prefix.length)})`, '=', prefix)
      .execute();
    return rows.flatMap((row) => (row.key ? [{ key: row.key, state: row.state }] : []));
  }

  /**
   * Claims one job that is due (queued and its time come) or abandoned (running, lease expired),
   * for `owner` until now + `leaseMs`; undefined when there is none. Of the kinds given only.
   */
  async claim(owner: string, leaseMs: number, kinds: readonly string[]): Promise<Job | undefined> {
    if (kinds.length === 0) return undefined;
    const now = this.clock.now();
    const claimable = (qb: Kysely<Database>) =>
      qb
        .selectFrom('jobs')
        .select('id')
        .where('kind', 'in', kinds)
        .where((eb) => dueOrAbandoned(eb, now))
        .orderBy('run_at')
        .limit(1);
    const candidate =
      this.dialect === 'postgres'
        ? claimable(this.db).forUpdate().skipLocked()
        : claimable(this.db);
    const row = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        lease_owner: owner,
        lease_until: now + leaseMs,
        attempts: eb('attempts', '+', 1),
        updated_at: now,
      }))
      .where('id', '=', candidate)
      // Checked again on the row itself: on SQLite the subquery and the update are one statement,
      // on PostgreSQL the row lock makes a racing claimer skip it.
      .where((eb) => dueOrAbandoned(eb, now))
      .returningAll()
      .executeTakeFirst();
    return row && toJob(row);
  }

  /**
   * Claims the job stored under `input.key` for `owner` until now + `leaseMs`, storing it first if
   * there is none: work a request does at once (not the runner), claimed as the runner claims.
   * Taken when it is new, back in the queue (its holder failed and released it) or abandoned (its
   * holder's lease expired); `held` false with the job as it stands otherwise (running elsewhere,
   * or finished). A job taken again gets `input`'s payload and checkpoint: the new holder's.
   */
  async hold(
    input: NewJob & { key: string },
    owner: string,
    leaseMs: number,
  ): Promise<{ held: boolean; job: Job }> {
    const now = this.clock.now();
    const lease = {
      state: 'running' as const,
      lease_owner: owner,
      lease_until: now + leaseMs,
      updated_at: now,
    };
    const row = { ...newRow(input, now, this.newId()), ...lease, attempts: 1 };
    // One statement whether the job is new or taken again: work that comes round under one key
    // (a recurring entry) is held every period, so a round trip saved here is saved each time.
    const taken = await this.db
      .insertInto('jobs')
      .values(row)
      .onConflict((c) =>
        c
          .column('key')
          .doUpdateSet((eb) => ({
            ...lease,
            payload: row.payload,
            checkpoint: row.checkpoint,
            attempts: eb('jobs.attempts', '+', 1),
          }))
          .where((eb) => dueOrAbandoned(eb, now)),
      )
      .returningAll()
      .executeTakeFirst();
    if (taken) return { held: true, job: toJob(taken) };
    const existing = await this.byKey(input.key);
    // Deleted between the two looks (retention): stored anew.
    return existing ? { held: false, job: existing } : this.hold(input, owner, leaseMs);
  }

  /** Extends the lease; false when `owner` no longer holds the job (it expired and was taken). */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.clock.now();
    return this.#updateHeld(id, owner, { lease_until: now + leaseMs, updated_at: now });
  }

  /** Replaces the checkpoint, only while `owner` holds the job. */
  async checkpoint(
    id: string,
    owner: string,
    checkpoint: Record<string, unknown>,
  ): Promise<boolean> {
    return this.#updateHeld(id, owner, {
      checkpoint: JSON.stringify(checkpoint),
      updated_at: this.clock.now(),
    });
  }

  /** One conditional write by the job's holder: false when `owner` no longer holds it. */
  async #updateHeld(
    id: string,
    owner: string,
    set: UpdateObject<Database, 'jobs'>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set(set)
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async steps<Input, Result>(jobId: string): Promise<JobStep<Input, Result>[]> {
    const rows = await this.db
      .selectFrom('job_steps')
      .selectAll()
      .where('job_id', '=', jobId)
      .orderBy('idx')
      .execute();
    return rows.map((row) => ({
      idx: row.idx,
      input: JSON.parse(row.input) as Input,
      result: row.result === null ? undefined : (JSON.parse(row.result) as Result),
    }));
  }

  /**
   * Closes a step with its result, once, while `owner` holds the job: one write per step, the
   * checkpoint of a batch. False when the step was closed already or the job is held elsewhere.
   */
  async completeStep(jobId: string, owner: string, idx: number, result: unknown): Promise<boolean> {
    const updated = await this.db
      .updateTable('job_steps')
      .set({ result: JSON.stringify(result) })
      .where('job_id', '=', jobId)
      .where('idx', '=', idx)
      .where('result', 'is', null)
      .where((eb) => stepsHeldBy(eb, jobId, owner))
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n;
  }

  /**
   * Closes several steps at once, each with its result, in one statement (a purge's batches that
   * ended together): as `completeStep` for each, and returns the indexes it closed. A step left
   * out was closed already, or the job is held elsewhere.
   */
  async completeSteps(
    jobId: string,
    owner: string,
    results: ReadonlyArray<{ idx: number; result: unknown }>,
  ): Promise<Set<number>> {
    if (results.length === 0) return new Set();
    const value = sql<string>`case ${sql.ref('idx')} ${sql.join(
      results.map(({ idx, result }) => sql`when ${idx} then ${JSON.stringify(result)}`),
      sql` `,
    )} end`;
    const rows = await this.db
      .updateTable('job_steps')
      .set({ result: value })
      .where('job_id', '=', jobId)
      .where(
        'idx',
        'in',
        results.map((r) => r.idx),
      )
      .where('result', 'is', null)
      .where((eb) => stepsHeldBy(eb, jobId, owner))
      .returning('idx')
      .execute();
    return new Set(rows.map((row) => Number(row.idx)));
  }

  /** Ends the job (succeeded or failed for good), only while `owner` holds it. */
  async finish(
    id: string,
    owner: string,
    outcome: { state: 'succeeded' | 'failed'; error?: string },
  ): Promise<boolean> {
    const now = this.clock.now();
    return this.#updateHeld(id, owner, {
      state: outcome.state,
      error: outcome.error ?? null,
      lease_owner: null,
      lease_until: null,
      finished_at: now,
      updated_at: now,
    });
  }

  /**
   * Puts the job back in the queue, to run again at `runAt`: a retry (with why), or (`paused`) a
   * graceful pause or a deferral, which does not count as an attempt.
   */
  async release(
    id: string,
    owner: string,
    runAt: number,
    options: { error?: string; paused?: boolean } = {},
  ): Promise<boolean> {
    return this.#updateHeld(id, owner, {
      state: 'queued',
      run_at: runAt,
      lease_owner: null,
      lease_until: null,
      updated_at: this.clock.now(),
      ...(options.error === undefined ? {} : { error: options.error }),
      ...(options.paused ? { attempts: sql<number>`attempts - 1` } : {}),
    });
  }

  /** A workspace's queued jobs of `kind`, soonest first, at most `limit` (what waits for its time). */
  async queuedOf(workspaceId: string, kind: string, limit: number): Promise<Job[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('kind', '=', kind)
      .where('state', '=', 'queued')
      .orderBy('run_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => toJob(row));
  }

  /**
   * Ends a job that is queued (not running, not over) as failed with `reason`, in one conditional
   * UPDATE: false when a runner claimed it first, or it is over.
   */
  async cancelQueued(id: string, reason: string): Promise<boolean> {
    const now = this.clock.now();
    const result = await this.db
      .updateTable('jobs')
      .set({ state: 'failed', error: reason, finished_at: now, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Deletes up to `limit` jobs finished (succeeded or failed) before `before`, of one kind or of
   * all; their steps go with them. Returns how many: fewer than `limit` means none are left.
   */
  async pruneFinished(before: number, limit: number, kind?: string): Promise<number> {
    let finished = this.db
      .selectFrom('jobs')
      .select('id')
      .where('state', 'in', ['succeeded', 'failed'])
      .where('finished_at', '<', before);
    if (kind !== undefined) finished = finished.where('kind', '=', kind);
    const result = await this.db
      .deleteFrom('jobs')
      .where('id', 'in', finished.limit(limit))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Counts by state (tests, metrics), of every kind but `exceptKinds`. */
  async countByState(
    exceptKinds: readonly string[] = [],
  ): Promise<Partial<Record<JobState, number>>> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['state', sql<number>`count(*)`.as('count')])
      .$if(exceptKinds.length > 0, (q) => q.where('kind', 'not in', exceptKinds))
      .groupBy('state')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.count)]));
  }
}

/** The steps' job `jobId` is running and `owner` holds it: a step is written only by its job's holder. */
function stepsHeldBy(eb: ExpressionBuilder<Database, 'job_steps'>, jobId: string, owner: string) {
  return eb.exists(
    eb
      .selectFrom('jobs')
      .select('jobs.id')
      .where('jobs.id', '=', jobId)
      .where('jobs.lease_owner', '=', owner)
      .where('jobs.state', '=', 'running'),
  );
}

/** Due (queued, its time come) or abandoned (running, its lease expired). */
function dueOrAbandoned(eb: ExpressionBuilder<Database, 'jobs'>, now: number) {
  // Qualified: in an upsert's conflict clause, a bare name could also be the row proposed.
  return eb.or([
    eb.and([eb('jobs.state', '=', 'queued'), eb('jobs.run_at', '<=', now)]),
    eb.and([eb('jobs.state', '=', 'running'), eb('jobs.lease_until', '<', now)]),
  ]);
}

function toJob(row: Selectable<JobsTable>): Job {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    kind: row.kind,
    key: row.key,
    state: row.state,
    payload: JSON.parse(row.payload),
    checkpoint: row.checkpoint ? JSON.parse(row.checkpoint) : {},
    attempts: row.attempts,
    runAt: row.run_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    error: row.error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

/** A new job's row, queued. */
function newRow(input: NewJob, now: number, id: string): Selectable<JobsTable> {
  return {
    id,
    workspace_id: input.workspaceId,
    kind: input.kind,
    key: input.key ?? null,
    state: 'queued',
    payload: JSON.stringify(input.payload),
    checkpoint: input.checkpoint ? JSON.stringify(input.checkpoint) : null,
    attempts: 0,
    run_at: input.runAt ?? now,
    lease_owner: null,
    lease_until: null,
    error: null,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
}
