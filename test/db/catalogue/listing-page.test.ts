/**
 * A listing's public page and its sheet (issue 45, CONTRACT §21), on this process's engine:
 * `GET /l/<token>` shows one public listing under its agency's name (photos, prices as es-ES,
 * facts, the A–G energy label, the location exactly as the API publishes it, the description in
 * `lang`) and a viewing form (test/db/catalogue/listing-page-viewings.test.ts); it answers 410 in words once the listing leaves the public catalogue (sold, rented,
 * withdrawn, made private) and 404 for a token no listing has. Its form makes the lead the
 * website kit's would (source, page, consent, the listing's reference and a search); a refusal,
 * the trap field, a second post of the same form and a post to a gone listing store nothing.
 * `GET /l/<token>.pdf` and the console's `/console/properties/{id}/sheet.pdf` are A4 PDFs read
 * back with pdf.js: title, price and energy rating in the requested language, the photos from
 * the media store, and a QR code that decodes to the page's absolute URL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import view from '@fastify/view';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { InmoError } from '../../../src/errors.ts';
import { pageViewOptions } from '../../../src/http/public-pages.ts';
import { fastapiCompatibility } from '../../../src/http/request-pipeline.ts';
import { listingPageRoutes } from '../../../src/http/routes/listing-page.ts';
import { FolderMediaStore } from '../../../src/media/store.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { ListingViews } from '../../../src/services/catalogue/listing-views.ts';
import { moveListing, switchListing } from '../../../src/services/catalogue/listings.ts';
import { addPhotos } from '../../../src/services/catalogue/photos.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';
import { phonePhoto, transparentPng } from '../../helpers/images.ts';
import { readPdf } from '../../helpers/pdf.ts';

const ORIGIN = 'https://inmo.example';
const mediaDir = mkdtempSync(join(tmpdir(), 'inmo-page-media-'));
const CERTIFICATE = { status: 'available', rating: 'B', consumption_kwh_m2_year: 71.2, emissions_kg_co2_m2_year: 14 };

/** A form body as a browser posts it. */
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe("a listing's public page and sheet", () => {
  const ids: Record<string, number> = {};
  const tokens: Record<string, string> = {};
  const t = withApp({
    app: { publicUrl: ORIGIN, media: { store: new FolderMediaStore(mediaDir), publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      await connectEmail(db, {
        businessId,
        url: 'smtps://mail.example.com',
        from: 'envios@agencia.example',
        replyTo: 'hola@agencia.example',
      });
      const summary = await importRecords(db, businessId, [
        listing('ATICO', {
          title: 'Ático con vistas al mar',
          description: '<p>Ático luminoso con <strong>terraza</strong>.</p>',
          titles: { en: 'Penthouse with sea views', fr: 'Attique vue mer' },
          descriptions: { en: '<p>Bright penthouse with a terrace.</p>' },
          price: 250000,
          size_total: 95,
          bedrooms: 3,
          bathrooms: 2,
          energy_certificate: CERTIFICATE,
          floor: '5',
          community_fees: 120,
          year_built: 2004,
          condition: 'buen-estado',
          address_privacy: 'approximate',
          features: [{ key: 'ascensor' }, { key: 'terraza' }, { key: 'piscina', value: false }, { key: 'bodega', label: 'Bodega' }],
        }),
        listing('OCULTO', {
          title: 'Casa discreta',
          type: 'casa',
          subtype: null,
          address_privacy: 'hidden',
          energy_certificate: { status: 'in_process', rating: null, consumption_kwh_m2_year: null, emissions_kg_co2_m2_year: null },
        }),
        listing('RENTA', { title: 'Piso en alquiler', operation: 'alquiler', price: null, price_rent: 900 }),
        listing('VENDIDO', { title: 'Piso vendido' }),
        listing('PRIVADO', { title: 'Piso privado', public: false }),
        listing('RETIRADO', { title: 'Piso retirado' }),
      ]);
      expect(summary.rejected).toEqual([]);
      for (const ref of ['ATICO', 'OCULTO', 'RENTA', 'VENDIDO', 'PRIVADO', 'RETIRADO']) {
        ids[ref] = await propertyId(db, ref);
        tokens[ref] = (await listingPageToken(db, businessId, ids[ref]))!;
      }
      const photo = async (name: string, content: Buffer) => {
        const path = join(mediaDir, name);
        writeFileSync(path, content);
        return { path, fileName: name };
      };
      await addPhotos(
        db,
        new FolderMediaStore(mediaDir),
        businessId,
        ids.ATICO,
        [
          await photo('salon.jpg', await phonePhoto(2400, 1800)),
          await photo('plano.png', await transparentPng()),
          await photo('vista.jpg', await phonePhoto(1200, 900)),
        ],
        (key) => `${ORIGIN}/media/${key}`,
      );
      await moveListing(db, businessId, ids.VENDIDO, 'vendida', CLI, { price: 250_000, on: new Date().toISOString().slice(0, 10) });
      await moveListing(db, businessId, ids.RETIRADO, 'retirada', CLI);
    },
  });

  const page = (path: string) => t.app.inject({ method: 'GET', url: path });
  const post = (token: string, fields: Record<string, string>, remoteAddress = '10.9.0.1') =>
    t.app.inject({ method: 'POST', url: `/l/${token}?lang=en`, headers: FORM, payload: form(fields), remoteAddress });

  it('gives every listing one token of its own: 43 base64url characters, the same every time it is asked', async () => {
    const all = Object.values(tokens);
    for (const token of all) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(all).size).toBe(all.length);
    expect(await listingPageToken(t.db, t.businessId, ids.ATICO)).toBe(tokens.ATICO);
    const rows = await t.db.selectFrom('property_pages').select('property_id').execute();
    expect(rows.length).toBe(all.length);
  });

  it('still shows a page by a token made before issue 56 (32 hex characters, migration 0037)', async () => {
    const old = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const moved = (from: string, to: string) =>
      t.db.updateTable('property_pages').set({ token: to }).where('token', '=', from).executeTakeFirst();
    expect((await moved(tokens.RENTA, old)).numUpdatedRows).toBe(1n);
    try {
      const r = await page(`/l/${old}`);
      expect(r.statusCode).toBe(200);
      expect(r.body).toContain('Piso en alquiler');
      expect((await page(`/l/${tokens.RENTA}`)).statusCode).toBe(404);
    } finally {
      await moved(old, tokens.RENTA);
    }
  });

  it('shows a public listing under its agency: photos, es-ES prices, facts, the energy label, the approximate place', async () => {
    const r = await page(`/l/${tokens.ATICO}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    expect(r.headers['content-security-policy']).not.toContain('script-src');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const html = r.body;
    expect(html).toContain('<html lang="es">');
    expect(html).toContain('<span class="brand">Inmobiliaria Test</span>');
    expect(html).toContain('<h1 lang="es">Ático con vistas al mar</h1>');
    expect(html).toContain('250.000\u00a0€');
    expect(html).toContain('<dt>Dormitorios</dt><dd>3</dd>');
    expect(html).toContain('<dt>Superficie</dt><dd>95 m²</dd>');
    expect(html).toContain('<dt>Estado</dt><dd>Buen estado</dd>');
    expect(html).toContain('<dt>Gastos de comunidad</dt><dd>120\u00a0€ al mes</dd>');
    expect(html).toMatch(
      /<li aria-current="true"><span class="energy-bar energy-B">B<\/span> <span class="energy-this">← este inmueble<\/span><\/li>/,
    );
    expect(html).toContain('Consumo: 71,2 kWh/m² año');
    // Approximate: the approximate address and a position rounded to 2 decimals, never the street.
    expect(html).toContain('<h2 id="h-location">Ubicación aproximada</h2><p>Centro, Madrid</p>');
    expect(html).not.toContain('Calle Mayor');
    expect(html).not.toContain('40.4165');
    expect(html).toContain('mlat=40.42&amp;mlon=-3.71');
    // Features in words; one marked absent left out; one the catalogue does not know by its own label.
    expect(html).toContain('<li>Ascensor</li><li>Terraza</li><li>Bodega</li>');
    expect(html).not.toContain('Piscina');
    expect(html).not.toMatch(/buen-estado|>ascensor<|>apartamento<|>venta<|>available<|>approximate</);
    // Three photos of the media store, on this server, each in its stored widths.
    const photos = [...html.matchAll(/<img src="([^"]+)"( srcset="([^"]+)")?/g)];
    expect(photos).toHaveLength(3);
    for (const [, src] of photos) expect(src).toMatch(new RegExp(`^/media/p/${ids.ATICO}/[0-9a-f-]{36}-\\d+\\.jpg$`));
    expect(photos[0][3]).toMatch(/-480\.jpg 480w, .*-960\.jpg 960w, .*-1600\.jpg 1600w$/);
    expect((await page(photos[0][1])).statusCode).toBe(200);
    // The agency's contact and the form.
    expect(html).toContain('<a href="mailto:hola@agencia.example">hola@agencia.example</a>');
    expect(html).toContain(`<form method="post" action="/l/${tokens.ATICO}?lang=es#contact"`);
  });

  it.each([
    ['en', 'en', 'Penthouse with sea views', 'en', 'Bright penthouse', 'Bedrooms'],
    ['gb', 'en', 'Penthouse with sea views', 'en', 'Bright penthouse', 'Bedrooms'],
    ['fr', 'fr', 'Attique vue mer', 'es', 'Ático luminoso', 'Chambres'],
    ['de', 'de', 'Ático con vistas al mar', 'es', 'Ático luminoso', 'Schlafzimmer'],
    ['ge', 'de', 'Ático con vistas al mar', 'es', 'Ático luminoso', 'Schlafzimmer'],
    ['it', 'it', 'Ático con vistas al mar', 'es', 'Ático luminoso', 'Camere da letto'],
    ['xx', 'es', 'Ático con vistas al mar', 'es', 'Ático luminoso', 'Dormitorios'],
  ])(
    'lang=%s: the page in %s, the title %s, the description where held',
    async (lang, language, title, descriptionLang, description, bedrooms) => {
      const html = (await page(`/l/${tokens.ATICO}?lang=${lang}`)).body;
      expect(html).toContain(`<html lang="${language}">`);
      expect(html).toContain(`>${title}</h1>`);
      expect(html).toMatch(new RegExp(`<div class="listing-description" lang="${descriptionLang}"><p>${description}`));
      expect(html).toContain(`<dt>${bedrooms}</dt><dd>3</dd>`);
      expect(html).toContain('250.000\u00a0€');
    },
  );

  it('shows a hidden address as the city alone, with no postal code or map, and a certificate without a rating in words', async () => {
    const html = (await page(`/l/${tokens.OCULTO}?lang=en`)).body;
    expect(html).toContain(
      '<h2 id="h-location">Location</h2><p>Madrid</p><p class="hint">The exact address is given when a viewing is arranged.</p>',
    );
    expect(html).not.toMatch(/28013|Calle Mayor|Centro, Madrid|openstreetmap|40\.4/);
    expect(html).toContain('<h3>Energy certificate</h3><p>Being obtained</p>');
    expect(html).not.toContain('energy-scale');
  });

  it('writes a rent a month', async () => {
    const html = (await page(`/l/${tokens.RENTA}?lang=fr`)).body;
    expect(html).toContain('<p class="listing-price">900\u00a0€/mois</p>');
  });

  it.each(['VENDIDO', 'RETIRADO', 'PRIVADO'])(
    'answers 410 in words for a listing out of the public catalogue (%s), page and sheet',
    async (ref) => {
      const r = await page(`/l/${tokens[ref]}`);
      expect(r.statusCode).toBe(410);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.body).toContain('<h1>Este inmueble ya no está disponible</h1>');
      expect(r.body).toContain('Inmobiliaria Test ya no ofrece este inmueble');
      expect(r.body).not.toContain(`Piso ${ref.toLowerCase()}`);
      const english = await page(`/l/${tokens[ref]}?lang=en`);
      expect(english.statusCode).toBe(410);
      expect(english.body).toContain('This property is no longer available');
      const sheet = await page(`/l/${tokens[ref]}.pdf`);
      expect(sheet.statusCode).toBe(410);
      expect(sheet.headers['content-type']).toBe('text/html; charset=utf-8');
    },
  );

  it('answers 410 from the moment a public listing is made private or rented, and 200 while it is offered', async () => {
    const id = ids.RENTA;
    await switchListing(t.db, t.businessId, id, 'public', false, CLI);
    expect((await page(`/l/${tokens.RENTA}`)).statusCode).toBe(410);
    await switchListing(t.db, t.businessId, id, 'public', true, CLI);
    expect((await page(`/l/${tokens.RENTA}`)).statusCode).toBe(200);
    await moveListing(t.db, t.businessId, id, 'reservada', CLI);
    expect((await page(`/l/${tokens.RENTA}`)).statusCode).toBe(200);
    await moveListing(t.db, t.businessId, id, 'alquilada', CLI, { price: 900, on: new Date().toISOString().slice(0, 10) });
    expect((await page(`/l/${tokens.RENTA}`)).statusCode).toBe(410);
    expect((await page(`/l/${tokens.RENTA}.pdf`)).statusCode).toBe(410);
  });

  it.each(['0123456789abcdef0123456789abcdef', 'not-a-token', `${'f'.repeat(32)}.pdf`, 'ATICO'])(
    'answers 404 for a token no listing has (%s)',
    async (token) => {
      const r = await page(`/l/${token}`);
      expect(r.statusCode).toBe(404);
      const before = await snapshot(t.db);
      expect((await post(token.replace(/\.pdf$/, ''), { name: 'Ana', phone: '612345678', consent: '1' })).statusCode).toBe(404);
      expect(await snapshot(t.db)).toBe(before);
    },
  );

  it('makes a lead of the inquiry as the website kit would: source, page, consent, reference, search, language', async () => {
    const r = await post(tokens.ATICO, {
      name: 'Ana Página',
      phone: '612 34 56 01',
      email: 'ana@example.com',
      message: '¿Tiene garaje?',
      consent: '1',
      website: '',
      submission: 'a'.repeat(32),
    });
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`/l/${tokens.ATICO}?lang=en&sent=1#contact`);
    const lead = await t.db.selectFrom('leads').selectAll().where('phone_number_1', '=', '+34612345601').executeTakeFirstOrThrow();
    expect(lead).toMatchObject({
      name: 'Ana Página',
      type: 'demandante',
      source: 'listing_page',
      personal_email: 'ana@example.com',
      preferred_language: 'gb',
    });
    expect(JSON.parse(lead.search_preferences!)).toEqual([
      {
        operations: ['venta'],
        property_types: ['apartamento'],
        apartamento: { price_min: 212500, price_max: 287500 },
        locations: [{ name: 'Madrid' }],
      },
    ]);
    const notes = (await t.db.selectFrom('lead_notes').select('text').where('lead_id', '=', lead.id).execute())
      .map((n) => n.text)
      .join('\n');
    expect(notes).toMatch(/¿Tiene garaje\?[\s\S]*Ref\. ATICO/);
    expect(notes).toContain(`${ORIGIN}/l/${tokens.ATICO}`);
    const consent = await t.db.selectFrom('lead_consents').selectAll().where('lead_id', '=', lead.id).executeTakeFirstOrThrow();
    expect(consent).toMatchObject({ whatsapp: 1, marketing: 0, source_page: `${ORIGIN}/l/${tokens.ATICO}` });
    expect(consent.text).toContain('I agree that the agency contacts me');
    const jobs = await t.db.selectFrom('jobs').select('kind').where('lead_id', '=', lead.id).execute();
    expect(jobs.map((j) => j.kind)).toEqual(expect.arrayContaining(['match_lead', 'schedule_follow_ups']));
    // The page it goes back to thanks the person and shows no inquiry form (the viewing form stays).
    const thanks = (await page(r.headers.location as string)).body;
    expect(thanks).toContain('<p class="notice" role="status">Thank you! We have received your inquiry');
    expect(thanks).not.toMatch(/<form method="post" action="[^"]*#contact"/);
    expect(thanks).toMatch(/<form method="post" action="[^"]*#visit"/);
    // The same form sent again (a double click, a reload of the POST) is one inquiry.
    const before = await snapshot(t.db);
    const again = await post(tokens.ATICO, { name: 'Ana Página', phone: '612 34 56 01', consent: '1', submission: 'a'.repeat(32) });
    expect(again.statusCode).toBe(303);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('refuses faults beside their fields (422), storing nothing and keeping what was typed', async () => {
    const before = await snapshot(t.db);
    const r = await post(tokens.ATICO, { name: ' ', phone: '12', email: 'no-address', message: 'Hola <b>', submission: 'b'.repeat(32) });
    expect(r.statusCode).toBe(422);
    const html = r.body;
    expect(html).toContain('<p class="problem" role="alert">Check the fields marked.</p>');
    expect(html).toContain('aria-describedby="e-name" aria-invalid="true"');
    expect(html).toContain('<p class="field-problem" id="e-name">This field is required.</p>');
    expect(html).toContain('<p class="field-problem" id="e-phone">Enter a valid phone number');
    expect(html).toContain('<p class="field-problem" id="e-email">Enter a valid email address.</p>');
    expect(html).toContain('<p class="field-problem" id="e-consent">Tick the box so that we may contact you.</p>');
    expect(html).toContain('>Hola &lt;b&gt;</textarea>');
    expect(html).toContain('value="no-address"');
    expect(await snapshot(t.db)).toBe(before);
    // Refused, the form can be sent again with the same submission.
    const fixed = await post(tokens.ATICO, { name: 'Bea', phone: '612345602', consent: '1', submission: 'b'.repeat(32) });
    expect(fixed.statusCode).toBe(303);
    expect(await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', '+34612345602').executeTakeFirst()).toBeDefined();
  });

  it('answers a filled trap field as if sent, and stores nothing', async () => {
    const before = await snapshot(t.db);
    const r = await post(tokens.ATICO, { name: 'Bot', phone: '612345603', consent: '1', website: 'http://spam.example' });
    expect(r.statusCode).toBe(303);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('stores nothing for a listing that left the catalogue, and says so (410)', async () => {
    const before = await snapshot(t.db);
    const r = await post(tokens.VENDIDO, { name: 'Carla', phone: '612345604', consent: '1' });
    expect(r.statusCode).toBe(410);
    expect(r.body).toContain('This property is no longer available');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('reads a body of another type as an empty form: its faults (422), and nothing changes', async () => {
    const before = await snapshot(t.db);
    const r = await t.app.inject({
      method: 'POST',
      url: `/l/${tokens.ATICO}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Dani', phone: '612345605', consent: '1' }),
    });
    expect(r.statusCode).toBe(422);
    expect(r.body).toContain('<p class="field-problem" id="e-name">Este campo es obligatorio.</p>');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('shows the page again at the catalogue’s status when a form’s service throws, keeping what was typed', async () => {
    // The pages' plugin as public-pages.ts mounts it, with writes that refuse every lead.
    const app = Fastify();
    fastapiCompatibility(app);
    await app.register(async (pages) => {
      await pages.register(view, pageViewOptions(false));
      await pages.register(listingPageRoutes, {
        db: t.db,
        writes: {
          run: async () => {
            throw new InmoError('LEAD_NOT_STORED');
          },
        },
        media: { store: new FolderMediaStore(mediaDir), publicUrl: null },
        listingViews: new ListingViews(t.db),
        publicUrl: ORIGIN,
        onJobsQueued: () => {},
        postsPerIpPerMinute: 0,
      });
    });
    try {
      const before = await snapshot(t.db);
      const fields = { name: 'Ana Ruiz', phone: '612 34 56 78', consent: '1', submission: 'ab'.repeat(16) };
      const post = (payload: Record<string, string>) =>
        app.inject({ method: 'POST', url: `/l/${tokens.ATICO}?lang=en`, headers: FORM, payload: form(payload) });
      const refused = await post(fields);
      expect(refused.statusCode).toBe(new InmoError('LEAD_NOT_STORED').status);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.body).toContain('<p class="problem" role="alert">It could not be sent. Try again in a few minutes.</p>');
      expect(refused.body).toContain('value="Ana Ruiz"');
      // The form's nonce was let go: the same form posted again is tried again, not taken as sent.
      expect((await post(fields)).statusCode).toBe(400);

      const page = (await app.inject({ method: 'GET', url: `/l/${tokens.ATICO}?lang=en` })).body;
      const slot = /<option value="(\d{4}-[^"]+)"/.exec(page)?.[1];
      expect(slot).toBeDefined();
      const visit = await post({ ...fields, form: 'viewing', slot: slot!, submission: 'cd'.repeat(16) });
      expect(visit.statusCode).toBe(400);
      expect(visit.body).toMatch(/<section aria-labelledby="h-visit"[^]*<p class="problem" role="alert">It could not be sent/);
      expect(await snapshot(t.db)).toBe(before);
    } finally {
      await app.close();
    }
  });

  it('makes the A4 sheet: title, price, facts and energy rating in the language asked, the photos, a QR code of the page', async () => {
    const r = await page(`/l/${tokens.ATICO}.pdf`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/pdf');
    expect(r.headers['content-disposition']).toBe('inline; filename="atico-con-vistas-al-mar.pdf"');
    const pdf = await readPdf(r.rawPayload);
    const text = pdf.text.join(' ');
    expect(pdf.title).toBe('Ático con vistas al mar');
    expect(pdf.language).toBe('es');
    expect(text).toContain('Ático con vistas al mar');
    expect(text).toMatch(/250\.000\s€/);
    expect(text).toContain('Certificado energético');
    expect(text).toContain('B · este inmueble');
    expect(text).toContain('Dormitorios 3');
    expect(text).toContain('Ático luminoso con terraza.');
    expect(text).toContain('Inmobiliaria Test');
    expect(text).toContain('hola@agencia.example');
    expect(text).not.toMatch(/Calle Mayor|buen-estado|apartamento/);
    expect(pdf.qrCodes).toEqual([`${ORIGIN}/l/${tokens.ATICO}`]);
    // Three photos of the store and the QR code: the primary one at 960 pixels, the others at 480.
    expect(pdf.images.map((i) => i.width).sort((a, b) => a - b)).toEqual(
      [...[pdf.images.find((i) => i.width < 300)!.width], 480, 480, 960].sort((a, b) => a - b),
    );

    const english = await readPdf((await page(`/l/${tokens.ATICO}.pdf?lang=en`)).rawPayload);
    const words = english.text.join(' ');
    expect(words).toContain('Penthouse with sea views');
    expect(words).toMatch(/250\.000\s€/);
    expect(words).toContain('B · this property');
    expect(words).toContain('Bright penthouse with a terrace.');
    expect(english.qrCodes).toEqual([`${ORIGIN}/l/${tokens.ATICO}`]);
  });

  it('makes the console sheet of any listing of the business, private ones too, and 404 for another business’s', async () => {
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    await importRecords(t.db, other.id, [listing('DOS-1')]);
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const sheet = await agent.get(`/console/properties/${ids.PRIVADO}/sheet.pdf?lang=de`);
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-type']).toBe('application/pdf');
    const pdf = await readPdf(sheet.rawPayload);
    expect(pdf.text.join(' ')).toContain('Piso privado');
    expect(pdf.text.join(' ')).toContain('Zu verkaufen');
    expect(pdf.qrCodes).toEqual([`${ORIGIN}/l/${tokens.PRIVADO}`]);
    expect((await agent.get(`/console/properties/${await propertyId(t.db, 'DOS-1')}/sheet.pdf`)).statusCode).toBe(404);
    expect((await page(`/console/properties/${ids.ATICO}/sheet.pdf`)).statusCode).toBe(303);
    // The listing's console page links its public page and its sheet.
    const html = (await agent.get(`/console/properties/${ids.ATICO}`)).body;
    expect(html).toContain(`<a href="/l/${tokens.ATICO}">Página pública</a>`);
    expect(html).toContain(`<a href="/console/properties/${ids.ATICO}/sheet.pdf">Ficha PDF</a>`);
  });
});

describe('the inquiry form of a listing page, per client IP', () => {
  let token = '';
  const t = withApp({
    app: { rateLimits: { perKeyPerMinute: 0, postPerIpPerMinute: 0, publishablePostPerIpPerMinute: 2 } },
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [listing('UNO')]);
      token = (await listingPageToken(db, businessId, await propertyId(db, 'UNO')))!;
    },
  });

  it('refuses more posts than the limit with 429 and a page in words, storing nothing', async () => {
    const send = (n: number) =>
      t.app.inject({
        method: 'POST',
        url: `/l/${token}`,
        headers: FORM,
        payload: form({ name: `P${n}`, phone: `61234570${n}`, consent: '1' }),
        remoteAddress: '10.8.0.1',
      });
    expect((await send(1)).statusCode).toBe(303);
    expect((await send(2)).statusCode).toBe(303);
    const before = await snapshot(t.db);
    const third = await send(3);
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(third.body).toContain('Se han enviado demasiadas consultas desde tu conexión');
    expect(await snapshot(t.db)).toBe(before);
    // Another client is not held back.
    const other = await t.app.inject({
      method: 'POST',
      url: `/l/${token}`,
      headers: FORM,
      payload: form({ name: 'Q', phone: '612345799', consent: '1' }),
      remoteAddress: '10.8.0.2',
    });
    expect(other.statusCode).toBe(303);
  });
});
