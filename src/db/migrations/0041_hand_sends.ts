/**
 * 0041: listings an agent sends a lead by hand (issue 45, CONTRACT §21 "By hand") are kept as
 * alerts are: a digest (`alert_digests`) carried by one message, with its listings
 * (`alert_items`), so the listings sent, their "No me interesa" and the marks of
 * `GET /leads/{id}/matches` read one set of rows whatever sent them.
 *
 * - alert_digests.origin: `alert` (the daily digest) or `agent` (sent by hand from the lead page).
 * - alert_digests.user_id: the agent who sent it by hand; null for an alert.
 * - The one-digest-per-lead-and-round rule holds for alerts only: an agent may send by hand as
 *   often as needed (`round` is then the local date of the send).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table alert_digests add column origin text not null default 'alert'`.execute(db);
  await sql`alter table alert_digests add column user_id integer references users(id)`.execute(db);
  await sql`drop index alert_digests_once`.execute(db);
  await sql`create unique index alert_digests_once on alert_digests (lead_id, round) where origin = 'alert'`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from alert_digests where origin <> 'alert'`.execute(db);
  await sql`drop index alert_digests_once`.execute(db);
  await sql`create unique index alert_digests_once on alert_digests (lead_id, round)`.execute(db);
  await sql`alter table alert_digests drop column user_id`.execute(db);
  await sql`alter table alert_digests drop column origin`.execute(db);
}
