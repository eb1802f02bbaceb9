/**
 * 0044: what reading a message not understood found (issue 55), so that the console's page of
 * it does not read its bytes again at every view.
 *
 * - inbound_emails.reading: JSON `{text, found}` written when a message settles as
 *   `not_understood` (its text part, else its HTML part as text, and what the parsers found:
 *   `{name, phone, email, message, reference, source}`, or null when it could not be read);
 *   null in every other state, and for messages settled before this migration (read once more
 *   when shown). Personal data: kept and erased with the message's bytes.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_emails add column reading text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_emails drop column reading`.execute(db);
}
