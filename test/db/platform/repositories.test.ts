/**
 * Repository functions on both engines, without HTTP (issue 56 item 6): those that only files run
 * once (vitest.config.ts `ONCE`) reached otherwise, each called as its service calls it and
 * checked against the rows. scripts/engine-reach.ts names what belongs here.
 */
import { describe, expect, it } from 'vitest';
import { findLead, updateSearchPreferences } from '../../../src/db/repositories/leads.ts';
import { forgetMediaObjects, ownedMediaKeys, recordMediaObjects } from '../../../src/db/repositories/media.ts';
import { deleteImages } from '../../../src/db/repositories/properties.ts';
import { countViewings, deleteViewing, findUserDisplayName, insertViewing } from '../../../src/db/repositories/viewings.ts';
import { createUser, renameUser } from '../../../src/services/access/console-users.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { businessWithKey, freshDb, importRecords, listing, propertyId } from '../../helpers/db.ts';

async function world() {
  const { db } = await freshDb();
  const { businessId } = await businessWithKey(db, 'Inmobiliaria Repos');
  const other = await businessWithKey(db, 'Otra');
  const photo = (ref: string) => ({ images: [{ url: `https://img.example/${ref}.jpg`, order: 0 }] });
  await importRecords(db, businessId, [listing('R-1', photo('R-1')), listing('R-2', photo('R-2'))]);
  return { db, businessId, other: other.businessId };
}

describe('viewings', () => {
  it("counts a business's viewings by lead, listing, agent and [from, to); deletes one; names a user of the business only", async () => {
    const { db, businessId, other } = await world();
    try {
      const ana = await createUser(db, { businessId, email: 'ana@repos.example', role: 'agent' });
      await renameUser(db, businessId, ana.id, 'Ana Ruiz');
      const lead = await createLeadByHand(db, { businessId, phone: '+34612300001', name: 'Lucía' });
      const at = (day: number, hour: number) => `2027-01-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000+00:00`;
      const ids: number[] = [];
      for (const [ref, day] of [
        ['R-1', 4],
        ['R-1', 5],
        ['R-2', 6],
      ] as const) {
        const row = await insertViewing(db, {
          business_id: businessId,
          lead_id: lead.id,
          property_id: await propertyId(db, ref),
          user_id: ana.id,
          starts_at: at(day, 10),
          ends_at: at(day, 11),
          status: 'scheduled',
          source: 'console',
          feedback: null,
          created_at: at(1, 9),
          updated_at: at(1, 9),
        });
        ids.push(row.id);
      }
      const r1 = await propertyId(db, 'R-1');
      expect(await countViewings(db, businessId, {})).toBe(3);
      expect(await countViewings(db, businessId, { propertyId: r1 })).toBe(2);
      expect(await countViewings(db, businessId, { leadId: lead.id, userId: ana.id })).toBe(3);
      // [from, to): the start of the 5th is in, the start of the 6th is out.
      expect(await countViewings(db, businessId, { from: at(5, 10), to: at(6, 10) })).toBe(1);
      expect(await countViewings(db, other, {})).toBe(0);

      await deleteViewing(db, ids[0]);
      expect(await countViewings(db, businessId, { propertyId: r1 })).toBe(1);

      expect(await findUserDisplayName(db, businessId, ana.id)).toBe('Ana Ruiz');
      expect(await findUserDisplayName(db, other, ana.id)).toBeNull();
    } finally {
      await db.destroy();
    }
  });
});

describe('leads', () => {
  it("replaces a lead's searches only while it is as last read (updated_at), else changes nothing", async () => {
    const { db, businessId } = await world();
    try {
      const lead = await createLeadByHand(db, { businessId, phone: '+34612300002', name: 'Pedro' });
      const read = (await findLead(db, lead.id))!;
      const change = {
        search_preferences: '[{"operations":["venta"]}]',
        status: 'searching_property',
        updated_at: '2027-01-02T00:00:00.000+00:00',
      };
      expect(await updateSearchPreferences(db, lead.id, change, read.updated_at)).toBe(true);
      expect(await findLead(db, lead.id)).toMatchObject(change);
      // A second writer that read before the first: refused, the first's change kept.
      const late = { ...change, search_preferences: '[]', updated_at: '2027-01-03T00:00:00.000+00:00' };
      expect(await updateSearchPreferences(db, lead.id, late, read.updated_at)).toBe(false);
      expect(await findLead(db, lead.id)).toMatchObject(change);
    } finally {
      await db.destroy();
    }
  });
});

describe('photos', () => {
  it("forgets stored objects by key, in batches, and deletes a listing's images, leaving other listings' alone", async () => {
    const { db, businessId } = await world();
    try {
      const [r1, r2] = [await propertyId(db, 'R-1'), await propertyId(db, 'R-2')];
      const url = 'http://127.0.0.1/media/p/1/a-1600.jpg';
      // More keys than one batch of 500.
      const keys = Array.from({ length: 501 }, (_, i) => `p/${r1}/a-${String(i).padStart(4, '0')}.jpg`);
      await recordMediaObjects(
        db,
        keys.map((key) => ({ key, business_id: businessId, property_id: r1, url, created_at: '2027-01-01T00:00:00.000+00:00' })),
      );
      expect(await ownedMediaKeys(db, businessId, r1, url)).toHaveLength(501);
      await forgetMediaObjects(db, keys.slice(0, 501));
      expect(await ownedMediaKeys(db, businessId, r1, url)).toEqual([]);

      const images = async (id: number) =>
        Number(
          (
            await db
              .selectFrom('property_images')
              .select((e) => e.fn.countAll<number>().as('n'))
              .where('property_id', '=', id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [before1, before2] = [await images(r1), await images(r2)];
      expect([before1, before2]).toEqual([1, 1]);
      await deleteImages(db, r1);
      expect([await images(r1), await images(r2)]).toEqual([0, before2]);
    } finally {
      await db.destroy();
    }
  });
});
