// A JobRepository seen through a window: every call a runner makes is recorded once it has
// returned, tests wait for the call they expect (instead of sleeping), and a hook can hold a
// call's answer back to open a race window on purpose.
import type { JobRepository } from '../../src/store/jobs.js';

type Method =
  | 'claim'
  | 'renew'
  | 'checkpoint'
  | 'finish'
  | 'release'
  | 'completeStep'
  | 'completeSteps';

export interface JobCall {
  /** The order in which calls were made (not answered): 1, 2, … */
  seq: number;
  method: Method;
  args: unknown[];
  result: unknown;
}

export interface ObservedJobs {
  /** Hand this to the runner. */
  repo: JobRepository;
  calls: JobCall[];
  /** Calls made so far, answered or not. */
  issued: number;
  /** Resolves with the first call (past or future) that matches. */
  until(predicate: (call: JobCall) => boolean): Promise<JobCall>;
  /** Runs before a call's answer is handed back (it may wait). */
  hold?: ((call: JobCall) => Promise<void> | void) | undefined;
}

const OBSERVED = new Set<string>([
  'claim',
  'renew',
  'checkpoint',
  'finish',
  'release',
  'completeStep',
  'completeSteps',
]);

export function observe(inner: JobRepository): ObservedJobs {
  const waiters: Array<{ predicate: (call: JobCall) => boolean; resolve: (c: JobCall) => void }> =
    [];
  const observed: ObservedJobs = {
    calls: [],
    issued: 0,
    repo: new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || !OBSERVED.has(property) || typeof value !== 'function')
          return value;
        return async (...args: unknown[]) => {
          const seq = ++observed.issued;
          const result: unknown = await value.apply(target, args);
          const call: JobCall = { seq, method: property as Method, args, result };
          await observed.hold?.(call);
          observed.calls.push(call);
          for (const waiter of waiters.splice(0)) {
            if (waiter.predicate(call)) waiter.resolve(call);
            else waiters.push(waiter);
          }
          return result;
        };
      },
    }),
    until(predicate) {
      const past = observed.calls.find(predicate);
      if (past) return Promise.resolve(past);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
  return observed;
}

/** A promise to resolve from outside. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
} {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves when the signal aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}
