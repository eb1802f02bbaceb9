/**
 * 0048: the listing a portal e-mail was about (issue 57 item 1), so that the lead's page says it.
 *
 * - inbound_emails.property_id: the business's listing the message named (its reference in a
 *   label, a sentence, brackets or the subject, a link to its page or website, or a word of the
 *   text that is one of the business's references; services/leads/email-intake.ts), set when the
 *   message made a lead or was added to one; null when it named none, and for messages read
 *   before this migration. No foreign key: a listing deleted later leaves the message's number,
 *   which then names nothing.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_emails add column property_id integer`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_emails drop column property_id`.execute(db);
}
