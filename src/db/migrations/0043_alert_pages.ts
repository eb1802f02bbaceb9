/**
 * 0043: the page of an alert digest sent by WhatsApp (issue 45, CONTRACT §21): the template
 * carries one link, `/d/<token>`, to a public page with the digest's listings.
 *
 * - alert_digests.page_token_hash: the SHA-256 (hex) of that page's token (256 random bits,
 *   base64url), written when the template's send is claimed; unique. Only the hash is kept, so
 *   the database alone cannot make a link. Null for a digest sent by e-mail (its listings are in
 *   the e-mail itself) and for one not claimed yet.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table alert_digests add column page_token_hash text`.execute(db);
  await sql`create unique index alert_digests_page on alert_digests (page_token_hash)`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index alert_digests_page`.execute(db);
  await sql`alter table alert_digests drop column page_token_hash`.execute(db);
}
