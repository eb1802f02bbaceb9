import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/sequencer.ts';

/**
 * The suite in three tiers (DEVELOPERS.md):
 *
 * - `unit`: test/unit/, no database: runs once.
 * - `db-sqlite`, `db-postgres`: test/db/, once per engine: always on SQLite, and on PostgreSQL
 *   when INMO_TEST_POSTGRES_URL names a server (`.ci/run` sets it), but for the files whose
 *   behaviour cannot differ by engine, or whose storage runs there in other files (ONCE below).
 * - `browser`: test/browser/ in Chromium, on SQLite (the pages' queries run on both engines in
 *   test/db/).
 * - `runtime`: what depends on the Node.js it runs on, for `.ci/run`'s second Node (24): the unit
 *   tier but for the slowest tooling checks, and the db files that exercise the SQLite binding,
 *   worker threads, child processes and signals, TLS, sharp, the S3 SDK and the PDF and calendar
 *   libraries, on SQLite. Not part of `npm test`'s default run (the same files run in `unit` and
 *   `db-sqlite` there).
 * - `fast-path`: the security, fuzz, publishable-key and conditional suites again on SQLite,
 *   with every GET sent twice, so that their rules are checked on the fast path of cached reads
 *   (http/fast-path.ts) as well as on the full one.
 *
 * A test of the API's contracts builds the API alone (test/helpers/http.ts `API_ONLY`): it loads
 * none of the console's, the public pages' or the docs' modules, most of the app's import time.
 *
 * Each test database is a copy of the run's migrated template (a SQLite file or a PostgreSQL
 * database, test/global-setup.ts), so files run in parallel: INMO_TEST_WORKERS processes at
 * once (default 3, the fastest measured on a 2-core machine: most of a file's time is spent
 * waiting on PostgreSQL, child processes or Chromium).
 */
const postgres = Boolean(process.env.INMO_TEST_POSTGRES_URL);
/** scripts/engine-reach.ts: every db file on PostgreSQL, each recording what it reached into this folder. */
const reach = process.env.INMO_TEST_REACH;
const workers = Number(process.env.INMO_TEST_WORKERS) || 3;
/** Suites run again with every GET repeated, so that cacheable answers come from the fast path (test/helpers/http.ts). */
const FAST_PATH_SUITES = [
  'test/db/platform/security.test.ts',
  'test/db/platform/fuzz.test.ts',
  'test/db/access/publishable-keys.test.ts',
  'test/db/platform/conditional.test.ts',
];

/**
 * The db files run once, on SQLite, and left out of `db-postgres` (issue 56 item 6). A new file
 * runs on both engines until it is listed here. Two kinds:
 *
 * - What they check happens before or beside storage (HTTP plumbing, limits, signals, protocols,
 *   rendering, words), so it cannot differ by engine.
 * - Their subject is not storage (validation fuzzing, the console's pages, a protocol's handling),
 *   and every function of the storage they reach (src/db/, and the few statements still written
 *   elsewhere) is reached on PostgreSQL by a file that runs there: `scripts/engine-reach.ts`
 *   runs every db file on PostgreSQL, records what each reached, and fails naming any function
 *   only these files reach. Run it after adding a file here, or a query to a file listed here.
 */
export const ONCE = [
  // What they check happens before or beside storage.
  'platform/checkpoints', // SQLite's WAL checkpoints (skipped on PostgreSQL)
  'platform/http', // request ids, unknown routes, wrong methods
  'platform/host-header', // links written from the configuration, not from storage
  'platform/request-logs', // log lines
  'platform/limits', // request limits, refused before anything is read or stored
  'platform/rate-limit', // counters kept in memory
  'platform/conditional', // ETags and compression of an answer
  'platform/shutdown', // signals and draining
  'platform/cli-operator', // help, refusals and exit statuses of the CLI
  'messaging/mail-server-hosts', // mail server addresses refused before anything is stored
  'messaging/email-out', // the SMTP protocol, TLS and the server's answers
  'leads/email-read', // the reader thread's deadline
  'leads/email-pull-bounds', // what a hostile IMAP server can make a pull do
  'catalogue/listing-sheet-cache', // the PDF sheet's layout and its cache
  'catalogue/photos.console', // photos re-encoded by sharp
  'catalogue/photo-widths', // the widths a photo's URLs name
  'catalogue/published-text', // text rules of what a listing publishes
  'platform/xss', // the HTML sanitiser
  'console/console-words', // labels of every console page
  'console/console-codes', // codes shown as words
  'access/user-names.console', // names shown instead of e-mails
  'integrations/embed', // the website kit's script
  'integrations/openapi', // the OpenAPI document
  'platform/no-trace', // where processes write
  'platform/readme-recipes', // the README's recipe, on its SQLite demo
  // Not storage, and all the storage they reach runs on PostgreSQL in other files (engine-reach.ts).
  'platform/fuzz', // generated bad requests, refused before storage; the fast-path tier runs it again
  'platform/security', // keys, scopes, headers and refusals of every operation
  'platform/fast-path', // repeated reads answered from memory
  'integrations/openapi-client', // a client generated from the OpenAPI document
  'access/auth', // console login, sessions and CSRF
  'access/secrets', // the sealed-secrets file
  'platform/compiled-once', // statements compiled once per process
  'leads/alerts', // the digests' words, links and pages
  'leads/email-pulls', // IMAP against dovecot
  'leads/email-inbound', // portal e-mails read into leads
  'leads/email-smtp-inbound', // the SMTP listener's protocol
  'catalogue/listing-page-viewings', // the listing page's viewing form
  'catalogue/kyero-feed', // the Kyero XML document
  'catalogue/kyero-languages', // the feed's languages
  'viewings/agenda.console', // the agenda's page
  'leads/lead-edit.api', // PATCH /leads/{id} as a contract
  'console/owner-figures', // the owner's figures page
  'catalogue/listing-editor.console', // the listing editor's form
  'catalogue/listings-table.console', // the catalogue table's page
  'catalogue/listings.console', // the catalogue's pages
  'catalogue/media-objects', // the S3 media store
  'leads/lead-page.console', // the lead's page
  'viewings/viewings.api', // the viewing endpoints as a contract (repositories.test.ts counts on both engines)
  'viewings/viewing-bounds', // a viewing's bounds and refusals
  'messaging/assistant-viewings', // the assistant's viewing dialogue
].map((name) => `test/db/${name}.test.ts`);
/** The db files that only mean something on PostgreSQL: `db-sqlite` leaves them out. */
const POSTGRES_ONLY = ['test/db/platform/postgres-schemas.test.ts'];

/** Unit files the `runtime` project leaves out: tooling and drift checks that no Node version changes, and the photo memory test (sharp's, not Node's). */
const RUNTIME_SKIPS_UNIT = [
  'test/unit/photo-memory.test.ts',
  'test/unit/openapi-tooling.test.ts',
  'test/unit/docs.test.ts',
  'test/unit/architecture.test.ts',
];
/** The db files the `runtime` project runs on SQLite: the ones that reach past JavaScript into Node's runtime. */
const RUNTIME_DB = [
  'platform/worker-crash', // SIGKILL at every step: the binding's durability, child processes
  'platform/shutdown', // signals, draining
  'platform/checkpoints', // the checkpoint thread
  'platform/group-commit',
  'catalogue/bulk-import', // the import and reader threads
  'catalogue/kyero-import',
  'platform/http', // node:http behaviour
  'platform/security',
  'platform/host-header',
  'messaging/email-out', // TLS to a real SMTP server
  'leads/email-pulls', // TLS to a real IMAP server
  'catalogue/media-objects', // the S3 SDK
  'catalogue/photos.console', // sharp through an upload
  'platform/cli', // the CLI as a process
  'platform/worker',
  'platform/compiled-once',
  'viewings/calendar', // ical-generator
  'catalogue/listing-page', // pdfkit, qrcode
  'viewings/visit-sheet.console', // sharp reading a signature, pdfkit drawing it
].map((name) => `test/db/${name}.test.ts`);

const tier = (
  name: string,
  include: string[],
  engine?: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
  exclude: string[] = [],
  extra: { setupFiles?: string[] } = {},
) => ({
  test: {
    name,
    include,
    exclude,
    ...extra,
    ...(engine ? { env: { INMO_TEST_ENGINE: engine, ...env } } : {}),
    pool: 'forks' as const,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll's deadline (vitest's default is 1 s): a condition waited for is given as long as
    // a loaded machine may need. A test that needs longer than its own 30 s says so.
    expect: { poll: { timeout: 30_000 } },
  },
});

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Files share their worker's module cache: the app's modules are loaded once per worker and
    // project, not once per file (on 2 cores, the 131 db files on SQLite took 4.9 min this way;
    // isolated, they had done 64 in 8.5 min). vitest runs the projects one after another then.
    // Each file builds its own app and database; what a module keeps between files (caches keyed
    // by database, counters) must not change what another file sees, and a file that changes
    // process.env or the clock puts them back. Set here, not per project: the pool reads the root's.
    isolate: false,
    maxWorkers: workers,
    // As many as at most: with shared workers (isolate: false) vitest 3.2's pool fails the run
    // at its end when it stops an idle worker below the maximum ("Terminating worker thread").
    minWorkers: workers,
    // The longest files first (test/durations.json), so that no long file starts last.
    sequence: { sequencer: LongestFirst },
    projects: [
      tier('unit', ['test/unit/**/*.test.ts']),
      tier('db-sqlite', ['test/db/**/*.test.ts'], 'sqlite', {}, POSTGRES_ONLY),
      ...(postgres
        ? [
            tier('db-postgres', ['test/db/**/*.test.ts'], 'postgres', {}, reach ? [] : ONCE, {
              setupFiles: reach ? ['test/engine-reach-setup.ts'] : [],
            }),
          ]
        : []),
      // The security and fuzz suites once more, every GET sent twice: their rules hold on the fast
      // path too. Once, on SQLite: the fast path answers from memory, before any engine is asked.
      tier('fast-path', FAST_PATH_SUITES, 'sqlite', { INMO_TEST_FAST_PATH: 'repeat' }),
      tier('browser', ['test/browser/**/*.test.ts'], 'sqlite'),
      // Run by name only (`--project runtime`): .ci/run's Node 24 check.
      ...(process.env.INMO_TEST_RUNTIME === '1'
        ? [tier('runtime', ['test/unit/**/*.test.ts', ...RUNTIME_DB], 'sqlite', {}, RUNTIME_SKIPS_UNIT)]
        : []),
    ],
  },
});
