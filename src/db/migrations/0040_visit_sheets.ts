/**
 * 0040: visit sheets ("hojas de visita", issue 44 item 6, CONTRACT §20).
 *
 * - businesses.visit_sheet_clause: the agency's clause printed on every visit sheet (the console's
 *   settings page); null: the default clause in Spanish (domain/viewings/visit-sheet.ts).
 * - visit_sheets: the sheet a visitor signed on the agent's screen, one per viewing: the
 *   visitor's name, document type (`dni`, `nie` or `other`: a passport or another identity
 *   document) and number (normalised: upper case, no spaces or dashes), the signature as PNG bytes
 *   (`bytea` on PostgreSQL, `blob` on SQLite; re-encoded by inmo, 256 KB at most), the clause as
 *   it read when signed (what the visitor agreed to stays what it was, whatever the setting
 *   becomes), when it was signed and the console user who collected it. Personal data (CONTRACT
 *   §18): gone with its viewing, and so with its lead (`on delete cascade`), and deleted by the
 *   lead's erasure explicitly too (db/repositories/erasure.ts).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql, PostgresAdapter } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`alter table businesses add column visit_sheet_clause text`.execute(db);
  await sql`create table visit_sheets (
    viewing_id integer primary key references viewings(id) on delete cascade,
    business_id integer not null references businesses(id),
    visitor_name text not null,
    document_type text not null check (document_type in ('dni', 'nie', 'other')),
    document_number text not null,
    signature_png ${postgres ? sql`bytea` : sql`blob`} not null,
    clause text not null,
    signed_at text not null,
    user_id integer not null references users(id)
  )`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table visit_sheets`.execute(db);
  await sql`alter table businesses drop column visit_sheet_clause`.execute(db);
}
