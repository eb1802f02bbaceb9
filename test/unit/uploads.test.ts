/**
 * Upload folders a dead process left behind are swept when a process starts (issue 25):
 * older than a day, gone; anything younger, or not an upload folder, kept
 * (src/http/console/uploads.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { sweepStaleUploads } from '../../src/http/console/uploads.ts';

const saved = process.env.TMPDIR;
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

it('removes upload folders older than a day and keeps the rest', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'inmo-sweep-'));
  process.env.TMPDIR = folder;
  const now = Date.now();
  const make = (name: string, ageHours: number) => {
    const dir = join(folder, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'upload'), 'x');
    const at = (now - ageHours * 3_600_000) / 1000;
    utimesSync(dir, at, at);
    return dir;
  };
  const stale = make('inmo-upload-old', 25);
  const fresh = make('inmo-upload-new', 1);
  const other = make('something-else', 48);
  await sweepStaleUploads(now);
  expect([existsSync(stale), existsSync(fresh), existsSync(other)]).toEqual([false, true, true]);
});
