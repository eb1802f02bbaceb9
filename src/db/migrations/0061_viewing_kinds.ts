/**
 * 0061: a viewing's kind (issue 58 item 2; CONTRACT §20, §24).
 *
 * - viewings.kind: `visit` (a lead sees a listing, every viewing so far) or `valuation` (an agent
 *   visits an owner's home to value it: the owner is the lead, the listing is the owner's).
 * - index (lead_id, kind) of valuations: an owner's open valuations are read when one is cancelled,
 *   to know whether the owner still has one booked.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table viewings add column kind text not null default 'visit' check (kind in ('visit', 'valuation'))`.execute(db);
  await sql`create index viewings_valuations on viewings (lead_id) where kind = 'valuation'`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index viewings_valuations`.execute(db);
  await sql`alter table viewings drop column kind`.execute(db);
}
