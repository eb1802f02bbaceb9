/**
 * Migration 0051 (issue 57 item 9, CONTRACT §21), on both engines: the listings leads matched
 * before it get their reference price, today's, read from the first operation the listing offers
 * with a price (near misses get none); it goes down again.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { freshDatabaseUrl, importRecords, insertBusinessAtAnyMigration, listing, propertyId } from '../../helpers/db.ts';

describe('migration 0051: price drops', () => {
  it('gives the matches stored before it their price as reference, and goes down again', async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const migrator = new Migrator({ db, provider: migrationProvider });
      const { error } = await migrator.migrateTo('0047_viewing_requests');
      if (error) throw error;
      const business = await insertBusinessAtAnyMigration(db, 'A');
      await importRecords(db, business.id, [
        listing('FLAT-1', { price: 150_000 }),
        listing('RENT-1', { operation: 'alquiler', price: null, price_rent: 900 }),
        listing('NEAR-1', { price: 250_000 }),
      ]);
      const at = '2026-01-01T00:00:00.000+00:00';
      await sql`insert into leads (business_id, type, status, active, phone_number_1, rating, created_at, updated_at)
        values (${business.id}, 'demandante', 'searching_property', 1, '+34600000001', 3, ${at}, ${at})`.execute(db);
      const { id: leadId } = await db.selectFrom('leads').select('id').executeTakeFirstOrThrow();
      const [flat, rent, near] = [await propertyId(db, 'FLAT-1'), await propertyId(db, 'RENT-1'), await propertyId(db, 'NEAR-1')];
      await sql`insert into lead_matches (lead_id, search_index, property_id, failed) values
        (${leadId}, 0, ${flat}, null), (${leadId}, 1, ${flat}, null), (${leadId}, 1, ${rent}, null), (${leadId}, 0, ${near}, 'price')`.execute(
        db,
      );
      await sql`insert into lead_match_runs (lead_id, catalogue_version, matched_at, matches_total, near_misses_total)
        values (${leadId}, 1, ${at}, 2, 1)`.execute(db);

      await migrate(db);

      expect(
        await db
          .selectFrom('alert_match_prices')
          .select(['lead_id', 'property_id', 'business_id', 'price_field', 'price', 'created_at'])
          .orderBy('property_id')
          .execute(),
      ).toEqual([
        { lead_id: leadId, property_id: flat, business_id: business.id, price_field: 'price', price: 150_000, created_at: at },
        { lead_id: leadId, property_id: rent, business_id: business.id, price_field: 'price_rent', price: 900, created_at: at },
      ]);
      expect(await db.selectFrom('alert_items').select('price_before').execute()).toEqual([]);

      const down = await migrator.migrateTo('0047_viewing_requests');
      if (down.error) throw down.error;
      await expect(sql`select 1 from alert_match_prices`.execute(db)).rejects.toThrow();
      await expect(sql`select price_before from alert_items`.execute(db)).rejects.toThrow();
    } finally {
      await db.destroy();
    }
  });
});
