/** Long-running `inmo serve` processes: started, waited for, stopped with SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { REPO_ROOT } from './db.ts';

/** `bin/inmo.mjs`, the entry point operators run (the compiled code of dist/). */
export const BIN = join(REPO_ROOT, 'bin', 'inmo.mjs');

/**
 * The entry point the suite's child processes start from: the bundle of the same sources that
 * test/global-setup.ts compiles (`INMO_TEST_BUNDLE`, dist/main.mjs), which starts in a fraction
 * of the time; bin/inmo.mjs when a file runs without that setup.
 */
export const INMO_ENTRY = process.env.INMO_TEST_BUNDLE || BIN;

/** A running `inmo serve` child process. */
export interface Served {
  child: ChildProcess;
  /** The summary it printed (`url`, `docs`, and the demo's key when seeded). */
  info: Record<string, any>;
  /** The API base, `http://127.0.0.1:PORT/v1/ext`. */
  base: string;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** Everything it has written so far, stdout and stderr. */
  output: () => string;
  /** SIGTERM, then its exit code. */
  stop: () => Promise<number | null>;
}

/**
 * Starts `inmo serve ARGS… --json` (with `--port 0` unless `env` has a `PORT`) and resolves
 * once it prints its summary: the JSON line with a `url` (log lines are JSON too).
 */
export function startServe(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Served> {
  const port = env.PORT === undefined ? ['--port', '0'] : [];
  const child = spawn(process.execPath, [INMO_ENTRY, 'serve', ...args, ...port, '--json'], { env, cwd: REPO_ROOT });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  child.stderr.on('data', (chunk) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{"url"'));
      if (!line) return;
      const info = JSON.parse(line) as Record<string, any>;
      const stop = async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        return exited;
      };
      resolve({ child, info, base: info.url as string, exited, output: () => out, stop });
    });
    void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${out}`)));
  });
}

/**
 * How many crash rounds a crash test runs: `INMO_CRASH_RUNS` (`npm run test:soak` sets 50), by
 * default `pairs`, each failpoint × hit pair once.
 */
export function crashRuns(pairs: number): number {
  return Number(process.env.INMO_CRASH_RUNS) || pairs;
}

/** One round of a crash test: the worker armed at `failpoint`'s `hit`-th time, and whether it was killed there. */
export interface Round {
  failpoint: string;
  hit: number;
  killed: boolean;
}

/**
 * The kills really happened, at every step: each round armed at a step's first hit was killed
 * there, since every round brings new work through every step (with leases and sends that do not
 * run out, nothing else decides it). Whether a later hit comes depends on the jobs earlier kills
 * left, so those rounds may end without a kill.
 */
export function expectKillsAtEveryStep(rounds: Round[], failpoints: string[]): void {
  const told = rounds.map((r) => `${r.failpoint}:${r.hit}${r.killed ? '' : ' (no kill)'}`).join(', ');
  for (const failpoint of failpoints) {
    const first = rounds.filter((r) => r.failpoint === failpoint && r.hit === 1);
    expect(first.length, failpoint).toBeGreaterThan(0);
    expect(
      first.every((r) => r.killed),
      `${failpoint} in ${told}`,
    ).toBe(true);
  }
}

/** A date every lease is past. */
const LONG_AGO = '2000-01-01T00:00:00.000+00:00';

/**
 * Runs `inmo worker --until-idle` on `databaseUrl` (`db` opened on it) as the crash tests do, armed
 * with `failpoint` (src/jobs/failpoints.ts) unless null, with short backoff. Its lease (60 s) and
 * its send timeout (15 s) are far beyond what a loaded machine takes, so a live worker never loses
 * a job nor gives up on a send: where its kills land depends on the failpoint, not on the
 * machine's speed. Once it is killed, the leases it held are run out at once, as time would run
 * them out, and the next worker takes its jobs back (the crash tests' rounds need not wait).
 * @returns the signal that ended it (SIGKILL at the failpoint), or null when it finished by itself.
 * @throws when it exits with a non-zero code (its stderr in the message).
 */
export async function runCrashableWorker(db: Db, databaseUrl: string, failpoint: string | null): Promise<NodeJS.Signals | null> {
  const signal = await runWorkerProcess(databaseUrl, failpoint);
  // Only the killed worker held jobs: every running job is one of its.
  if (signal !== null) await db.updateTable('jobs').set({ locked_until: LONG_AGO }).where('state', '=', 'running').execute();
  return signal;
}

function runWorkerProcess(databaseUrl: string, failpoint: string | null): Promise<NodeJS.Signals | null> {
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'fatal',
    INMO_JOB_LEASE_MS: '60000',
    INMO_SEND_TIMEOUT_MS: '15000',
    INMO_JOB_BACKOFF_MS: '10',
    INMO_JOB_MAX_ATTEMPTS: '1000',
    INMO_WORKER_POLL_MS: '20',
    ...(failpoint ? { INMO_FAILPOINT: failpoint } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INMO_ENTRY, 'worker', '--until-idle', '--json'], {
      env,
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === null && code !== 0) reject(new Error(`worker exited ${code}: ${stderr}`));
      else resolve(signal);
    });
  });
}
