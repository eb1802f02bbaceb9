/**
 * Migration 0021 (issue 41, CONTRACT §14): photos stored before stored media were owned are
 * recorded from the images that link to them, each as its own listing's, and only there: an
 * image whose URL ends in another listing's key (an import's, any host) claims nothing.
 */
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../src/db/database.ts';
import { migrationProvider } from '../../src/db/migrations/index.ts';
import { insertBusiness } from '../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../src/domain/time.ts';
import { freshDatabaseUrl, importRecords, listing, propertyId } from '../helpers/db.ts';

describe('migration 0021: stored media of earlier photos', () => {
  it("records an earlier photo's three widths for the listing its key names, and nothing for another listing's image", async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0020_lead_version');
      if (error) throw error;
      const a = await insertBusiness(db, 'A', nowRfc3339());
      const b = await insertBusiness(db, 'B', nowRfc3339());
      await importRecords(db, a.id, [listing('A-1')]);
      await importRecords(db, b.id, [listing('B-1')]);
      const [ours, theirs] = [await propertyId(db, 'A-1'), await propertyId(db, 'B-1')];
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
