/**
 * Failpoints: named places in the worker where a crash test can kill the process with
 * SIGKILL (test/db/worker-crash.test.ts), to prove that no step of a job loses work or repeats
 * an effect that must happen once.
 *
 * Off unless `INMO_FAILPOINT` is set, to `name` (the first time that place is reached) or
 * `name:n` (the n-th time). Names: `job:claimed`, `match:computed`, `message:sending`
 * (the send is recorded, the provider not yet called), `message:called` (the provider
 * answered, the answer not yet recorded), `job:finished`.
 */
const armed = /^([a-z:_-]+?)(?::(\d+))?$/.exec(process.env.INMO_FAILPOINT ?? '');
const armedName = armed?.[1];
const armedAt = Number(armed?.[2] ?? 1);
let reached = 0;

/** Kills this process with SIGKILL when `name` is the armed failpoint and its turn has come. */
export function failpoint(name: string): void {
  if (name !== armedName) return;
  reached++;
  if (reached === armedAt) process.kill(process.pid, 'SIGKILL');
}
