/** The `inmo` CLI as scripts run it: a child process with its own environment. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './db.ts';

const run = promisify(execFile);

/** The `inmo` entry point. */
export const BIN = join(REPO_ROOT, 'bin', 'inmo.mjs');

/** Runs `inmo ARGS…` as a child process; `json` is stdout parsed when it is JSON. */
export async function inmo(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; json: any; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, cwd: REPO_ROOT });
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
