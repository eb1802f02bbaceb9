/** db/compiled-once.ts: SQL compiled once, values placed by marker, same rows as Kysely's own path. */
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { findLeadByPhone, insertLeadId } from '../../../src/db/repositories/leads.ts';
import { runCompiledOnce } from '../../../src/db/compiled-once.ts';
import { sql } from 'kysely';
import { createDb, migrate } from '../../../src/db/database.ts';
import { ENGINE, freshDatabaseUrl, freshDb } from '../../helpers/db.ts';

describe('runCompiledOnce', () => {
  it('reuses one SQL text with new values in the right places, nulls included', async () => {
    const { db } = await freshDb();
    const { id: businessId } = await insertBusiness(db, 'x', '2026-01-01T00:00:00.000+00:00');
    const base = { business_id: businessId, type: 'demandante', status: 'new', active: 1, rating: 3, created_at: 'a', updated_at: 'b' };
    const first = await insertLeadId(db, { ...base, name: 'Ana', phone_number_1: '+34611111111', source: null });
    const second = await insertLeadId(db, { ...base, name: null, phone_number_1: '+34622222222', source: 'web' });
    expect(await findLeadByPhone(db, businessId, '+34611111111')).toMatchObject({ id: first, name: 'Ana', source: null });
    expect(await findLeadByPhone(db, businessId, '+34622222222')).toMatchObject({ id: second, name: null, source: 'web' });
    expect(await findLeadByPhone(db, businessId, '+34633333333')).toBeUndefined();
    expect(await findLeadByPhone(db, businessId + 1, '+34611111111')).toBeUndefined();
    await db.destroy();
  });

  it('refuses a query whose parameters are not all given as values', async () => {
    const { db } = await freshDb();
    await expect(
      runCompiledOnce(db, 'test:literal', [1], ([id]) =>
        db
          .selectFrom('leads')
          .selectAll()
          .where('id', '=', id as unknown as number)
          .where('status', '=', 'new'),
      ),
    ).rejects.toThrow(/not one of its values/);
    await db.destroy();
  });

  it.runIf(ENGINE === 'postgres')('on PostgreSQL, runs each as a named prepared statement, prepared once per connection', async () => {
    // One connection, so that the session asked is the one that ran the statements.
    const db = createDb(await freshDatabaseUrl(), { poolSize: 1, statementTimeoutMs: 0 });
    try {
      await migrate(db);
      const { id: businessId } = await insertBusiness(db, 'x', '2026-01-01T00:00:00.000+00:00');
      for (const phone of ['+34611111111', '+34622222222', '+34633333333']) await findLeadByPhone(db, businessId, phone);
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db);
      const named = rows.filter((r) => r.name.startsWith('inmo_'));
      expect(named).toHaveLength(1);
      expect(named[0].statement).toMatch(/from "leads"/);
      expect(named[0].name).toMatch(/^inmo_[0-9a-f]{24}$/);
    } finally {
      await db.destroy();
    }
  });
});
