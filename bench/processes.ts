/**
 * Child processes of the benchmarks: servers started on CPU 0 while the load generator (this
 * process) runs on CPU 1. On this 2-core machine, letting them share both cores made runs
 * differ by 2x; `taskset` missing means no pinning.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

let pinned = false;

/** Moves this process (the load generator) to CPU 1. @returns whether pinning is in effect. */
export function pinLoadToCpu1(): boolean {
  pinned = spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' }).status === 0;
  return pinned;
}

/**
 * Runs `work` with this process on every CPU, then back on CPU 1 (when pinned): an import
 * measured here runs its reader thread beside its writing thread, as it does in a server.
 */
export async function onEveryCpu<T>(work: () => Promise<T>): Promise<T> {
  if (!pinned) return work();
  spawnSync('taskset', ['-acp', '0-1', String(process.pid)], { stdio: 'ignore' });
  try {
    return await work();
  } finally {
    spawnSync('taskset', ['-acp', '1', String(process.pid)], { stdio: 'ignore' });
  }
}

/**
 * Starts `node …command` on CPU 0 (when pinned), its stdout piped and its stderr inherited, with
 * the rate limits off unless `env` sets them: benchmarks measure throughput, not the limiter.
 */
export function spawnOnCpu0(command: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  const [file, args] = pinned ? ['taskset', ['-c', '0', process.execPath, ...command]] : [process.execPath, command];
  const unlimited = { INMO_RATE_LIMIT_PER_KEY: '0', INMO_RATE_LIMIT_POST_PER_IP: '0' };
  return spawn(file, args, { env: { ...unlimited, ...env }, cwd, stdio: ['ignore', 'pipe', 'inherit'] });
}

/**
 * Starts `node …command` (on CPU 0 when pinned) and waits for the first JSON line it prints
 * that is not a log line.
 * @returns the child and that line, parsed.
 */
export function startProcess(
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawnOnCpu0(command, env, cwd);
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk;
      // The summary line, not a log line (`{"level":…`) written before it.
      const line = out.split('\n').find((l) => l.startsWith('{') && !l.startsWith('{"level"') && l.endsWith('}'));
      if (!line) return;
      // What it writes after (its request logs) is read and dropped: a full pipe would stall it.
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve({ child, info: JSON.parse(line) });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited ${code}`)));
  });
}

/** Stops a child with SIGTERM and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
