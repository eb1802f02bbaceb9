/** Long-running `inmo serve` processes: started, waited for, stopped with SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './db.ts';
import { BIN } from './cli.ts';

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
 * Starts `inmo serve ARGS… --port 0 --json` and resolves once it prints its summary: the JSON
 * line with a `url` (log lines are JSON too).
 */
export function startServe(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0', '--json'], { env, cwd: REPO_ROOT });
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
