/**
 * 0054: inbound e-mail addresses that can be shown again (issue 57; CONTRACT §25).
 *
 * - inbound_email_tokens.token_sealed: the token itself, sealed with the installation's secret key
 *   (secrets.ts), so that the console can show the business's address (`<token>@INMO_INBOUND_DOMAIN`
 *   and the webhook URL) whenever it is asked, and e-mails can carry it as their Reply-To. Lookups
 *   still go by `token_hash` alone. Null for tokens made before this migration: they keep working,
 *   but cannot be shown again.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_email_tokens add column token_sealed text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_email_tokens drop column token_sealed`.execute(db);
}
