/**
 * A Kyero v3 feed in several languages, through inmo and out again (issue 46, CONTRACT §15,
 * §22): every `desc/<lang>` of the five languages is imported, served by the API with `lang=de`
 * in German where the listing has it, and written again in each language held by the published
 * feed, which the Kyero XSD validates; `energy_rating` becomes the energy certificate and is
 * written back. A feed published by one business and imported by another keeps every language.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { importCatalogueFile } from '../../../src/services/catalogue/import/import.ts';
import { publishFeed } from '../../../src/services/catalogue/feeds/published-feeds.ts';
import { propertyId } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { validateXml, xmllintHere } from '../../helpers/xmllint.ts';

const canValidate = xmllintHere('Kyero languages test');

const FEED = `<?xml version="1.0" encoding="UTF-8"?>
<root><kyero><feed_version>3</feed_version></kyero>
  <property>
    <id>V-1</id><date>2026-10-01 09:30:00</date><ref>V1</ref><price>495000</price><price_freq>sale</price_freq>
    <type>Villa</type><town>Jávea</town><province>Alicante</province><beds>4</beds><baths>3</baths>
    <energy_rating><consumption>C</consumption><emissions>D</emissions></energy_rating>
    <desc>
      <en><![CDATA[Villa with sea views. Four bedrooms & a pool.]]></en>
      <es><![CDATA[Villa con vistas al mar. Cuatro dormitorios y piscina.]]></es>
      <de><![CDATA[Villa mit Meerblick. Vier Schlafzimmer und Pool.]]></de>
    </desc>
    <images><image id="1"><url>https://img.example/v-1/1.jpg</url></image></images>
  </property>
  <property>
    <id>A-2</id><date>2026-10-02 09:30:00</date><ref>A2</ref><price>1200</price><price_freq>month</price_freq>
    <type>Apartment</type><town>Dénia</town><province>Alicante</province>
    <energy_rating><consumption>X</consumption></energy_rating>
    <desc><en>Flat by the marina.</en></desc>
    <images/>
  </property>
</root>
`;

const write = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'inmo-kyero-')), 'feed.xml');
  writeFileSync(path, text);
  return path;
};

describe('a Kyero feed in English, Spanish and German', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      const summary = await importCatalogueFile(db, businessId, write(FEED));
      expect(summary).toMatchObject({ created: 2, rejected: [] });
    },
  });

  const exported = async (businessId = t.businessId) => {
    const { url } = await publishFeed(t.db, businessId);
    const response = await t.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    return response.body;
  };
  const propertyXml = (xml: string, id: string) => new RegExp(`<property><id>${id}</id>.*?</property>`, 's').exec(xml)![0];

  it('is served with lang=de in German where the listing has it, else in its default language', async () => {
    const villa = await propertyId(t.db, 'kyero:V-1');
    const flat = await propertyId(t.db, 'kyero:A-2');
    const german = await get(t.app, '/properties?lang=de', t.key);
    expect(german.headers['content-language']).toBe('de');
    const byId = new Map(german.body.data.map((p: { id: number }) => [p.id, p]));
    expect(byId.get(villa)).toMatchObject({
      title: 'Villa mit Meerblick.',
      description: '<p>Villa mit Meerblick. Vier Schlafzimmer und Pool.</p>',
    });
    expect(byId.get(flat)).toMatchObject({ title: 'Flat by the marina.', description: '<p>Flat by the marina.</p>' });
    const one = await get(t.app, `/properties/${villa}?lang=ge`, t.key);
    expect(one.body.data.title).toBe('Villa mit Meerblick.');
    const plain = await get(t.app, `/properties/${villa}`, t.key);
    expect(plain.body.data).toMatchObject({ title: 'Villa con vistas al mar.' });
    expect(plain.body.data.specs).toMatchObject({
      energy_certificate: { status: 'available', rating: 'C', consumption_kwh_m2_year: null, emissions_kg_co2_m2_year: null },
      emissions_rating: 'D',
    });
    const english = await get(t.app, `/properties/${villa}?lang=en`, t.key);
    expect(english.body.data.description).toBe('<p>Villa with sea views. Four bedrooms &amp; a pool.</p>');
    expect((await get(t.app, `/properties/${flat}`, t.key)).body.data.specs.energy_certificate).toEqual({
      status: 'in_process',
      rating: null,
      consumption_kwh_m2_year: null,
      emissions_kg_co2_m2_year: null,
    });
  });

  it('is published again with the three languages and the energy rating', async () => {
    const xml = await exported();
    const villa = propertyXml(xml, String(await propertyId(t.db, 'kyero:V-1')));
    expect(villa).toContain(
      '<desc><es>Villa con vistas al mar. Cuatro dormitorios y piscina.</es><en>Villa with sea views. Four bedrooms &amp; a pool.</en>' +
        '<de>Villa mit Meerblick. Vier Schlafzimmer und Pool.</de></desc>',
    );
    expect(villa).toContain('<energy_rating><consumption>C</consumption><emissions>D</emissions></energy_rating>');
    const flat = propertyXml(xml, `${await propertyId(t.db, 'kyero:A-2')}-alquiler`);
    expect(flat).toContain('<desc><en>Flat by the marina.</en></desc>');
    expect(flat).toContain('<energy_rating><consumption>X</consumption></energy_rating>');
  });

  it.skipIf(!canValidate)('validates against the Kyero v3 XSD', async () => {
    const result = validateXml(await exported());
    expect(result.output).toContain('validates');
    expect(result.ok).toBe(true);
  });

  it('is imported by another business with every language and the certificate', async () => {
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    const summary = await importCatalogueFile(t.db, other.id, write(await exported()));
    expect(summary).toMatchObject({ created: 2, rejected: [] });
    const villa = await t.db
      .selectFrom('properties')
      .select(['title', 'titles', 'descriptions', 'specs'])
      .where('business_id', '=', other.id)
      .where('external_ref', '=', `kyero:${await propertyId(t.db, 'kyero:V-1')}`)
      .executeTakeFirstOrThrow();
    expect(villa.title).toBe('Villa con vistas al mar.');
    expect(Object.keys(JSON.parse(villa.titles!))).toEqual(['es', 'en', 'de']);
    expect(JSON.parse(villa.descriptions!).de).toBe('<p>Villa mit Meerblick. Vier Schlafzimmer und Pool.</p>');
    expect(JSON.parse(villa.specs!)).toMatchObject({
      emissions_rating: 'D',
      energy_certificate: { status: 'available', rating: 'C' },
    });
  });
});
