/**
 * The folder inmo is installed in (the one holding package.json), from which the files that
 * ship beside the code are found: the console's views and assets, the import's parser thread,
 * package.json itself. The code runs compiled from dist/ (scripts/build.mjs, at `npm install`),
 * or as TypeScript from src/ under the tests and tsx; both sit one level below this folder, which is why
 * this module is in src/ itself and why those files are never found from a module's own URL.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the package's folder. */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Absolute path of `parts` inside the package, e.g. `inPackage('src', 'http', 'console', 'views')`. */
export const inPackage = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);
