/**
 * The SQLite binding is sound on the Node.js running the suite (src/db/sqlite-binding.ts):
 * statements collected by the GC, as the statement cache lets them go, never abort the
 * process. better-sqlite3 12 built for Node 24.19 or later fails this with SIGABRT; `.ci/run`
 * runs this tier on Node 20 and on Node 24.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/db.ts';

const run = promisify(execFile);

it(`collecting thousands of statements ends the process normally on Node ${process.versions.node}`, async () => {
  const script = join(REPO_ROOT, 'test', 'helpers', 'collect-statements.ts');
  const outcome = await run(process.execPath, ['--expose-gc', join(REPO_ROOT, 'bin', 'run-ts.mjs'), script], { cwd: REPO_ROOT }).then(
    ({ stdout }) => ({ code: 0, signal: null, stdout }),
    (error: { code: number; signal: string | null; stdout: string; stderr: string }) => error,
  );
  expect(outcome.signal, 'the process ended by a signal').toBeNull();
  expect(outcome.code).toBe(0);
  const napi = Number(process.versions.napi);
  expect(JSON.parse(outcome.stdout)).toEqual({
    binding: napi >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20',
    node: process.versions.node,
  });
});
