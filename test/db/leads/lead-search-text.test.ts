/**
 * Migration 0031 (issue 47, CONTRACT §23): the leads that were there before it are found without
 * case or accents too: their `search_text` is filled from their name and e-mail addresses.
 */
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { listLeadChoices, searchLeads, withSearchText } from '../../../src/db/repositories/leads.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { freshDatabaseUrl, freshDb, insertBusinessAtAnyMigration } from '../../helpers/db.ts';

describe('migration 0031: the search text of earlier leads', () => {
  it('fills it from the name and addresses, so that an accent-free search finds them', async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0027_email_out');
      if (error) throw error;
      const business = await insertBusinessAtAnyMigration(db, 'A');
      const at = nowRfc3339();
      const lead = { business_id: business.id, type: 'demandante', status: 'new', active: 1, rating: 3, created_at: at, updated_at: at };
      await db
        .insertInto('leads')
        .values([
          { ...lead, name: 'Íñigo Álvarez', phone_number_1: '+34600000001', personal_email: 'INIGO@correo.example' },
          { ...lead, name: null, phone_number_1: '+34600000002' },
        ])
        .execute();
      await migrate(db);
      const rows = await db.selectFrom('leads').select(['phone_number_1', 'search_text']).orderBy('id').execute();
      expect(rows).toEqual([
        { phone_number_1: '+34600000001', search_text: 'inigo alvarez inigo@correo.example' },
        { phone_number_1: '+34600000002', search_text: null },
      ]);
      const found = await searchLeads(db, business.id, { text: 'alvarez' }, 10, 0);
      expect(found.rows.map((l) => l.phone_number_1)).toEqual(['+34600000001']);
    } finally {
      await db.destroy();
    }
  });
});

describe('lead search by words (issue 57, CONTRACT §25)', () => {
  it('finds a lead by every word typed, in any order, case and accents aside; none when a word is absent', async () => {
    const { db } = await freshDb();
    try {
      const business = await insertBusiness(db, 'Agencia', nowRfc3339());
      const at = nowRfc3339();
      const lead = { business_id: business.id, type: 'demandante', status: 'new', active: 1, rating: 3, created_at: at, updated_at: at };
      const people = [
        { name: 'María García López', phone_number_1: '+34600000001', personal_email: 'maria@correo.example' },
        { name: 'Juan García', phone_number_1: '+34600000002' },
        { name: 'Ana López', phone_number_1: '+34600000003' },
      ];
      await db
        .insertInto('leads')
        .values(people.map((p) => withSearchText({ ...lead, ...p })))
        .execute();
      const found = async (text: string) => (await searchLeads(db, business.id, { text }, 10, 0)).rows.map((l) => l.phone_number_1).sort();
      expect(await found('garcia maria')).toEqual(['+34600000001']);
      expect(await found('López MARÍA')).toEqual(['+34600000001']);
      expect(await found('maria garcia')).toEqual(['+34600000001']);
      expect(await found('garcia')).toEqual(['+34600000001', '+34600000002']);
      expect(await found('lopez')).toEqual(['+34600000001', '+34600000003']);
      expect(await found('garcia ana')).toEqual([]);
      expect(await found('correo.example maria')).toEqual(['+34600000001']);
      // A phone still by its digits, spaces and all.
      expect(await found('600 000 003')).toEqual(['+34600000003']);
      const choices = await listLeadChoices(db, business.id, { text: 'garcia juan' }, 10);
      expect(choices.map((c) => c.phone_number_1)).toEqual(['+34600000002']);
    } finally {
      await db.destroy();
    }
  });
});
