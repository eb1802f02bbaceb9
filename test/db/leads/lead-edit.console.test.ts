/**
 * The lead page edits the lead (issue 57 item 2, CONTRACT §25): its contact and searches, saved as
 * PATCH /v1/ext/leads/{id} saves them, each refusal said beside its field and nothing stored; and
 * it links the listing a portal e-mail was about when none was found (issue 57 item 1), giving the
 * lead that listing's search as intake would have.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { acceptInboundEmail } from '../../../src/services/leads/email-intake.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { loggedIn, userWithPassword, type Browser } from '../../helpers/console.ts';
import { businessWithKey, importRecords, listing, propertyId, REPO_ROOT, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

type Form = Record<string, string | string[]>;

/** The fields the form posting to `action` would send as the page shows it: text, checked boxes, selected options. */
function formOf(html: string, action: string): Form {
  const form: Form = {};
  const add = (name: string, value: string) => {
    const had = form[name];
    form[name] = had === undefined ? value : [had].flat().concat(value);
  };
  let inside = false;
  let select: string | null = null;
  let firstOption: string | null = null;
  let chosen = false;
  const parser = new Parser({
    onopentag(tag, a) {
      if (tag === 'form') inside = a.action === action;
      if (!inside) return;
      if (tag === 'input' && a.name) {
        if ((a.type === 'checkbox' || a.type === 'radio') && !('checked' in a)) return;
        add(a.name, a.value ?? '');
      }
      if (tag === 'select') [select, firstOption, chosen] = [a.name, null, false];
      if (tag === 'option' && select) {
        firstOption ??= a.value;
        if ('selected' in a) [chosen] = [true, add(select, a.value)];
      }
    },
    onclosetag(tag) {
      if (tag === 'form') inside = false;
      if (tag === 'select' && select) {
        if (!chosen && firstOption !== null) add(select, firstOption);
        select = null;
      }
    },
  });
  parser.write(html);
  parser.end();
  return form;
}

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'ana@inmo.example', 'agent');
  },
});

const leadRow = (id: number) => t.db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const historyOf = (id: number) => t.db.selectFrom('lead_history').selectAll().where('lead_id', '=', id).orderBy('id').execute();

/** The lead page's edit form as shown, with `changes` made, posted. */
async function editThrough(browser: Browser, leadId: number, changes: Form) {
  const page = await browser.get(`/console/leads/${leadId}`);
  const form = formOf(page.body, `/console/leads/${leadId}/edit`);
  expect(form._csrf).toBeTruthy();
  return browser.request('POST', `/console/leads/${leadId}/edit`, { ...form, ...changes });
}

describe('the lead page’s edit form', () => {
  it('shows the contact and searches as stored, and saves a correction and a new search', async () => {
    await importRecords(t.db, t.businessId, [
      listing('ZGZ-1', { operation: 'alquiler', type: 'apartamento', city: 'Zaragoza', price: null, price_rent: 800 }),
    ]);
    const id = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000001', name: 'Ana Perz' })).id;
    const browser = await loggedIn(t.app, 'ana@inmo.example');
    const shown = formOf((await browser.get(`/console/leads/${id}`)).body, `/console/leads/${id}/edit`);
    expect(shown).toMatchObject({
      name: 'Ana Perz',
      phone_number_1: '+34612000001',
      phone_number_2: '',
      preferred_language: '',
      searches: '1',
    });

    const saved = await editThrough(browser, id, {
      name: 'Ana Pérez',
      phone_number_2: '976 000 111',
      personal_email: 'ana@example.com',
      preferred_language: 'fr',
      s0_operations: 'alquiler',
      s0_property_types: ['apartamento', 'casa'],
      s0_places: 'Zaragoza, Utebo',
      s0_price_rent_max: '900',
      s0_bedrooms_min: '2',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/console/leads/${id}#h-contact`);
    const lead = await leadRow(id);
    expect(lead).toMatchObject({
      name: 'Ana Pérez',
      phone_number_2: '+34976000111',
      personal_email: 'ana@example.com',
      preferred_language: 'fr',
      status: 'searching_property',
    });
    expect(JSON.parse(lead.search_preferences!)).toEqual([
      {
        operations: ['alquiler'],
        property_types: ['apartamento', 'casa'],
        locations: [{ name: 'Zaragoza' }, { name: 'Utebo' }],
        apartamento: { price_rent_max: 900, bedrooms_min: 2 },
        casa: { price_rent_max: 900, bedrooms_min: 2 },
      },
    ]);
    const jobs = await t.db.selectFrom('jobs').select('kind').where('lead_id', '=', id).execute();
    expect(jobs.map((j) => j.kind)).toContain('match_lead');
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const matched = await t.db
      .selectFrom('lead_matches')
      .select('property_id')
      .where('lead_id', '=', id)
      .where('failed', 'is', null)
      .execute();
    expect(matched.map((m) => m.property_id)).toEqual([await propertyId(t.db, 'ZGZ-1')]);

    // The history names the fields, by whom, never their values.
    const history = await historyOf(id);
    expect(JSON.parse(history[0].detail)).toEqual({
      fields: ['name', 'phone_number_2', 'personal_email', 'preferred_language', 'search_preferences'],
    });
    expect(JSON.stringify(history)).not.toMatch(/Pérez|ana@example|976/);
    const page = (await browser.get(`/console/leads/${id}`)).body;
    expect(page).toContain('Editó: Nombre, Segundo teléfono, Correo personal, Idioma, Búsquedas');
    expect(page).toContain('Français');
    const events = await t.db.selectFrom('events').select('type').where('lead_id', '=', id).execute();
    expect(events.map((e) => e.type)).toContain('lead.updated');
  });

  it('keeps what the form does not show, and a form sent as shown changes nothing', async () => {
    const id = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000002', name: 'Bea' })).id;
    const search = {
      operations: ['venta'],
      property_types: ['casa'],
      casa: { price_max: 400000, plot_size_min: 500, features: ['piscina'] },
      locations: [{ name: 'Huesca' }, { type: 'circle', lat: 41.65, lng: -0.88, radius: 2000 }],
      internal_notes: 'llamar por la tarde',
    };
    await t.db
      .updateTable('leads')
      .set({ search_preferences: JSON.stringify([search]) })
      .where('id', '=', id)
      .execute();
    const browser = await loggedIn(t.app, 'ana@inmo.example');
    const before = await snapshot(t.db);
    expect((await editThrough(browser, id, {})).statusCode).toBe(303);
    expect(await snapshot(t.db)).toBe(before);

    expect((await editThrough(browser, id, { s0_price_max: '450000', s0_places: 'Huesca, Jaca' })).statusCode).toBe(303);
    expect(JSON.parse((await leadRow(id)).search_preferences!)).toEqual([
      {
        ...search,
        casa: { price_max: 450000, plot_size_min: 500, features: ['piscina'] },
        locations: [{ type: 'circle', lat: 41.65, lng: -0.88, radius: 2000 }, { name: 'Huesca' }, { name: 'Jaca' }],
      },
    ]);
    expect((await editThrough(browser, id, { s0_remove: '1' })).statusCode).toBe(303);
    expect((await leadRow(id)).search_preferences).toBeNull();
  });

  it('says why beside each refused field, keeps what was typed, and stores nothing', async () => {
    const id = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000003', name: 'Carla' })).id;
    await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000004', name: 'Dora' });
    const browser = await loggedIn(t.app, 'ana@inmo.example');
    const before = await snapshot(t.db);
    const refused = await editThrough(browser, id, {
      name: '  ',
      phone_number_2: '12',
      s0_bedrooms_min: 'tres',
      s0_price_max: '200000',
    });
    expect(refused.statusCode).toBe(422);
    const page = refused.body;
    expect(page).toContain('No se ha guardado nada: corrija los campos marcados.');
    expect(page).toMatch(/id="e-name"[^>]*aria-describedby="e-name-problem" aria-invalid="true"/);
    expect(page).toContain('<p class="field-problem" id="e-name-problem">Escriba un nombre.</p>');
    expect(page).toContain('<p class="field-problem" id="e-s0_bedrooms_min-problem">Escriba un número entero, sin puntos ni símbolos.</p>');
    expect(page).toContain(
      '<p class="field-problem" id="e-s0_price_max-problem">Elija un tipo de inmueble al que se aplique este criterio.</p>',
    );
    expect(page).toMatch(/name="s0_bedrooms_min" inputmode="numeric" maxlength="16" value="tres"/);
    expect(await snapshot(t.db)).toBe(before);

    const phone = await editThrough(browser, id, { phone_number_2: '12' });
    expect(phone.statusCode).toBe(422);
    expect(phone.body).toContain('<p class="field-problem" id="e-phone_number_2-problem">No es un teléfono válido.');
    const taken = await editThrough(browser, id, { phone_number_1: '612 000 004' });
    expect(taken.statusCode).toBe(422);
    expect(taken.body).toContain('<p class="field-problem" id="e-phone_number_1-problem">Otro lead ya tiene este teléfono.</p>');
    expect(taken.body).toMatch(/name="phone_number_1"[^>]*value="612 000 004"/);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('needs its CSRF token, and another business’s lead is not found', async () => {
    const id = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000005', name: 'Eva' })).id;
    const browser = await loggedIn(t.app, 'ana@inmo.example');
    const form = formOf((await browser.get(`/console/leads/${id}`)).body, `/console/leads/${id}/edit`);
    const other = await businessWithKey(t.db, 'Otra');
    const theirs = (await createLeadByHand(t.db, { businessId: other.businessId, phone: '+34612000006', name: 'Fina' })).id;
    const before = await snapshot(t.db);
    const { _csrf: _token, ...withoutToken } = form;
    expect((await browser.request('POST', `/console/leads/${id}/edit`, { ...withoutToken, name: 'Otra' })).statusCode).toBe(403);
    expect((await browser.request('POST', `/console/leads/${theirs}/edit`, { ...form, name: 'Otra' })).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('a portal e-mail whose listing was not found', () => {
  it('offers to link a listing by its reference, which gives the lead that listing’s search', async () => {
    await acceptInboundEmail(t.db, t.businessId, readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'email', 'idealista.eml')));
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const email = await t.db.selectFrom('inbound_emails').selectAll().executeTakeFirstOrThrow();
    expect([email.state, email.property_id]).toEqual(['lead', null]);
    const leadId = email.lead_id!;
    expect((await leadRow(leadId)).search_preferences).toBeNull();

    const browser = await loggedIn(t.app, 'ana@inmo.example');
    const action = `/console/leads/${leadId}/email-listing`;
    const offered = formOf((await browser.get(`/console/leads/${leadId}`)).body, action);
    expect(offered).toMatchObject({ email_id: String(email.id), property_ref: '' });

    const before = await snapshot(t.db);
    const unknown = await browser.request('POST', action, { ...offered, property_ref: 'PISO-0042' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('Ningún inmueble de la agencia tiene esta referencia o número.');
    expect(unknown.body).toMatch(/name="property_ref" maxlength="200" required value="PISO-0042"/);
    expect(await snapshot(t.db)).toBe(before);

    await importRecords(t.db, t.businessId, [
      listing('PISO-0042', { operation: 'venta', type: 'apartamento', city: 'Madrid', price: 240000 }),
    ]);
    const linked = await browser.request('POST', action, { ...offered, property_ref: ' PISO-0042 ' });
    expect(linked.statusCode).toBe(303);
    const listingId = await propertyId(t.db, 'PISO-0042');
    expect((await t.db.selectFrom('inbound_emails').select('property_id').executeTakeFirstOrThrow()).property_id).toBe(listingId);
    const lead = await leadRow(leadId);
    expect(JSON.parse(lead.search_preferences!)).toEqual([
      {
        operations: ['venta'],
        property_types: ['apartamento'],
        apartamento: { price_min: 204000, price_max: 276000 },
        locations: [{ name: 'Madrid' }],
      },
    ]);
    expect(lead.status).toBe('searching_property');
    expect(JSON.parse((await historyOf(leadId))[0].detail)).toEqual({ fields: ['search_preferences'], property_id: listingId });
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const matched = await t.db
      .selectFrom('lead_matches')
      .select('property_id')
      .where('lead_id', '=', leadId)
      .where('failed', 'is', null)
      .execute();
    expect(matched.map((m) => m.property_id)).toEqual([listingId]);

    const page = (await browser.get(`/console/leads/${leadId}`)).body;
    expect(page).toContain(`<a href="/console/properties/${listingId}">PISO-0042</a>`);
    expect(formOf(page, action)).toEqual({});
    expect(page).toContain('Vinculó el inmueble de su correo');
  });
});
