/**
 * Failpoints: named places in the worker where a crash test can kill the process with
 * SIGKILL (test/db/platform/worker-crash.test.ts), to prove that no step of a job loses work or repeats
 * an effect that must happen once.
 *
 * Off unless `INMO_FAILPOINT` is set, to `name` (the first time that place is reached) or
 * `name:n` (the n-th time). Names: `job:claimed`, `match:computed`, `message:sending`
 * (the send is recorded, the provider not yet called), `message:called` (the provider
 * answered, the answer not yet recorded), `job:finished`.
 */
import { failpointSetting } from '../config.ts';

const armed = failpointSetting();
let reached = 0;

/** Kills this process with SIGKILL when `name` is the armed failpoint and its turn has come. */
export function failpoint(name: string): void {
  if (name !== armed?.name) return;
  reached++;
  if (reached === armed.hit) process.kill(process.pid, 'SIGKILL');
}
