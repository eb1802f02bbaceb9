/**
 * 0046: the messages an IMAP pull skips for good (issue 55; services/leads/email-pulls.ts).
 *
 * - email_pulls.skipped_uids: JSON `{"validity": "<UIDVALIDITY>", "uids": [UID, …]}`, the messages
 *   of the pulled mailbox found larger than the intake's limit (whatever size the server
 *   announced) or empty: left unseen on the server and never downloaded again while the
 *   mailbox's UIDVALIDITY stays the same. Null until a run skips one.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table email_pulls add column skipped_uids text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table email_pulls drop column skipped_uids`.execute(db);
}
