/**
 * Publishing an idealista feed (issue 46, CONTRACT §22), on this process's engine: a URL with an
 * unguessable token for a customer code, no key needed, 404 once revoked or for another format's
 * token; one customer document of idealista's v6 format that validates against the spec's
 * `customer.json`, one item per public listing idealista accepts and every other one listed with
 * its reason (on the console's catalogue page too); privacy as the API publishes it; the contact
 * from the business's settings; a strong ETag, 304 and gzip as the Kyero feed has them.
 *
 * Each test publishes with a customer code of its own: a document is kept per catalogue version
 * and code, and every test's database starts at the same version.
 */
import { signalChange } from '../../../src/db/change-watch.ts';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { upsertEmailSettings } from '../../../src/db/repositories/email-out.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { idealistaReport } from '../../../src/services/catalogue/feeds/published-feeds.ts';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { expectConditionalFeed } from '../../helpers/feeds.ts';
import { withApp } from '../../helpers/http.ts';
import { specSchemas } from '../../helpers/idealista.ts';

/** A customer code of idealista's shape, different for each `n`. */
const codeOf = (n: number) => `ilc${String(n).padStart(40, '0')}`;

describe('a published idealista feed', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      await importRecords(db, businessId, [
        listing('PUBLIC', {
          address: 'Calle Mayor, 12, Madrid',
          lat: 40.4165123,
          lon: -3.7035678,
          description: '<p>Luminoso &amp; <b>exterior</b>.</p><p>Con ascensor.</p>',
          features: [{ key: 'ascensor', label: 'Ascensor', value: true }],
          specs: { floor: 'Ground floor', condition: 'buen-estado' },
          images: [
            { url: 'https://img.example/2.jpg', order: 2, public: true, title: 'Cocina' },
            { url: 'https://img.example/1.jpg', order: 1, public: true },
          ],
        }),
        listing('APPROX', {
          operation: 'venta,alquiler',
          price: 300000,
          price_rent: 1200,
          rental_type: 'anual',
          address: 'Calle Escondida, 3, Madrid',
          address_privacy: 'approximate',
          address_approximate: 'Chamberí, Madrid',
          lat: 40.4321987,
          lon: -3.7012345,
        }),
        listing('HIDDEN', {
          address: 'Calle Secreta, 7, Madrid',
          postal_code: '28999',
          address_privacy: 'hidden',
          lat: 40.4198765,
          lon: -3.6987654,
        }),
        listing('NOBATH', { bathrooms: null }),
        listing('TRANSFER', {
          type: 'local',
          subtype: 'local-comercial',
          bedrooms: null,
          operation: 'traspaso',
          price: null,
          price_transfer: 50000,
        }),
        listing('SHOP', {
          type: 'local',
          subtype: 'bajo-comercial',
          bedrooms: null,
          operation: 'alquiler,traspaso',
          price: null,
          price_rent: 2500,
          price_transfer: 40000,
        }),
        listing('PRIVATE', { public: false }),
        listing('SOLD', { status: 'vendida' }),
      ]);
    },
  });
  const cli = (...args: string[]) => inmo({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' }, 'feeds', 'publish', ...args);
  const fetchFeed = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
  const publish = async (n: number) =>
    (await cli('--business', String(t.businessId), '--format', 'idealista', '--customer-code', codeOf(n), '--json')).json as {
      id: number;
      format: string;
      url: string;
    };

  it('is published for a customer code with a URL shown once, served with no key, and gone once revoked', async () => {
    const feed = await publish(1);
    expect(feed).toEqual({
      id: expect.any(Number),
      format: 'idealista',
      url: expect.stringMatching(/^\/feeds\/[A-Za-z0-9]{43}\/idealista\.json$/),
    });
    const token = feed.url.split('/')[2];
    expect(JSON.stringify(await t.db.selectFrom('published_feeds').selectAll().execute())).not.toContain(token);
    const answer = await fetchFeed(feed.url);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body).customerCode).toBe(codeOf(1));
    // An unknown token, and this token under another format's name, are unknown paths.
    expect((await fetchFeed(feed.url.replace(token, 'A'.repeat(43)))).statusCode).toBe(404);
    expect((await fetchFeed(`/feeds/${token}/kyero.xml`)).statusCode).toBe(404);
    const kyero = (await cli('--business', String(t.businessId), '--json')).json as { url: string };
    expect((await fetchFeed(kyero.url.replace('kyero.xml', 'idealista.json'))).statusCode).toBe(404);
    expect((await cli('list', '--business', String(t.businessId), '--json')).json).toEqual(
      expect.arrayContaining([
        { id: feed.id, format: 'idealista', customer_code: codeOf(1), created_at: expect.any(String), revoked_at: null },
      ]),
    );
    expect((await cli('revoke', String(feed.id))).code).toBe(0);
    expect((await fetchFeed(feed.url)).statusCode).toBe(404);
  });

  it.each([
    ['without a customer code', ['--format', 'idealista'], '--customer-code must be'],
    ['with a code not of idealista’s shape', ['--format', 'idealista', '--customer-code', 'ilc123'], '--customer-code must be'],
    ['with upper-case letters', ['--format', 'idealista', '--customer-code', codeOf(2).toUpperCase()], '--customer-code must be'],
    ['for Kyero, given a customer code', ['--customer-code', codeOf(2)], '--customer-code is for --format idealista only'],
  ])('refuses a feed %s, storing nothing', async (_name, args, error) => {
    const before = await snapshot(t.db);
    const run = await cli('--business', String(t.businessId), ...args, '--json');
    expect(run.code).not.toBe(0);
    expect((run.json as { error: string }).error).toContain(error);
    expect(await snapshot(t.db)).toBe(before);
  });

  it("validates against idealista's customer.json: one item per listing it accepts, the others left out with the reason", async () => {
    const { url } = await publish(3);
    const document = JSON.parse((await fetchFeed(url)).body);
    expect(specSchemas().customer(document)).toBeNull();
    const ids = Object.fromEntries(
      await Promise.all(
        ['PUBLIC', 'APPROX', 'HIDDEN', 'NOBATH', 'TRANSFER', 'SHOP'].map(async (ref) => [ref, String(await propertyId(t.db, ref))]),
      ),
    );
    expect(document.customerProperties.map((p: { propertyCode: string }) => p.propertyCode).sort()).toEqual(
      [ids.PUBLIC, ids.APPROX, ids.SHOP].sort(),
    );
    const byRef = Object.fromEntries(document.customerProperties.map((p: { propertyReference: string }) => [p.propertyReference, p]));
    expect(byRef.PUBLIC).toMatchObject({
      propertyOperation: { operationType: 'sale', operationPrice: 100000 },
      propertyFeatures: { featuresType: 'flat', featuresConservation: 'good', featuresLiftAvailable: true },
      propertyDescriptions: [{ descriptionLanguage: 'spanish', descriptionText: 'Luminoso & exterior. Con ascensor.' }],
      propertyImages: [
        { imageOrder: 1, imageUrl: 'https://img.example/1.jpg' },
        { imageOrder: 2, imageLabel: 'kitchen', imageUrl: 'https://img.example/2.jpg' },
      ],
    });
    expect(byRef.SHOP.propertyOperation).toEqual({ operationType: 'rent', operationPrice: 2500, operationPriceTransfer: 40000 });
    expect(byRef.SHOP.propertyFeatures.featuresType).toBe('premises_commercial');
    const report = await idealistaReport(t.db, t.businessId);
    expect(report).toMatchObject({ published: 3 });
    expect(report!.leftOut.sort((a, b) => a.id - b.id)).toEqual(
      [
        { id: Number(ids.HIDDEN), ref: 'HIDDEN', reason: 'address_hidden' },
        { id: Number(ids.NOBATH), ref: 'NOBATH', reason: 'bathrooms' },
        { id: Number(ids.TRANSFER), ref: 'TRANSFER', reason: 'operation' },
      ].sort((a, b) => a.id - b.id),
    );
  });

  it('holds addresses as privacy allows: the street and exact position of a public one, the zone of an approximate one, nothing of a hidden one', async () => {
    const { url } = await publish(4);
    const body = (await fetchFeed(url)).body;
    const byRef = Object.fromEntries(
      JSON.parse(body).customerProperties.map((p: { propertyReference: string }) => [p.propertyReference, p]),
    );
    expect(byRef.PUBLIC.propertyAddress).toEqual({
      addressVisibility: 'full',
      addressStreetName: 'Calle Mayor',
      addressStreetNumber: '12',
      addressFloor: 'bj',
      addressPostalCode: '28013',
      addressTown: 'Madrid',
      addressCountry: 'Spain',
      addressCoordinatesPrecision: 'exact',
      addressCoordinatesLatitude: 40.4165123,
      addressCoordinatesLongitude: -3.7035678,
    });
    expect(byRef.APPROX.propertyAddress).toEqual({
      addressVisibility: 'hidden',
      addressPostalCode: '28013',
      addressTown: 'Madrid',
      addressCountry: 'Spain',
      addressCoordinatesPrecision: 'moved',
      addressCoordinatesLatitude: 40.43,
      addressCoordinatesLongitude: -3.7,
    });
    expect(byRef.APPROX.propertyOperation).toEqual({ operationType: 'sale', operationPrice: 300000 });
    // Nothing of the hidden or approximate streets, postal code or positions is anywhere in the document.
    expect(body).not.toMatch(/Escondida|Secreta|28999|40\.4321|3\.7012|40\.4198|3\.6987|40\.42[,}]/);
  });

  it("takes the customer's contact from the business's name and e-mail settings, and a change to them is a new version", async () => {
    const { url } = await publish(5);
    const first = await fetchFeed(url);
    expect(JSON.parse(first.body).customerContact).toEqual({ contactName: 'Inmobiliaria Test' });
    const settings = {
      business_id: t.businessId,
      host: 'smtp.agencia.es',
      port: 465,
      security: 'tls',
      username: null,
      password: null,
      connected_at: nowRfc3339(),
      updated_at: nowRfc3339(),
    };
    // Written as services/messaging/email.ts writes them: the settings, then the change signalled.
    await upsertEmailSettings(t.db, { ...settings, from_address: 'hola@agencia.es', reply_to: 'agentes@agencia.es' });
    signalChange(t.db);
    const second = await fetchFeed(url, { 'if-none-match': first.headers.etag as string });
    expect(second.statusCode).toBe(200);
    expect(JSON.parse(second.body).customerContact).toEqual({ contactName: 'Inmobiliaria Test', contactEmail: 'agentes@agencia.es' });
    // An address idealista's pattern refuses (its domain's last part is longer than 5 letters) is not sent.
    await upsertEmailSettings(t.db, { ...settings, from_address: 'hola@agencia.example', reply_to: null });
    signalChange(t.db);
    const third = JSON.parse((await fetchFeed(url)).body);
    expect(third.customerContact).toEqual({ contactName: 'Inmobiliaria Test' });
    expect(specSchemas().customer(third)).toBeNull();
  });

  it('has a strong ETag, answers 304 to If-None-Match, is compressed when accepted, and changes with the catalogue', async () => {
    const { url } = await publish(6);
    // The version names the catalogue's and the business's settings' (the contact's) versions.
    const { etag } = await expectConditionalFeed(fetchFeed, url, /^"idealista-\d+-\d+-\d+"$/);
    await importRecords(t.db, t.businessId, [listing('NEW', { price: 123456 })]);
    const changed = await fetchFeed(url, { 'if-none-match': etag, 'accept-encoding': 'gzip' });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag.replace(/"$/, '-gzip"'));
    const document = JSON.parse(gunzipSync(changed.rawPayload).toString());
    expect(document.customerProperties.map((p: { propertyCode: string }) => p.propertyCode)).toContain(
      String(await propertyId(t.db, 'NEW')),
    );
    expect(specSchemas().customer(document)).toBeNull();
  });

  it('the console publishes an idealista feed for owners with its customer code, and lists what it leaves out and why', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const before = await snapshot(t.db);
    const refused = await owner.submit('/console/catalogue', '/console/catalogue/feeds', { format: 'idealista', customer_code: 'ilc-no' });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('necesita el código de cliente de idealista');
    expect(await snapshot(t.db)).toBe(before);
    const published = await owner.submit('/console/catalogue', '/console/catalogue/feeds', {
      format: 'idealista',
      customer_code: codeOf(7),
    });
    expect(published.statusCode).toBe(201);
    const url = /id="new-feed" readonly value="http:\/\/[^/]+(\/feeds\/[A-Za-z0-9]{43}\/idealista\.json)"/.exec(published.body)![1];
    expect((await fetchFeed(url)).statusCode).toBe(200);
    const page = (await owner.get('/console/catalogue')).body;
    expect(page).toContain(`cliente ${codeOf(7)}`);
    expect(page).toContain('se quedan fuera');
    // Each reason in words, with the listings it leaves out (by reference, linked).
    expect(page).toContain('Su dirección está oculta');
    expect(page).toContain('idealista necesita el número de baños');
    expect(page).toContain('No se ofrece ni en venta ni en alquiler');
    expect(page).toMatch(new RegExp(`href="/console/properties/${await propertyId(t.db, 'HIDDEN')}">HIDDEN</a>`));
    expect(page).not.toMatch(/address_hidden|idealista_left/);
    const agent = await loggedIn(t.app, 'agent@uno.example');
    expect(
      (await agent.submit('/console/catalogue', '/console/catalogue/feeds', { format: 'idealista', customer_code: codeOf(8) })).statusCode,
    ).toBe(403);
    expect((await agent.get('/console/catalogue')).body).not.toContain('se quedan fuera');
  });

  it('carries the descriptions of every language a listing holds and its energy certificate and facts', async () => {
    await importRecords(t.db, t.businessId, [
      listing('LANGS', {
        description: '<p>Piso luminoso.</p>',
        descriptions: { en: '<p>Bright flat.</p>', de: '<p>Helle Wohnung.</p>' },
        titles: { en: 'Bright flat', de: 'Helle Wohnung' },
        energy_certificate: { status: 'available', rating: 'C', consumption_kwh_m2_year: 120, emissions_kg_co2_m2_year: 25 },
        floor: 4,
        community_fees: 75,
        year_built: 2004,
        condition: 'a-reformar',
      }),
    ]);
    const { url } = await publish(10);
    const document = JSON.parse((await fetchFeed(url)).body);
    expect(specSchemas().customer(document)).toBeNull();
    const item = document.customerProperties.find((p: { propertyReference: string }) => p.propertyReference === 'LANGS');
    expect(item.propertyDescriptions).toEqual([
      { descriptionLanguage: 'spanish', descriptionText: 'Piso luminoso.' },
      { descriptionLanguage: 'english', descriptionText: 'Bright flat.' },
      { descriptionLanguage: 'german', descriptionText: 'Helle Wohnung.' },
    ]);
    expect(item.propertyOperation).toEqual({ operationType: 'sale', operationPrice: 100000, operationPriceCommunity: 75 });
    expect(item.propertyAddress.addressFloor).toBe('4');
    expect(item.propertyFeatures).toMatchObject({
      featuresBuiltYear: 2004,
      featuresConservation: 'toRestore',
      featuresEnergyCertificateRating: 'C',
      featuresEnergyCertificatePerformance: 120,
    });
  });

  it("another business's idealista feed holds its own catalogue only", async () => {
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    await importRecords(t.db, other.id, [listing('OTHER')]);
    const { url } = (await cli('--business', String(other.id), '--format', 'idealista', '--customer-code', codeOf(9), '--json')).json as {
      url: string;
    };
    const document = JSON.parse((await fetchFeed(url)).body);
    expect(document.customerContact).toEqual({ contactName: 'Agencia Dos' });
    expect(document.customerProperties.map((p: { propertyReference: string }) => p.propertyReference)).toEqual(['OTHER']);
  });
});
