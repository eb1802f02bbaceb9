/**
 * Migration 0037 (issue 45, CONTRACT §21): every listing stored before listings had public pages
 * gets its page token, 32 random hex characters of its own, on both engines; a listing inserted
 * afterwards by the catalogue's write path gets one as it is inserted.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { freshDatabaseUrl, importRecords, insertBusinessAtAnyMigration, listing } from '../../helpers/db.ts';

describe('migration 0037: a page token for every listing', () => {
  it('gives each listing already stored a token of its own, and a new listing its own as it is inserted', async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0034_follow_up_snooze');
      if (error) throw error;
      const business = await insertBusinessAtAnyMigration(db, 'A');
      const at = '2026-01-01T00:00:00.000+00:00';
      for (const ref of ['UNO', 'DOS', 'TRES'])
        await sql`insert into properties (business_id, listed, public, status, op_venta, op_alquiler, op_traspaso, is_featured,
            created_at, updated_at, imported_at, external_ref, address_privacy, operation, title)
          values (${business.id}, 1, 1, 'disponible', 1, 0, 0, 0, ${at}, ${at}, ${at}, ${ref}, 'hidden', 'venta', ${ref})`.execute(db);

      await migrate(db);

      const tokens = await db.selectFrom('property_pages').select(['property_id', 'token']).execute();
      expect(tokens).toHaveLength(3);
      for (const { token } of tokens) expect(token).toMatch(/^[0-9a-f]{32}$/);
      expect(new Set(tokens.map((t) => t.token)).size).toBe(3);

      expect((await importRecords(db, business.id, [listing('CUATRO')])).rejected).toEqual([]);
      const all = await db.selectFrom('property_pages').select('token').execute();
      expect(new Set(all.map((t) => t.token)).size).toBe(4);
    } finally {
      await db.destroy();
    }
  });
});
