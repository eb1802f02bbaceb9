/**
 * Migration 0028 (issue 46, CONTRACT §22): listings stored before the import checked their facts
 * keep them in a form the rules accept, in `specs` and in the published document alike, so that
 * an edit that does not touch them (a status moved in the console) is never refused for them;
 * listings whose facts already kept the rules, and those without facts, are left byte for byte.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { moveListing } from '../../../src/services/catalogue/listings.ts';
import { freshDatabaseUrl, insertBusinessAtAnyMigration } from '../../helpers/db.ts';

/** A listing row as the tables held it at migration 0027, with its published document. */
async function storedListing(db: ReturnType<typeof createDb>, businessId: number, ref: string, specs: Record<string, unknown> | null) {
  const at = '2026-01-01T00:00:00.000+00:00';
  const { rows } = await sql<{ id: number }>`insert into properties (business_id, listed, public, status, op_venta, op_alquiler,
      op_traspaso, is_featured, created_at, updated_at, imported_at, external_ref, address_privacy, operation, title, specs)
    values (${businessId}, 1, 1, 'disponible', 1, 0, 0, 0, ${at}, ${at}, ${at}, ${ref}, 'hidden', 'venta', ${`Piso ${ref}`},
      ${specs === null ? null : JSON.stringify(specs)}) returning id`.execute(db);
  const id = rows[0].id;
  const doc = { operation: 'venta', title: `Piso ${ref}`, specs: { ...specs, price_calc: { price_alq: null, price_trasp: null } } };
  await sql`insert into property_docs (property_id, api_doc) values (${id}, ${JSON.stringify(doc)})`.execute(db);
  return id;
}

const stored = async (db: ReturnType<typeof createDb>, id: number) =>
  (
    await sql<{ specs: string | null; api_doc: string }>`select p.specs, d.api_doc from properties p join property_docs d
    on d.property_id = p.id where p.id = ${id}`.execute(db)
  ).rows[0];

describe('migration 0028: facts stored before they were checked', () => {
  it('gives a condition in other words its term, keeps a value that breaks its rule aside, and leaves valid listings alone', async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0027_email_out');
      if (error) throw error;
      const business = await insertBusinessAtAnyMigration(db, 'A');
      const demo = await storedListing(db, business.id, 'DEMO', { condition: 'reformado', district: 'Centro', floor: '2' });
      const odd = await storedListing(db, business.id, 'ODD', {
        floor: 'Ground floor',
        year_built: 'hace mucho',
        condition: 'seminuevo',
        energy_certificate: { status: 'available', rating: 'C' },
        community_fees: -5,
      });
      const fine = await storedListing(db, business.id, 'FINE', { floor: 'bj', condition: 'a-reformar', district: 'Delicias' });
      const none = await storedListing(db, business.id, 'NONE', null);
      const before = { fine: await stored(db, fine), none: await stored(db, none) };

      await migrate(db);

      const demoNow = await stored(db, demo);
      expect(demoNow.specs).toBe('{"condition":"buen-estado","district":"Centro","floor":"2"}');
      expect(JSON.parse(demoNow.api_doc).specs).toEqual({
        condition: 'buen-estado',
        district: 'Centro',
        floor: '2',
        price_calc: { price_alq: null, price_trasp: null },
      });
      expect(JSON.parse((await stored(db, odd)).specs!)).toEqual({
        floor: 'Ground floor',
        year_built_as_imported: 'hace mucho',
        condition_as_imported: 'seminuevo',
        energy_certificate: { status: 'available', rating: 'C', consumption_kwh_m2_year: null, emissions_kg_co2_m2_year: null },
        community_fees_as_imported: -5,
      });
      expect(await stored(db, fine)).toEqual(before.fine);
      expect(await stored(db, none)).toEqual(before.none);
      const columns = await db.selectFrom('properties').select(['titles', 'descriptions']).where('id', '=', demo).executeTakeFirstOrThrow();
      expect(columns).toEqual({ titles: null, descriptions: null });

      // Both edit as any listing now: the move is written, with the facts as they were settled.
      await moveListing(db, business.id, demo, 'reservada', { type: 'user', id: 1 });
      await moveListing(db, business.id, odd, 'reservada', { type: 'user', id: 1 });
      const statuses = await db.selectFrom('properties').select('status').where('id', 'in', [demo, odd]).execute();
      expect(statuses.map((r) => r.status)).toEqual(['reservada', 'reservada']);
    } finally {
      await db.destroy();
    }
  });
});
