/**
 * The listing editor's languages and facts (issue 46, CONTRACT §14, §22), on this process's
 * engine: a form with titles and descriptions in several languages, the energy certificate and
 * the portals' facts stores exactly what an import of the same listing stores; a bad fact answers
 * 422 beside its field and changes nothing; an edit keeps the languages and facts its post leaves
 * out, and empties those it sends empty; the listing's page shows the label, the facts and the
 * languages written.
 */
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

describe('the listing editor in five languages, with the energy certificate', () => {
  let other = 0;
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      other = (await insertBusiness(db, 'Agencia Dos', nowRfc3339())).id;
    },
  });

  /** A flat for sale as an agent fills the form in: Spanish, English and German titles, three descriptions, every fact. */
  const form = {
    external_ref: 'ED-1',
    title: 'Piso con terraza en Delicias',
    description: '<p>Reformado, <b>luminoso</b>.</p>',
    'titles.en': 'Flat with a terrace in Delicias',
    'descriptions.en': '<p>Renovated and <b>bright</b>.</p>',
    'titles.fr': '',
    'descriptions.fr': '<p>Rénové et lumineux.</p>',
    'titles.de': 'Wohnung mit Terrasse',
    'descriptions.de': '',
    'titles.it': '',
    'descriptions.it': '',
    operation: ['venta'],
    type: 'apartamento',
    subtype: 'piso',
    price: '185.000',
    size_total: '82,5',
    bedrooms: '3',
    bathrooms: '1',
    city: 'Zaragoza',
    country: 'España',
    address_privacy: 'approximate',
    status: 'disponible',
    public: '1',
    'energy_certificate.status': 'available',
    'energy_certificate.rating': 'B',
    'energy_certificate.consumption_kwh_m2_year': '95,5',
    'energy_certificate.emissions_kg_co2_m2_year': '20',
    floor: '3',
    community_fees: '85',
    year_built: '1998',
    condition: 'buen-estado',
  };

  /** The same listing as an import line, its facts at the top level as the import format has them. */
  const line = {
    external_ref: 'ED-1',
    title: 'Piso con terraza en Delicias',
    description: '<p>Reformado, <b>luminoso</b>.</p>',
    titles: { en: 'Flat with a terrace in Delicias', de: 'Wohnung mit Terrasse' },
    descriptions: { en: '<p>Renovated and <b>bright</b>.</p>', fr: '<p>Rénové et lumineux.</p>' },
    operation: 'venta',
    type: 'apartamento',
    subtype: 'piso',
    price: 185000,
    size_total: 82.5,
    bedrooms: 3,
    bathrooms: 1,
    city: 'Zaragoza',
    country: 'España',
    address_privacy: 'approximate',
    status: 'disponible',
    public: true,
    is_featured: false,
    energy_certificate: { status: 'available', rating: 'B', consumption_kwh_m2_year: 95.5, emissions_kg_co2_m2_year: 20 },
    floor: '3',
    community_fees: 85,
    year_built: 1998,
    condition: 'buen-estado',
  };

  /** A listing's stored row and published document, without what differs between two businesses' copies. */
  const stored = async (businessId: number) => {
    const row = await t.db
      .selectFrom('properties')
      .innerJoin('property_docs', 'property_docs.property_id', 'properties.id')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('external_ref', '=', 'ED-1')
      .executeTakeFirstOrThrow();
    const { id, business_id: _b, change_seq: _s, imported_at: _i, property_id: _p, agent_user_id: _a, ...rest } = row;
    return { id, rest };
  };

  it('stores from the form exactly what an import of the same listing stores, and shows it', async () => {
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const created = await agent.submit('/console/properties/new', '/console/properties', form);
    expect(created.statusCode).toBe(303);
    const mine = await stored(t.businessId);
    expect(JSON.parse(mine.rest.titles!)).toEqual({ es: form.title, en: form['titles.en'], de: form['titles.de'] });
    expect(JSON.parse(mine.rest.specs!)).toEqual({
      energy_certificate: { status: 'available', rating: 'B', consumption_kwh_m2_year: 95.5, emissions_kg_co2_m2_year: 20 },
      floor: '3',
      community_fees: 85,
      year_built: 1998,
      condition: 'buen-estado',
    });
    // The same line imported into another business, at the same times.
    await importRecords(t.db, other, [{ ...line, created_at: mine.rest.created_at, updated_at: mine.rest.updated_at }]);
    expect(mine.rest).toEqual((await stored(other)).rest);

    const english = await get(t.app, `/properties/${mine.id}?lang=en`, t.key);
    expect(english.body.data).toMatchObject({ title: form['titles.en'], specs: { energy_certificate: { rating: 'B' } } });

    const page = await agent.get(`/console/properties/${mine.id}`);
    expect(page.statusCode).toBe(200);
    // The energy label with its letter marked, the facts in words, and which languages are written.
    expect(page.body).toMatch(
      /<li aria-current="true"><span class="energy-bar energy-B">B<\/span> <span class="energy-this">← este inmueble/,
    );
    expect(page.body).toContain('<dd>Buen estado</dd>');
    expect(page.body).toMatch(/85\s€ al mes/);
    expect(page.body).toMatch(/<span lang="it">Italiano<\/span>: <span class="language-state language-state-missing">sin traducir/);
    expect(page.body).toMatch(/<span lang="de">Deutsch<\/span>: <span class="language-state language-state-missing">falta la descripción/);
    expect(page.body).toMatch(/<span lang="en">English<\/span>: <span class="language-state language-state-written">escrito/);
    // The form shows every language's text again, and the tabs' markers.
    expect(page.body).toContain('value="Wohnung mit Terrasse"');
    expect(page.body).toMatch(/id="tab-fr"[^]*?falta el título/);
  });

  it('refuses a bad fact with 422 beside its field, changing nothing, and keeps what an edit leaves out', async () => {
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const { id } = await stored(t.businessId);
    const before = await snapshot(t.db);
    const bad = await agent.submit(`/console/properties/${id}`, `/console/properties/${id}`, {
      ...form,
      'energy_certificate.rating': 'H',
      year_built: '3000',
      condition: 'x',
      community_fees: 'mucho',
    });
    expect(bad.statusCode).toBe(422);
    const year = new Date().getUTCFullYear();
    for (const [field, text] of [
      ['energy_certificate-rating', 'Elige una de las opciones.'],
      ['year_built', `Escribe un año de 1000 a ${year + 10}.`],
      ['condition', 'Elige una de las opciones.'],
      ['community_fees', 'Escribe un número de 0 a 100000.'],
    ]) {
      expect(bad.body, field).toContain(`id="e-${field}">${text}`);
    }
    expect(bad.body).toMatch(/id="p-year_built"[^>]*aria-invalid="true"/);
    expect(bad.body).toContain('value="3000"');
    // An available certificate needs its letter; one in process has none.
    const noLetter = await agent.submit(`/console/properties/${id}`, `/console/properties/${id}`, {
      ...form,
      'energy_certificate.rating': '',
    });
    expect(noLetter.statusCode).toBe(422);
    expect(noLetter.body).toContain('id="e-energy_certificate-rating">Un certificado disponible lleva su letra');
    expect(await snapshot(t.db)).toBe(before);

    // An edit whose post leaves German and the facts out keeps them; French sent empty is removed.
    const { 'titles.de': _t, 'descriptions.de': _d, floor: _f, community_fees: _c, year_built: _y, condition: _k, ...partial } = form;
    const edit = Object.fromEntries(Object.entries(partial).filter(([name]) => !name.startsWith('energy_certificate.')));
    const saved = await agent.submit(`/console/properties/${id}`, `/console/properties/${id}`, {
      ...edit,
      'titles.en': 'Bright flat with a terrace',
      'descriptions.fr': '',
    });
    expect(saved.statusCode).toBe(303);
    const after = (await stored(t.businessId)).rest;
    expect(JSON.parse(after.titles!)).toEqual({ es: form.title, en: 'Bright flat with a terrace', de: form['titles.de'] });
    expect(JSON.parse(after.descriptions!)).toEqual({ es: form.description, en: form['descriptions.en'] });
    expect(JSON.parse(after.specs!)).toMatchObject({ energy_certificate: { rating: 'B' }, floor: '3', year_built: 1998 });

    // Facts sent empty are no longer stated; a certificate in process has no letter.
    const cleared = await agent.submit(`/console/properties/${id}`, `/console/properties/${id}`, {
      ...form,
      'energy_certificate.status': 'in_process',
      'energy_certificate.rating': '',
      'energy_certificate.consumption_kwh_m2_year': '',
      'energy_certificate.emissions_kg_co2_m2_year': '',
      floor: '',
      community_fees: '',
      year_built: '',
      condition: '',
    });
    expect(cleared.statusCode).toBe(303);
    expect(JSON.parse((await stored(t.businessId)).rest.specs!)).toEqual({
      energy_certificate: { status: 'in_process', rating: null, consumption_kwh_m2_year: null, emissions_kg_co2_m2_year: null },
    });
  });
  it('refuses a sale or a rental from the form (only the page that asks for the price and day records one), storing nothing', async () => {
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const { id } = await stored(t.businessId);
    const before = await snapshot(t.db);
    for (const status of ['vendida', 'alquilada']) {
      const edit = await agent.submit(`/console/properties/${id}`, `/console/properties/${id}`, { ...form, status });
      expect(edit.statusCode).toBe(422);
      expect(edit.body).toContain('Para marcarlo como vendido o alquilado usa su botón');
      expect(edit.body).toMatch(/id="p-status-select"[^>]*aria-invalid="true"/);
      const created = await agent.submit('/console/properties/new', '/console/properties', {
        ...form,
        external_ref: `NUEVO-${status}`,
        status,
      });
      expect(created.statusCode).toBe(422);
    }
    expect(await snapshot(t.db)).toBe(before);
    // Reserved from the form is a status like any other.
    expect(
      (await agent.submit(`/console/properties/${id}`, `/console/properties/${id}`, { ...form, status: 'reservada' })).statusCode,
    ).toBe(303);
  });
});
