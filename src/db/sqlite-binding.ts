/**
 * The SQLite binding for the Node.js this process runs on: better-sqlite3 13 where the runtime
 * has Node-API 10 (Node 22.14 and later, every Node 24), better-sqlite3 12 on Node 20.
 *
 * Why two: better-sqlite3 12 wraps its objects in `node::ObjectWrap`, whose header in Node
 * 24.19 and later registers an environment cleanup hook that its destructor removes with a
 * hard assertion. A Statement collected by the GC then aborts the process (SIGABRT,
 * `Assertion failed: (env) != nullptr` in `node::RemoveEnvironmentCleanupHook`), at exit or in
 * the middle of a request, once the statement cache lets one go (nodejs/node#65446). 13 is
 * built on Node-API, which has no such hook, but needs Node-API 10, which Node 20 lacks (it
 * crashes there). `test/unit/sqlite-binding.test.ts` collects thousands of statements in a
 * child process and fails on a signal; `.ci/run` runs it on Node 20 and Node 24.
 *
 * The API of both is the same: the types are better-sqlite3's.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** Node-API version of this runtime (`process.versions.napi`), 0 when unknown. */
const NAPI = Number(process.versions.napi) || 0;

/** The package this process loads: `better-sqlite3` (13) or `better-sqlite3-node20` (12). */
export const SQLITE_PACKAGE = NAPI >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20';

/** The better-sqlite3 Database class of {@link SQLITE_PACKAGE}. */
const SQLite = require(SQLITE_PACKAGE) as typeof BetterSqlite3;
export default SQLite;
