/**
 * Records which functions of src/ a db test file reached (scripts/engine-reach.mjs): V8's precise
 * coverage from the file's first import to its last test, written as `{ "src/…": [function names] }`
 * to `$INMO_TEST_REACH/<project> <file>.json`. Loaded only when INMO_TEST_REACH names a folder
 * (vitest.config.ts); it changes nothing a test sees.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

let testPath = 'unknown';
beforeAll(() => {
  testPath = expect.getState().testPath ?? testPath;
});

afterAll(async () => {
  const root = join(import.meta.dirname, '..');
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const reached: Record<string, string[]> = {};
  for (const script of result) {
    const path = script.url.replace(/^file:\/\//, '');
    if (!path.startsWith(join(root, 'src') + '/')) continue;
    const names = script.functions.filter((f) => f.functionName !== '' && f.ranges[0].count > 0).map((f) => f.functionName);
    if (names.length > 0) reached[relative(root, path)] = [...new Set(names)].sort();
  }
  const file = relative(root, testPath);
  const name = `${process.env.INMO_TEST_ENGINE ?? 'none'} ${file.replaceAll('/', '_')}.json`;
  writeFileSync(join(process.env.INMO_TEST_REACH!, name), JSON.stringify({ file, reached }));
});
