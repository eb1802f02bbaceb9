/**
 * Migration 0021 (issue 41, CONTRACT §14): photos stored before stored media were owned are
 * recorded from the images that link to them, each as its own listing's, and only there: an
 * image whose URL ends in another listing's key (an import's, any host) claims nothing.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { freshDatabaseUrl, insertBusinessAtAnyMigration } from '../../helpers/db.ts';

const AT = '2026-01-01T00:00:00.000+00:00';

describe('migration 0021: stored media of earlier photos', () => {
  it("records an earlier photo's three widths for the listing its key names, and nothing for another listing's image", async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0020_lead_version');
      if (error) throw error;
      const a = await insertBusinessAtAnyMigration(db, 'A');
      const b = await insertBusinessAtAnyMigration(db, 'B');
      // Rows as that migration's schema had them: today's import writes columns added since.
      const stored = async (businessId: number, ref: string) =>
        (
          await sql<{ id: number }>`insert into properties (business_id, listed, public, status, op_venta, op_alquiler,
            op_traspaso, is_featured, created_at, updated_at, imported_at, external_ref, address_privacy, operation, title)
          values (${businessId}, 1, 1, 'disponible', 1, 0, 0, 0, ${AT}, ${AT}, ${AT}, ${ref}, 'hidden', 'venta', ${ref})
          returning id`.execute(db)
        ).rows[0].id;
      const [ours, theirs] = [await stored(a.id, 'A-1'), await stored(b.id, 'B-1')];
      const uuid = '0d4f8a52-5c9e-4a31-9d55-1a2b3c4d5e6f';
      const own = `https://inmo.example/media/p/${ours}/${uuid}-1600.jpg`;
      const image = { sort_order: 0, is_primary: 1, title: null, public: 1 };
      await db
        .insertInto('property_images')
        .values([
          { ...image, property_id: ours, url: own },
          { ...image, property_id: ours, url: own },
          { ...image, property_id: ours, url: 'https://img.example/x.jpg' },
          // B's images name keys of A's listing (any host): not B's.
          { ...image, property_id: theirs, url: `https://elsewhere.example/p/${ours}/${uuid}-1600.jpg` },
          { ...image, property_id: theirs, url: `https://inmo.example/media/p/${ours}/7c9e6679-7425-40de-944b-e07fc1f90ae7-1600.jpg` },
        ])
        .execute();
      await migrate(db);
      const rows = await db.selectFrom('media_objects').select(['key', 'business_id', 'property_id', 'url']).orderBy('key').execute();
      expect(rows).toEqual(
        [480, 960, 1600]
          .map((w) => ({ key: `p/${ours}/${uuid}-${w}.jpg`, business_id: a.id, property_id: ours, url: own }))
          .sort((x, y) => (x.key < y.key ? -1 : 1)),
      );
    } finally {
      await db.destroy();
    }
  });
});
