/**
 * 0029: idealista feeds (issue 46, CONTRACT §22).
 *
 * - published_feeds.customer_code: the idealista customer code (`ilc` and 40 lower-case letters
 *   or digits) a feed of format `idealista` writes as its document's `customerCode`; null for
 *   other formats. Not a secret: idealista names the agency by it in the document itself.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table published_feeds add column customer_code text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table published_feeds drop column customer_code`.execute(db);
}
