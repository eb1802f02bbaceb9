/**
 * The `inmo` CLI as scripts run it: the whole program, in this process ({@link inmo}) or as a
 * child process ({@link inmoProcess}, for what only a process shows: its exit status, signals,
 * streams, and commands that keep running).
 */
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { runCli } from '../../src/cli/run.ts';
import { REPO_ROOT } from './db.ts';
import { BIN, INMO_ENTRY } from './processes.ts';

const run = promisify(execFile);

/** What a run printed and how it ended; `json` is stdout parsed when it is JSON. */
export interface CliRun {
  code: number;
  json: any;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it. */
function collector(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
}

/** Runs `inmo ARGS…` in this process with `env` (src/cli/run.ts), as `npx inmo` would. */
export async function inmo(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli(args, { env, stdout, stderr });
  return { code, json: safeJson(stdout.text()), stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs `inmo ARGS…` as a child process with `env`, from the suite's bundle (test/helpers/processes.ts). */
export function inmoProcess(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  return spawnInmo(INMO_ENTRY, env, args);
}

/** Runs `inmo ARGS…` as operators do, from bin/inmo.mjs (the compiled code of dist/). */
export function inmoBin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  return spawnInmo(BIN, env, args);
}

async function spawnInmo(entry: string, env: NodeJS.ProcessEnv, args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [entry, ...args], { env, cwd: REPO_ROOT });
    return { code: 0, json: safeJson(stdout), stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: safeJson(e.stdout), stdout: e.stdout, stderr: e.stderr };
  }
}

function safeJson(text: string) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
