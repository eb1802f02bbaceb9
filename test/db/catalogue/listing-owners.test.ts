/**
 * A listing's owner (issue 58 item 1, CONTRACT §24): a `propietario` lead linked on the listing's
 * console page, shown there and on the owner's lead page, read back in GET /v1/ext/leads/{id} as
 * `listings`, and never published: not in the Property, the changes feed nor the listing's public
 * page. A refusal changes nothing; erasing the owner unlinks its listings and keeps them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NormalizedProperty } from '../../../src/domain/catalogue/property-record.ts';
import { importFullCatalogueFile } from '../../../src/services/catalogue/import/import.ts';
import { linkOwners } from '../../../src/services/catalogue/import/owners.ts';
import { eraseLead } from '../../../src/services/leads/erasure.ts';
import { loggedIn, userWithPassword, type Browser } from '../../helpers/console.ts';
import { businessWithKey, importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { leadOfType } from '../../helpers/leads.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'ana@inmo.example', 'agent');
    await importRecords(db, businessId, [listing('OWN-1'), listing('OWN-2')]);
  },
});

/** A lead made by hand, of `type`. */
const leadOf = (type: 'propietario' | 'demandante', phone: string, name: string, businessId = t.businessId) =>
  leadOfType(t.db, businessId, type, phone, name);

const ownerOf = async (id: number) =>
  (await t.db.selectFrom('properties').select('owner_lead_id').where('id', '=', id).executeTakeFirstOrThrow()).owner_lead_id;

/** Posts the listing page's owner form as shown, with `leadId` chosen ('' unlinks). */
async function link(browser: Browser, listingId: number, leadId: number | '') {
  return browser.submit(`/console/properties/${listingId}`, `/console/properties/${listingId}/owner`, { lead_id: String(leadId) });
}

describe("a listing's owner", () => {
  it('is linked on the listing page, shown there and on the lead page, and read back by the API; never published', async () => {
    const id = await propertyId(t.db, 'OWN-1');
    const owner = await leadOf('propietario', '+34611222333', 'Rosa Propietaria');
    await leadOf('demandante', '+34611222444', 'Daniel Demandante');
    const ana = await loggedIn(t.app, 'ana@inmo.example');

    const before = await ana.get(`/console/properties/${id}`);
    expect(before.body).toContain('Este inmueble no tiene propietario vinculado.');
    // Only owners are offered.
    const offered = before.body.slice(
      before.body.indexOf('id="o-lead_id"'),
      before.body.indexOf('</select>', before.body.indexOf('id="o-lead_id"')),
    );
    expect(offered).toContain('Rosa Propietaria');
    expect(offered).not.toContain('Daniel Demandante');

    const linked = await link(ana, id, owner);
    expect([linked.statusCode, linked.headers.location]).toEqual([303, `/console/properties/${id}#h-owner`]);
    expect(await ownerOf(id)).toBe(owner);
    const page = await ana.get(`/console/properties/${id}`);
    expect(page.body).toContain(`<a href="/console/leads/${owner}">Rosa Propietaria</a> · +34611222333`);
    const leadPage = await ana.get(`/console/leads/${owner}`);
    expect(leadPage.body).toContain('Sus inmuebles');
    expect(leadPage.body).toContain(`<a href="/console/properties/${id}">OWN-1`);

    const read = await get(t.app, `/leads/${owner}`, t.key);
    expect(read.body.listings).toEqual([id]);
    const list = await get(t.app, '/leads', t.key);
    expect(list.body.data.find((l: { id: number }) => l.id === owner)).not.toHaveProperty('listings');

    // Nothing of the owner is published: the Property, the changes feed, the public page.
    const published = [
      (await get(t.app, `/properties/${id}`, t.key)).body,
      (await get(t.app, '/properties/changes', t.key)).body,
      (await t.app.inject({ method: 'GET', url: new URL(page.body.match(/href="([^"]*\/l\/[^"]+)"/)![1], 'http://x').pathname })).body,
    ].map((b) => (typeof b === 'string' ? b : JSON.stringify(b)));
    for (const text of published) {
      expect(text).not.toContain('Rosa');
      expect(text).not.toContain('611222333');
      expect(text).not.toContain('owner');
    }

    // The audit trail says a listing's owner changed, naming the listing, nothing of the owner.
    const audit = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'property.owner').execute();
    expect(audit.map((a) => [a.target_id, JSON.stringify(a).includes('Rosa')])).toEqual([[String(id), false]]);

    const unlinked = await link(ana, id, '');
    expect(unlinked.statusCode).toBe(303);
    expect(await ownerOf(id)).toBeNull();
    expect((await get(t.app, `/leads/${owner}`, t.key)).body).not.toHaveProperty('listings');
  });

  it("refuses a lead that is not a propietario, or another business's, in words, and changes nothing", async () => {
    const id = await propertyId(t.db, 'OWN-2');
    const searcher = await leadOf('demandante', '+34611222555', 'Daniel Demandante');
    const other = await businessWithKey(t.db, 'Otra Agencia');
    const elsewhere = await leadOf('propietario', '+34611222666', 'Otra Propietaria', other.businessId);
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const before = await snapshot(t.db);
    for (const leadId of [searcher, elsewhere, 999_999]) {
      const refused = await link(ana, id, leadId);
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('Solo un lead de tipo propietario puede ser el propietario de un inmueble.');
    }
    const forged = await ana.request('POST', `/console/properties/${id}/owner`, { lead_id: String(searcher) });
    expect(forged.statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('erasing the owner unlinks its listings, which stay', async () => {
    const id = await propertyId(t.db, 'OWN-1');
    const owner = await leadOf('propietario', '+34611222777', 'Rosa Propietaria');
    await link(await loggedIn(t.app, 'ana@inmo.example'), id, owner);
    expect(await ownerOf(id)).toBe(owner);
    await eraseLead(t.db, owner, { businessId: t.businessId, actor: { type: 'cli' } });
    expect(await ownerOf(id)).toBeNull();
    expect((await get(t.app, `/properties/${id}`, t.key)).status).toBe(200);
  });

  it('is named by the import format, by lead id or phone; a line naming no possible owner is rejected, its listing unchanged', async () => {
    const rosa = await leadOf('propietario', '+34611222801', 'Rosa Propietaria');
    const daniel = await leadOf('demandante', '+34611222802', 'Daniel Demandante');
    const first = await importRecords(t.db, t.businessId, [
      listing('IMP-1', { owner: { lead_id: rosa } }),
      listing('IMP-2', { owner: { phone: '+34 611 222 803' } }),
      listing('IMP-3', { owner: { phone: '611 222 802' } }),
      listing('IMP-4', { owner: { lead_id: 999_999 } }),
      listing('IMP-5', { owner: {} }),
      listing('IMP-6', { owner: { phone: 'llamar por la tarde' } }),
      listing('IMP-7'),
    ]);
    expect(first.created).toBe(3);
    expect(first.rejected.map((r) => [r.line, r.faults?.map((f) => `${f.field} ${f.rule}`)])).toEqual([
      [3, ['owner owner_not_propietario']],
      [4, ['owner.lead_id owner_unknown']],
      [5, ['owner owner_one_of']],
      [6, ['owner.phone owner_phone']],
    ]);
    for (const ref of ['IMP-3', 'IMP-4', 'IMP-5', 'IMP-6'])
      expect(await t.db.selectFrom('properties').select('id').where('external_ref', '=', ref).executeTakeFirst()).toBeUndefined();
    expect(await ownerOf(await propertyId(t.db, 'IMP-1'))).toBe(rosa);
    expect(await ownerOf(await propertyId(t.db, 'IMP-7'))).toBeNull();
    // A phone no lead has: an unnamed owner is made with it, captured by the import, and sent nothing.
    const made = await t.db.selectFrom('leads').selectAll().where('phone_number_1', '=', '+34611222803').executeTakeFirstOrThrow();
    expect([made.type, made.name, made.captured_by, made.source]).toEqual(['propietario', null, 'Import', 'import']);
    expect(await ownerOf(await propertyId(t.db, 'IMP-2'))).toBe(made.id);
    expect(await t.db.selectFrom('jobs').select('id').where('lead_id', '=', made.id).execute()).toEqual([]);
    const created = await t.db.selectFrom('events').select('type').where('lead_id', '=', made.id).execute();
    expect(created).toEqual([{ type: 'lead.created' }]);
    expect(await t.db.selectFrom('messages').select('id').where('lead_id', '=', made.id).execute()).toEqual([]);
    // Never published.
    const property = JSON.stringify((await get(t.app, `/properties/${await propertyId(t.db, 'IMP-2')}`, t.key)).body);
    expect(property).not.toContain('611222803');
    expect(property).not.toContain('owner');

    // Absent keeps the owner, null unlinks it, and a refused owner leaves the whole listing as it was.
    const before = await t.db
      .selectFrom('properties')
      .select(['price', 'owner_lead_id'])
      .where('external_ref', '=', 'IMP-1')
      .executeTakeFirstOrThrow();
    const second = await importRecords(t.db, t.businessId, [
      listing('IMP-1', { price: 1 }),
      listing('IMP-2', { owner: null }),
      listing('IMP-1', { price: 2, owner: { lead_id: daniel } }),
    ]);
    expect(second.rejected.map((r) => r.line)).toEqual([3]);
    expect(await ownerOf(await propertyId(t.db, 'IMP-2'))).toBeNull();
    const after = await t.db
      .selectFrom('properties')
      .select(['price', 'owner_lead_id'])
      .where('external_ref', '=', 'IMP-1')
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ price: 1, owner_lead_id: before.owner_lead_id });
  });

  it('refuses a whole --full import naming an owner that cannot be one, before writing anything', async () => {
    const daniel = await leadOf('demandante', '+34611222901', 'Daniel Demandante');
    const path = join(mkdtempSync(join(tmpdir(), 'inmo-owners-')), 'catalogue.ndjson');
    writeFileSync(path, [listing('FULL-1'), listing('FULL-2', { owner: { lead_id: daniel } })].map((l) => JSON.stringify(l)).join('\n'));
    const before = await snapshot(t.db);
    const summary = await importFullCatalogueFile(t.db, t.businessId, path);
    expect(summary.refused).toBe(true);
    expect(summary.rejected.map((r) => [r.line, r.faults?.[0].rule])).toEqual([[2, 'owner_not_propietario']]);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('takes as owner the lead another writer gave the phone meanwhile when it is a propietario, and links nothing when it is not', async () => {
    await importRecords(t.db, t.businessId, [listing('RACE-1'), listing('RACE-2')]);
    const [one, two] = [await propertyId(t.db, 'RACE-1'), await propertyId(t.db, 'RACE-2')];
    // The batch read no lead with these phones (settleOwners said to make them); since then, both were taken.
    const rosa = await leadOf('propietario', '+34611222951', 'Rosa Propietaria');
    await leadOf('demandante', '+34611222952', 'Daniel Demandante');
    const leads = async () => (await t.db.selectFrom('leads').select('id').execute()).length;
    const before = await leads();
    await t.db.transaction().execute((trx) =>
      linkOwners(
        trx,
        t.businessId,
        [
          { property: { fields: { external_ref: 'RACE-1' } } as NormalizedProperty, owner: { make: '+34611222951' } },
          { property: { fields: { external_ref: 'RACE-2' } } as NormalizedProperty, owner: { make: '+34611222952' } },
        ],
        new Date().toISOString(),
      ),
    );
    expect([await ownerOf(one), await ownerOf(two), await leads()]).toEqual([rosa, null, before]);
  });
});
