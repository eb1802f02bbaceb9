/**
 * Migration 0041 (issue 45, CONTRACT §21 "By hand"), on both engines: alert digests stored before
 * it become of origin `alert`, still one per lead and round; digests an agent sends by hand may be
 * many on one day; and it goes down again, leaving the alerts as they were.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { freshDatabaseUrl, insertBusinessAtAnyMigration } from '../../helpers/db.ts';

describe('migration 0041: digests sent by hand', () => {
  it('keeps the alerts one per lead and round, lets an agent send many a day, and goes down again', async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const migrator = new Migrator({ db, provider: migrationProvider });
      const { error } = await migrator.migrateTo('0038_listing_closings');
      if (error) throw error;
      const business = await insertBusinessAtAnyMigration(db, 'A');
      const at = '2026-01-01T00:00:00.000+00:00';
      await sql`insert into leads (business_id, type, status, active, phone_number_1, rating, created_at, updated_at)
        values (${business.id}, 'demandante', 'searching_property', 1, '+34600000001', 3, ${at}, ${at})`.execute(db);
      const { id: leadId } = await db.selectFrom('leads').select('id').executeTakeFirstOrThrow();
      await sql`insert into alert_digests (business_id, lead_id, round, created_at) values (${business.id}, ${leadId}, '2026-01-01', ${at})`.execute(
        db,
      );

      await migrate(db);

      expect(await db.selectFrom('alert_digests').select(['origin', 'user_id']).execute()).toEqual([{ origin: 'alert', user_id: null }]);
      const digest = (origin: string) =>
        sql`insert into alert_digests (business_id, lead_id, round, origin, created_at) values (${business.id}, ${leadId}, '2026-01-01', ${origin}, ${at})`.execute(
          db,
        );
      await expect(digest('alert')).rejects.toThrow();
      await digest('agent');
      await digest('agent');
      expect(await db.selectFrom('alert_digests').select('id').execute()).toHaveLength(3);

      const down = await migrator.migrateTo('0038_listing_closings');
      if (down.error) throw down.error;
      const left = await sql<{ round: string }>`select round from alert_digests`.execute(db);
      expect(left.rows).toEqual([{ round: '2026-01-01' }]);
    } finally {
      await db.destroy();
    }
  });
});
