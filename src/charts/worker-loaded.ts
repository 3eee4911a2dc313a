// What a chart worker (render-worker.ts) tells the pool (render-pool.ts) once its renderer, fonts
// included, is loaded: a file of its own, so that the worker does not load the pool.
export const WORKER_LOADED = { chartWorker: 'loaded' } as const;

export function isWorkerLoaded(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { chartWorker?: unknown }).chartWorker === WORKER_LOADED.chartWorker
  );
}
