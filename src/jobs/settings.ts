/**
 * A worker's tunables: defined in src/worker-settings.ts, below the services that read some of
 * them (the outbox's send timeout, a pull's withdraw share), and named here for the worker.
 */
export { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from '../worker-settings.ts';
