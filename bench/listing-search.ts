/**
 * The console's listing search (issue 47, CONTRACT §14, §23), `npm run bench -- --only
 * listing-search`: `/console/properties?q=` on a catalogue of 203,090 listings of one business
 * (the real catalogues of `INMO_BENCH_DATA`, 20,309 lines, imported 10 times under distinct
 * references), on SQLite and (when it answers) PostgreSQL, in process through the repository
 * the page calls (db/repositories/properties.ts `searchListings`: the count and the first page
 * of 50).
 *
 * - **With the index** (migration 0033): SQLite's FTS5 trigram index for 3 characters or more,
 *   PostgreSQL's pg_trgm GIN index under `LIKE`.
 * - **Without it**, same run: the same count and page with one `search_text LIKE '%…%'` per word
 *   typed (issue 57) read row by row (on PostgreSQL with the GIN index dropped inside a
 *   transaction that is rolled back).
 * - **Before issue 47**, same run: `lower(column) LIKE` over reference, title, address and city,
 *   as the page searched until then (it does not ignore accents: "rios rosas" found nothing).
 * - Baseline: the page without `q` (the count of every listing and the newest 50).
 * - The engine's plan of the indexed statements, and what keeping the index costs an import:
 *   20,309 new listings imported into the full catalogue with the index, then without it.
 *
 * Prints p50 and max in ms per query, the matches, and the ratios to the row-by-row search and
 * to the unsearched page.
 */
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, sql, type Transaction } from 'kysely';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { likeLiteral } from '../src/db/like.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { compiledListingSearch, searchListings, SUMMARY_COLUMNS } from '../src/db/repositories/properties.ts';
import type { Database } from '../src/db/types.ts';
import { searchWords } from '../src/domain/search-text.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { importCatalogueLines } from '../src/services/catalogue/import/import.ts';
import { emptyPostgresSchema } from './engines.ts';

/** Times the real catalogues are imported, each time under other references. */
const COPIES = 10;
const PAGE = 50;
const RUNS = 20;
const SCAN_RUNS = 8;
const WARM_UP = 2;

/** What is typed: rare to nearly every listing; accents left out as people type them; several words, in any order (issue 57). */
const QUERIES = [
  'malaga',
  '35754175',
  'rios rosas',
  'chamberi',
  'vallecas',
  'madrid',
  'ab',
  'atico chamberi',
  'chamberi atico',
  'calle 12',
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(0));

/** p50 and max of `runs` calls of `fn` after the warm-up, ms. */
async function timed(runs: number, fn: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  for (let i = 0; i < WARM_UP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), max: samples.at(-1)! };
}

/** The lines of the real catalogues with every reference suffixed by `#<copy>` (copy 0: as they are). */
function copyOf(lines: string[], copy: number): string[] {
  if (copy === 0) return lines;
  return lines.map((line) => {
    const record = JSON.parse(line) as { external_ref: string };
    return JSON.stringify({ ...record, external_ref: `${record.external_ref}#${copy}` });
  });
}

type Executor = Db | Transaction<Database>;

/** The page's count and first page, narrowed by `where`, as searchListings reads them. */
async function countAndPage(db: Executor, businessId: number, where: ReturnType<typeof sql<boolean>> | null) {
  let query = db.selectFrom('properties').where('business_id', '=', businessId);
  if (where !== null) query = query.where(where);
  const { n } = await query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  await query
    .select([...SUMMARY_COLUMNS, 'status', 'public', 'is_featured', 'listed', 'operation', 'type', 'subtype', 'imported_at'])
    .orderBy('imported_at', 'desc')
    .orderBy('id', 'desc')
    .limit(PAGE)
    .execute();
  return Number(n);
}

/** `search_text LIKE` for each word, row by row: the search without its index. */
const scanned = (text: string) =>
  sql<boolean>`(${sql.join(
    searchWords(text).map((word) => sql`search_text like ${`%${likeLiteral(word)}%`} escape '\\'`),
    sql` and `,
  )})`;

/** The page's search before issue 47: `lower(column) LIKE` over four columns, accents as typed. */
const before47 = (text: string) => {
  const pattern = `%${likeLiteral(text.toLowerCase())}%`;
  return sql<boolean>`(${sql.join(
    (['external_ref', 'title', 'address', 'city'] as const).map((c) => sql`lower(${sql.ref(c)}) like ${pattern} escape '\\'`),
    sql` or `,
  )})`;
};

/** The engine's plan of a compiled statement, one line per step (PostgreSQL's as run: `explain analyze`). */
async function planOf(db: Db, compiled: { sql: string; parameters: readonly unknown[] }): Promise<string[]> {
  const explain = db.engine === 'sqlite' ? 'explain query plan ' : 'explain (analyze, costs off, timing off, summary off) ';
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]));
  return result.rows.map((row) => String(row.detail ?? row['QUERY PLAN']).trim());
}

/** One engine's rows of the report. */
async function onEngine(engine: string, url: string, lines: string[]): Promise<string[]> {
  const db = createDb(url);
  const out: string[] = [];
  try {
    await migrate(db);
    const businessId = (await insertBusiness(db, 'Bench listing search', nowRfc3339())).id;
    const rates: number[] = [];
    for (let copy = 0; copy < COPIES; copy++) {
      process.stderr.write(`listing-search: ${engine}: importing copy ${copy + 1} of ${COPIES}\n`);
      const started = performance.now();
      await importCatalogueLines(db, businessId, copyOf(lines, copy));
      rates.push(lines.length / ((performance.now() - started) / 1000));
    }
    if (db.engine === 'postgres') await sql`analyze properties`.execute(db);
    const total = COPIES * lines.length;
    const unsearched = await timed(RUNS, () => countAndPage(db, businessId, null));
    out.push(
      '',
      `${engine}: ${total.toLocaleString('en')} listings of one business; import ${Math.round(rates[0]).toLocaleString('en')} listings/s into the empty catalogue, ${Math.round(rates.slice(1).reduce((a, b) => a + b, 0) / (COPIES - 1)).toLocaleString('en')}/s on average for the 9 after; the page without q: p50 ${ms(unsearched.p50)} ms, max ${ms(unsearched.max)} ms`,
      '| engine | q | matches | with index p50 ms | max ms | row by row p50 ms | max ms | row by row ÷ index | index ÷ page without q | before #47 p50 ms (matches) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    const measured = new Map<string, { matches: number; indexed: { p50: number; max: number } }>();
    for (const q of QUERIES) {
      let matches = 0;
      const indexed = await timed(RUNS, async () => {
        matches = (await searchListings(db, businessId, { text: q }, PAGE, 0)).total;
      });
      measured.set(q, { matches, indexed });
    }
    // Row by row: on PostgreSQL the GIN index is dropped in a transaction rolled back afterwards.
    const withoutIndex = new Map<string, { p50: number; max: number }>();
    const rowByRow = async (executor: Executor) => {
      for (const q of QUERIES) {
        let matches = 0;
        withoutIndex.set(
          q,
          await timed(SCAN_RUNS, async () => {
            matches = await countAndPage(executor, businessId, scanned(q));
          }),
        );
        if (matches !== measured.get(q)!.matches)
          throw new Error(`"${q}": ${matches} row by row, ${measured.get(q)!.matches} by the index`);
      }
    };
    if (db.engine === 'postgres') {
      await db
        .transaction()
        .execute(async (trx) => {
          await sql`drop index properties_search_text_trgm`.execute(trx);
          await rowByRow(trx);
          throw new RolledBack();
        })
        .catch((error: unknown) => {
          if (!(error instanceof RolledBack)) throw error;
        });
    } else await rowByRow(db);
    for (const q of QUERIES) {
      let old = 0;
      const before = await timed(SCAN_RUNS, async () => {
        old = await countAndPage(db, businessId, before47(q));
      });
      const { matches, indexed } = measured.get(q)!;
      const scan = withoutIndex.get(q)!;
      const short = searchWords(q).filter((word) => [...word].length < 3).length;
      const path =
        short === 0 || db.engine === 'postgres'
          ? ''
          : short === searchWords(q).length
            ? ' (under 3 characters: row by row)'
            : ' (a word under 3 characters: LIKE in the rows the index names)';
      out.push(
        `| ${engine} | ${q}${path} | ${matches.toLocaleString('en')} | ${ms(indexed.p50)} | ${ms(indexed.max)} | ${ms(scan.p50)} | ${ms(scan.max)} | ${(scan.p50 / indexed.p50).toFixed(1)} | ${(indexed.p50 / unsearched.p50).toFixed(2)} | ${ms(before.p50)} (${old.toLocaleString('en')}) |`,
      );
    }
    for (const q of ['chamberi', 'ab', 'atico chamberi', 'calle 12']) {
      const { count, page } = await compiledListingSearch(db, businessId, { text: q }, PAGE, 0);
      out.push(`${engine} plan of the count for q=${q}: ${(await planOf(db, count)).join(' / ')}`);
      out.push(`${engine} plan of the page for q=${q}: ${(await planOf(db, page)).join(' / ')}`);
    }
    // What the index costs a write: 20,309 new listings into the full catalogue, with it, then without.
    let started = performance.now();
    await importCatalogueLines(db, businessId, copyOf(lines, COPIES));
    const withRate = lines.length / ((performance.now() - started) / 1000);
    if (db.engine === 'postgres') await sql`drop index properties_search_text_trgm`.execute(db);
    else {
      for (const trigger of ['properties_fts_insert', 'properties_fts_delete', 'properties_fts_update'])
        await sql`drop trigger ${sql.id(trigger)}`.execute(db);
      await sql`drop table properties_fts`.execute(db);
    }
    started = performance.now();
    await importCatalogueLines(db, businessId, copyOf(lines, COPIES + 1));
    const withoutRate = lines.length / ((performance.now() - started) / 1000);
    out.push(
      `${engine} import of ${lines.length.toLocaleString('en')} new listings into the full catalogue: ${Math.round(withRate).toLocaleString('en')} listings/s with the index kept in step, ${Math.round(withoutRate).toLocaleString('en')}/s without it (${(withoutRate / withRate).toFixed(2)}×)`,
    );
  } finally {
    await db.destroy();
  }
  return out;
}

class RolledBack extends Error {}

/** Runs the part; returns the report's lines. */
export async function listingSearchBench(work: string, data: string, catalogues: readonly string[]): Promise<string[]> {
  const lines = catalogues.flatMap((file) =>
    readFileSync(join(data, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== ''),
  );
  const sqlitePath = join(work, 'listing-search.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath + suffix, { force: true });
  const engines: Array<[string, string | null]> = [
    ['sqlite', `sqlite:${sqlitePath}`],
    ['postgres', await emptyPostgresSchema('listing_search')],
  ];
  const out = [
    `listing search: /console/properties?q= in process (count + first page of ${PAGE}), ${RUNS} runs with the index and ${SCAN_RUNS} row by row after ${WARM_UP} of warm-up; baselines in the same run`,
  ];
  for (const [engine, url] of engines) {
    if (url === null) {
      out.push(`${engine}: skipped, the server did not answer (INMO_BENCH_POSTGRES_URL)`);
      continue;
    }
    out.push(...(await onEngine(engine, url, lines)));
  }
  const [load] = loadavg();
  out.push(`load average when done: ${load.toFixed(1)} on ${cpus().length} CPUs`);
  rmSync(sqlitePath, { force: true });
  return out;
}
