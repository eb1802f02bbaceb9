/** db/compiled-once.ts: SQL compiled once, values placed by marker, same rows as Kysely's own path. */
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { findLeadByPhone, insertLeadId } from '../src/db/repositories/leads.ts';
import { runCompiledOnce } from '../src/db/compiled-once.ts';
import { freshDb } from './helpers/db.ts';

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
});
