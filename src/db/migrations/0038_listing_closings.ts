/**
 * 0038: the price and the day of a listing's sale or rental, asked when the console marks it
 * sold or rented (issue 47, CONTRACT §23), kept for the owner's figures.
 *
 * - properties.closed_price: the price it was sold for, or the rent a month it was let for, €;
 *   null when none was recorded (sold by an import or a feed, or before this migration).
 * - properties.closed_on: the day of the sale or rental in the business's time zone
 *   (`YYYY-MM-DD`); null as above.
 *
 * Both are cleared when the listing's status changes again (db/repositories/properties.ts).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table properties add column closed_price double precision`.execute(db);
  await sql`alter table properties add column closed_on text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table properties drop column closed_on`.execute(db);
  await sql`alter table properties drop column closed_price`.execute(db);
}
