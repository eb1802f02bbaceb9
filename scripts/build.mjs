/**
 * Compiles inmo for Node.js (issue 42 "A CLI that starts at once"): `npm install` runs it
 * (`prepare`), and `npm run build` runs it again. Plain JavaScript, so that it needs nothing but
 * esbuild, a dependency: no TypeScript runner at install.
 *
 * esbuild bundles the CLI (src/main.ts) and the worker threads' entry points (THREAD_ENTRIES)
 * into dist/, as ES modules with the packages of node_modules left outside (imported as they
 * are). Code split: what a command imports only when it runs (`await import(…)`) is a chunk of
 * its own, so `inmo --version` loads the program and not the server. Every file lands in dist/
 * itself, one level below the package as src/ is: the files shipped beside the code are found
 * from the package's folder (src/package-root.ts).
 *
 * The compiled code knows it is compiled (`INMO_COMPILED`), so a thread starts on its compiled
 * entry (src/thread-bundle.ts) instead of bundling it first.
 *
 * Files are written under temporary names and renamed, entry points last, so a process that
 * starts during a build never loads half a file or an entry whose chunks are missing.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package's folder. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the compiled code goes. */
export const DIST = join(ROOT, 'dist');

/** The CLI's compiled entry point, what bin/inmo.mjs runs. */
export const MAIN_PATH = join(DIST, 'main.mjs');

/**
 * The worker threads' entry points, compiled beside the CLI; src/thread-bundle.ts starts a
 * thread on `dist/<name>.mjs` (names must stay distinct).
 */
export const THREAD_ENTRIES = [
  'src/services/catalogue/import/reader-thread-main.ts',
  'src/services/catalogue/import/import-thread-main.ts',
  'src/db/checkpoint-thread-main.ts',
  'src/services/leads/email-read-thread-main.ts',
];

/** The newest modification time (ms) of the sources the build reads: src/ and package.json. */
export function newestSourceMtime() {
  let newest = statSync(join(ROOT, 'package.json')).mtimeMs;
  for (const entry of readdirSync(join(ROOT, 'src'), { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Whether dist/ is missing, or older than a source (the sources were edited since the last build). */
export function isStale() {
  return !existsSync(MAIN_PATH) || statSync(MAIN_PATH).mtimeMs < newestSourceMtime();
}

/**
 * Compiles the CLI and the threads into dist/ and removes the files of earlier builds.
 * @returns the path of the CLI's entry ({@link MAIN_PATH}).
 * @throws Error with esbuild's messages when a source does not build.
 */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const { outputFiles } = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts', ...THREAD_ENTRIES],
    outdir: DIST,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    define: { INMO_COMPILED: 'true' },
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  await mkdir(DIST, { recursive: true });
  const entries = new Set(['main', ...THREAD_ENTRIES.map((entry) => basename(entry, '.ts'))].map((name) => join(DIST, `${name}.mjs`)));
  const written = new Set(outputFiles.map((file) => file.path));
  // Chunks and maps first, entry points last: an entry's chunks exist before the entry does.
  const ordered = [...outputFiles].sort((a, b) => Number(entries.has(a.path)) - Number(entries.has(b.path)));
  for (const file of ordered) {
    const partial = `${file.path}.${process.pid}.partial`;
    await writeFile(partial, file.contents);
    await rename(partial, file.path);
  }
  // Files of earlier builds (old chunks) go once they are ten minutes old: a process started on
  // an earlier build may still load one of its chunks for a while.
  for (const name of readdirSync(DIST)) {
    const path = join(DIST, name);
    if (!written.has(path) && !name.endsWith('.partial') && Date.now() - statSync(path).mtimeMs > OLD_BUILD_MS)
      rmSync(path, { force: true });
  }
  return MAIN_PATH;
}

/** How long the files of an earlier build are kept, ms. */
const OLD_BUILD_MS = 10 * 60_000;

/**
 * Links `node_modules/.bin/inmo` to bin/inmo.mjs, so that `npx inmo` runs it straight away.
 * package.json declares no `bin` on purpose: for a package's own `bin`, npm 11's `npx` first
 * links the package into its cache and then reads every package of node_modules again at each
 * run (its cached tree never records a linked package's dependencies), about 0.7 s before inmo
 * starts; a command of `node_modules/.bin` it runs at once.
 */
export async function linkBin() {
  const bins = join(ROOT, 'node_modules', '.bin');
  if (!existsSync(bins)) return;
  const link = join(bins, 'inmo');
  rmSync(link, { force: true });
  await symlink(join('..', '..', 'bin', 'inmo.mjs'), link);
}

// Run as a script (`npm run build`, `npm install`), not imported.
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const main = await build();
  await linkBin();
  process.stdout.write(`inmo compiled into ${main}\n`);
}
