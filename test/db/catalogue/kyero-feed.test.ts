/**
 * Publishing a Kyero v3 feed (issue 28, CONTRACT §15), on this process's engine: a URL with an
 * unguessable token (only its hash kept), no key needed, 404 once revoked; the document holds
 * the public catalogue one `<property>` per operation, with privacy as the API publishes it,
 * validates against the Kyero XSD, has a strong ETag, answers 304 and is compressed; and a feed
 * published by one business and imported into another gives back the same listings.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { importCatalogueFile } from '../../../src/services/catalogue/import/import.ts';
import { CatalogueChangedError, feedDocument, feedVersion, publishFeed } from '../../../src/services/catalogue/feeds/published-feeds.ts';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { businessWithKey, freshDb, importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { expectConditionalFeed } from '../../helpers/feeds.ts';
import { withApp } from '../../helpers/http.ts';
import { validateXml, xmllintHere } from '../../helpers/xmllint.ts';

const canValidate = xmllintHere('Kyero feed test');

describe('a published Kyero feed', () => {
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      await importRecords(db, businessId, [
        listing('SALE', {
          address_privacy: 'public',
          address: 'Calle Mayor 1, 3ºB',
          lat: 40.4165123,
          lon: -3.7035678,
          description: '<p>Luminoso &amp; <b>exterior</b>.</p><p>Con ascensor.</p>',
        }),
        listing('BOTH', {
          operation: 'venta,alquiler',
          price: 300000,
          price_rent: 1200.5,
          rental_type: 'anual',
          address_privacy: 'approximate',
          address_approximate: 'Chamberí, Madrid',
          lat: 40.4321987,
          lon: -3.7012345,
        }),
        listing('RENT', {
          operation: 'alquiler',
          price: null,
          price_rent: 900,
          address_privacy: 'hidden',
          lat: 40.41,
          lon: -3.7,
          postal_code: '28013',
        }),
        listing('TRANSFER', { operation: 'traspaso', price: null, price_transfer: 50000 }),
        listing('HIDDEN', { public: false }),
        listing('SOLD', { status: 'vendida' }),
        listing('PHOTOS', {
          images: Array.from({ length: 60 }, (_, i) => ({ url: `https://img.example/p/${i}.jpg`, order: 60 - i, public: true })),
        }),
      ]);
    },
  });
  const cli = (...args: string[]) => inmo({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' }, 'feeds', 'publish', ...args);
  const fetchFeed = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
  const publish = async () => (await cli('--business', String(t.businessId), '--json')).json as { id: number; url: string };

  it('is published with a URL shown once, served with no key, and gone once revoked', async () => {
    const before = await snapshot(t.db);
    const feed = await publish();
    expect(feed.url).toMatch(/^\/feeds\/[A-Za-z0-9]{43}\/kyero\.xml$/);
    const stored = await t.db.selectFrom('published_feeds').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(feed.url.split('/')[2]);
    const answer = await fetchFeed(feed.url);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect((await fetchFeed(feed.url.replace(/[A-Za-z0-9]{43}/, 'A'.repeat(43)))).statusCode).toBe(404);
    expect((await cli('list', '--business', String(t.businessId), '--json')).json).toEqual([
      { id: feed.id, format: 'kyero', customer_code: null, created_at: expect.any(String), revoked_at: null },
    ]);
    expect((await cli('revoke', String(feed.id))).code).toBe(0);
    expect((await fetchFeed(feed.url)).statusCode).toBe(404);
    // Revoked by another process (straight in the database here): refused within a second.
    const again = await publish();
    expect((await fetchFeed(again.url)).statusCode).toBe(200);
    await t.db.updateTable('published_feeds').set({ revoked_at: nowRfc3339() }).where('id', '=', again.id).execute();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await fetchFeed(again.url)).statusCode).toBe(404);
    expect(before).not.toBe(await snapshot(t.db));
  });

  it('holds the public catalogue one property per operation, with privacy as the API publishes it', async () => {
    const { url } = await publish();
    const xml = (await fetchFeed(url)).body;
    const properties = [...xml.matchAll(/<property>(.*?)<\/property>/gs)].map((m) => m[1]);
    const idOf = (p: string) => /<id>([^<]+)<\/id>/.exec(p)![1];
    const ids = await Promise.all(['SALE', 'BOTH', 'RENT', 'PHOTOS'].map((ref) => propertyId(t.db, ref)));
    const [sale, both, rent, photos] = ids;
    expect(properties.map(idOf).sort()).toEqual([`${sale}`, `${both}`, `${both}-alquiler`, `${rent}-alquiler`, `${photos}`].sort());
    const byId = new Map(properties.map((p) => [idOf(p), p]));
    // Exact address: exact position and address.
    expect(byId.get(`${sale}`)).toContain('<price>100000</price><price_freq>sale</price_freq>');
    expect(byId.get(`${sale}`)).toContain('<location><latitude>40.4165123</latitude><longitude>-3.7035678</longitude></location>');
    expect(byId.get(`${sale}`)).toContain('<location_detail>Calle Mayor 1, 3ºB</location_detail>');
    expect(byId.get(`${sale}`)).toContain('<desc><es>Luminoso &amp; exterior.\n\nCon ascensor.</es></desc>');
    // Approximate: the rounded position and the approximate address; a rent as a monthly price.
    expect(byId.get(`${both}`)).toContain('<location><latitude>40.43</latitude><longitude>-3.7</longitude></location>');
    expect(byId.get(`${both}`)).toContain('<location_detail>Chamberí, Madrid</location_detail>');
    expect(byId.get(`${both}-alquiler`)).toContain('<price>1201</price><price_freq>month</price_freq>');
    // Hidden: no position, no detail.
    expect(byId.get(`${rent}-alquiler`)).not.toMatch(/<location|<location_detail|28013/);
    expect(byId.get(`${rent}-alquiler`)).toContain('<town>Madrid</town><province>Madrid</province>');
    // At most 50 images, by order.
    const images = [...byId.get(`${photos}`)!.matchAll(/<url>([^<]+)<\/url>/g)].map((m) => m[1]);
    expect(images).toHaveLength(50);
    expect(images.slice(0, 2)).toEqual(['https://img.example/p/59.jpg', 'https://img.example/p/58.jpg']);
  });

  it('the console publishes a feed for owners, shows its URL once, and revokes it; agents and other businesses cannot', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const published = await owner.submit('/console/catalogue', '/console/catalogue/feeds', {});
    expect(published.statusCode).toBe(201);
    const url = /id="new-feed" readonly value="http:\/\/[^/]+(\/feeds\/[A-Za-z0-9]{43}\/kyero\.xml)"/.exec(published.body)![1];
    expect((await fetchFeed(url)).statusCode).toBe(200);
    const page = (await owner.get('/console/catalogue')).body;
    expect(page).not.toContain(url);
    const [{ id }] = await t.db.selectFrom('published_feeds').select('id').execute();
    const agent = await loggedIn(t.app, 'agent@uno.example');
    expect((await agent.submit('/console/catalogue', '/console/catalogue/feeds', {})).statusCode).toBe(403);
    expect((await agent.submit('/console/catalogue', `/console/catalogue/feeds/${id}/revoke`, {})).statusCode).toBe(403);
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    await userWithPassword(t.db, other.id, 'owner@dos.example', 'owner');
    const stranger = await loggedIn(t.app, 'owner@dos.example');
    expect((await stranger.submit('/console/catalogue', `/console/catalogue/feeds/${id}/revoke`, {})).statusCode).toBe(404);
    expect((await fetchFeed(url)).statusCode).toBe(200);
    expect((await owner.submit('/console/catalogue', `/console/catalogue/feeds/${id}/revoke`, {})).statusCode).toBe(303);
    expect((await fetchFeed(url)).statusCode).toBe(404);
  });

  it.skipIf(!canValidate)('validates against the Kyero v3 XSD', async () => {
    const { url } = await publish();
    const result = validateXml((await fetchFeed(url)).rawPayload);
    expect(result.output).toContain('validates');
    expect(result.ok).toBe(true);
  });

  it('has a strong ETag, answers 304 to If-None-Match, is compressed when accepted, and changes with the catalogue', async () => {
    const { url } = await publish();
    const { etag } = await expectConditionalFeed(fetchFeed, url, /^"kyero-\d+-\d+"$/);
    await importRecords(t.db, t.businessId, [listing('NEW')]);
    // Built while being sent, compressed on the way.
    const changed = await fetchFeed(url, { 'if-none-match': etag, 'accept-encoding': 'gzip' });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag.replace(/"$/, '-gzip"'));
    expect(gunzipSync(changed.rawPayload).toString()).toContain(`<id>${await propertyId(t.db, 'NEW')}</id>`);
  });

  it('is read a step at a time, and a change to the catalogue while it is sent cuts it short, keeping nothing', async () => {
    await importRecords(
      t.db,
      t.businessId,
      Array.from({ length: 520 }, (_, i) => listing(`MANY-${i}`)),
    );
    const { url } = await publish();
    const token = url.split('/')[2];
    const live = (await feedVersion(t.db, token))!;
    const building = (await feedDocument(t.db, live.feed))!;
    expect('chunks' in building).toBe(true);
    const chunks = (building as { chunks: () => AsyncIterable<string> }).chunks()[Symbol.asyncIterator]();
    expect((await chunks.next()).value).toContain('<root>');
    // The first 500 listings leave before the rest is read.
    expect(((await chunks.next()).value as string).match(/<property>/g)).toHaveLength(500);
    await importRecords(t.db, t.businessId, [listing('MANY-0', { price: 99_000 })]);
    await expect(chunks.next()).rejects.toThrow(CatalogueChangedError);
    // Nothing was kept of it: the next request builds the new version's document, whole.
    const next = (await feedDocument(t.db, live.feed))!;
    expect(next.version).not.toBe(building.version);
    expect('chunks' in next).toBe(true);
    const first = await fetchFeed(url);
    expect(first.body.match(/<property>/g)!.length).toBeGreaterThan(520);
    expect(first.body).toContain('<price>99000</price>');
    expect(first.body.trimEnd().endsWith('</root>')).toBe(true);
  });

  it('imported into another business, gives back the same listings for every field Kyero carries', async () => {
    const { url } = await publish();
    const dir = mkdtempSync(join(tmpdir(), 'inmo-kyero-'));
    const path = join(dir, 'feed.xml');
    writeFileSync(path, (await fetchFeed(url)).rawPayload);
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    const summary = await importCatalogueFile(t.db, other.id, path);
    expect(summary).toMatchObject({ format: 'kyero', created: 5, rejected: [] });
    const published = async (businessId: number) =>
      t.db
        .selectFrom('properties')
        .select([
          'type',
          'subtype',
          'op_venta',
          'op_alquiler',
          'price',
          'price_rent',
          'bedrooms',
          'bathrooms',
          'size_total',
          'city',
          'province',
          'country',
          'pub_lat',
          'pub_lon',
        ])
        .where('business_id', '=', businessId)
        .where('listed', '=', 1)
        .orderBy('price')
        .orderBy('price_rent')
        .execute();
    const mine = await published(t.businessId);
    const theirs = await published(other.id);
    // A listing for sale and rent comes back as two, one per operation: compare each offer.
    const offers = (rows: typeof mine) =>
      rows
        .flatMap((r) => [
          ...(r.op_venta ? [{ ...r, op_alquiler: 0, price_rent: null, price: r.price }] : []),
          ...(r.op_alquiler ? [{ ...r, op_venta: 0, price: null, price_rent: Math.round(r.price_rent!) }] : []),
        ])
        .map(({ pub_lat, pub_lon, ...r }) => ({
          ...r,
          pub_lat: pub_lat === null ? null : Math.round(pub_lat * 100) / 100,
          pub_lon: pub_lon === null ? null : Math.round(pub_lon * 100) / 100,
        }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    // Hidden addresses publish no position: the other business has none either.
    expect(offers(theirs)).toEqual(offers(mine).map((r) => (r.price_rent === 900 ? { ...r, pub_lat: null, pub_lon: null } : r)));
  });
});

describe('feed documents kept in memory', () => {
  it('are kept apart for two databases of one process whose business and catalogue version are the same', async () => {
    const made = [await freshDb(), await freshDb()];
    try {
      const bodies: string[] = [];
      for (const [i, { db }] of made.entries()) {
        const { businessId } = await businessWithKey(db);
        await importRecords(db, businessId, [listing(`ONLY-IN-${i}`, { price: 111_000 + i })]);
        const { url } = await publishFeed(db, businessId);
        const live = (await feedVersion(db, url.split('/')[2]))!;
        // Built once (and kept), then given whole from memory.
        const building = (await feedDocument(db, live.feed))! as { chunks: () => AsyncIterable<string> };
        for await (const chunk of building.chunks()) void chunk;
        const kept = (await feedDocument(db, live.feed))!;
        expect('document' in kept).toBe(true);
        bodies.push((kept as { document: Buffer }).document.toString());
      }
      expect(bodies[0]).toContain('<price>111000</price>');
      expect(bodies[1]).toContain('<price>111001</price>');
      expect(bodies[1]).not.toContain('<price>111000</price>');
    } finally {
      for (const { db } of made) await db.destroy();
    }
  });
});
