/**
 * 0059: a listing's owner (issue 58 item 1; CONTRACT §24): the `propietario` lead the agency
 * holds the listing for.
 *
 * - properties.owner_lead_id: the owner lead, or null (every existing listing). One owner per
 *   listing, an owner with any number of listings. Erasing the lead (CONTRACT §18) deletes its
 *   row, which unlinks its listings (`on delete set null`): the listing stays the agency's.
 *   Never part of the published document, the feeds or the public pages.
 * - index (owner_lead_id): an owner's listings, and the unlinking at its erasure.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table properties add column owner_lead_id integer references leads(id) on delete set null`.execute(db);
  await sql`create index properties_owner_lead on properties (owner_lead_id) where owner_lead_id is not null`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index properties_owner_lead`.execute(db);
  await sql`alter table properties drop column owner_lead_id`.execute(db);
}
