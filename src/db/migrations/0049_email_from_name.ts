/**
 * 0049: the display name of a business's From address (issue 57; CONTRACT §19).
 *
 * - email_settings.from_name: the display name `inmo email connect --from` or the console's e-mail
 *   page was given with the address (`Agencia Sol <hola@agencia.example>`), shown in the From
 *   header; null when only the address was given (the business's name is shown).
 *   `from_address` stays the address alone (the envelope's sender, the feeds' contact).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table email_settings add column from_name text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table email_settings drop column from_name`.execute(db);
}
