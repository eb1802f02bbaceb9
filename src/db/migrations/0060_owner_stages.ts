/**
 * 0060: the owner pipeline (issue 58 item 2; CONTRACT §24, "captación").
 *
 * - leads.owner_stage: where the agency stands with an owner lead (`propietario`): `new`,
 *   `valuation_scheduled`, `valued`, `mandate_signed`, `lost`; null for every other lead, and for
 *   an owner never moved, which is `new`. Beside `status`, which keeps the spec's values.
 * - index (business_id, type) of `propietario` leads: the board of /console/owners reads a business's owners.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table leads add column owner_stage text check (owner_stage in ('new', 'valuation_scheduled', 'valued', 'mandate_signed', 'lost'))`.execute(
    db,
  );
  await sql`create index leads_owner_board on leads (business_id, type) where type = 'propietario'`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index leads_owner_board`.execute(db);
  await sql`alter table leads drop column owner_stage`.execute(db);
}
