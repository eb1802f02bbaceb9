/**
 * The code of worker threads, bundled (issue 28 "Speed"): the import's (services/) and the SQLite
 * checkpoints' (db/checkpoints.ts), so it sits below both layers. A thread started on a
 * TypeScript source has to register tsx in it, and tsx's module hooks then run on a hooks
 * thread of their own: a thread that had only loaded the catalogue import's sources cost
 * 74 MiB. Bundled by esbuild into one ES module (the packages of node_modules stay outside it,
 * as in scripts/build.mjs), a thread loads plain JavaScript. Compiled, the threads' entries are
 * already in dist/ (scripts/build.mjs `THREAD_ENTRIES`) and nothing is bundled at run time.
 *
 * Each entry is bundled once per process, into dist/ (one folder below the package, as
 * src/package-root.ts requires) under a name taken from the bundle's content: processes share
 * it, and a changed source makes a new one. It is written to a temporary name and renamed, so
 * a process never starts a thread on a half-written file.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { inPackage } from './package-root.ts';

/** Defined as `true` by the build (scripts/build.mjs); not defined when the sources run as they are. */
declare const INMO_COMPILED: true | undefined;

const bundles = new Map<string, Promise<string>>();

/**
 * The path of `entry`'s bundle, to start a Worker on.
 * @param entry a source file of src/, e.g. `inPackage('src', 'services', 'catalogue', 'import', 'reader-thread-main.ts')`.
 * @throws Error with esbuild's messages when the source does not build.
 */
export function threadBundle(entry: string): Promise<string> {
  // Compiled (scripts/build.mjs), every thread's entry is already in dist/ under its own name.
  if (typeof INMO_COMPILED !== 'undefined') return Promise.resolve(inPackage('dist', `${basename(entry, extname(entry))}.mjs`));
  let bundle = bundles.get(entry);
  if (!bundle) {
    bundle = bundleOf(entry);
    bundles.set(entry, bundle);
    bundle.catch(() => bundles.delete(entry));
  }
  return bundle;
}

async function bundleOf(entry: string): Promise<string> {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const code = outputFiles[0].contents;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const path = inPackage('dist', `${basename(entry, extname(entry))}-${hash}.mjs`);
  if (!existsSync(path)) {
    await mkdir(inPackage('dist'), { recursive: true });
    const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
    await writeFile(partial, code);
    await rename(partial, path);
  }
  return path;
}
