/**
 * 0045: who is believed (issue 55, CONTRACT §18, §19, §22).
 *
 * - lead_consents.verified: 1 when the record was given by the person or the agency (a secret
 *   key, the console, the person's own unsubscribe link, a new lead's first consent); 0 when it
 *   was carried by a request that cannot prove it comes from the person (a publishable key, the
 *   listing page's forms, a portal e-mail) about a lead already known. Such a record's
 *   `marketing` and `whatsapp` hold what took effect: what it said, never more than the record
 *   before it allowed (a refusal applies, a "yes" never lifts an earlier refusal); and
 *   `carried_marketing`, `carried_whatsapp` (0/1) what it said. Null on verified records.
 * - leads.contact_verified: 0 when the lead's phone and e-mail address came from such a request
 *   (a publishable key, the listing page's forms, a portal e-mail inmo could not verify): no
 *   automatic e-mail goes to that address (no welcome by e-mail, no fallback). 1 otherwise.
 * - inbound_emails.trust: what inmo believed of a message it read: `portal` (the portal's own
 *   domain passed DKIM or DMARC at the receiving server), `agency` (forwarded from one of the
 *   agency's own addresses, which passed), `unverified` (anything else: read by the generic
 *   reader, its lead marked). Null until read, and for messages read before this migration.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table lead_consents add column verified integer not null default 1`.execute(db);
  await sql`alter table lead_consents add column carried_marketing integer`.execute(db);
  await sql`alter table lead_consents add column carried_whatsapp integer`.execute(db);
  await sql`alter table leads add column contact_verified integer not null default 1`.execute(db);
  await sql`alter table inbound_emails add column trust text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table inbound_emails drop column trust`.execute(db);
  await sql`alter table leads drop column contact_verified`.execute(db);
  await sql`alter table lead_consents drop column carried_whatsapp`.execute(db);
  await sql`alter table lead_consents drop column carried_marketing`.execute(db);
  await sql`alter table lead_consents drop column verified`.execute(db);
}
