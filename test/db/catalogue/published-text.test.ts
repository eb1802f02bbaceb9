/**
 * What a listing publishes is safe wherever it lands (issue 41, CONTRACT §5, §8, §15), on this
 * process's engine: a control character saved in the console or imported never reaches the
 * Kyero feed, which stays valid against the XSD (checked with xmllint), even for a listing
 * stored before listings were cleaned; a hostile image URL is published percent-encoded; markup
 * in the address, places and features is published as plain text.
 */
import { describe, expect, it } from 'vitest';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { inmo } from '../../helpers/cli.ts';
import { get, withApp } from '../../helpers/http.ts';
import { validateXml, xmllintHere } from '../../helpers/xmllint.ts';

const canValidate = xmllintHere('published text test');

describe('text and URLs a listing publishes', () => {
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
    },
  });

  const feed = async () => {
    const published = await inmo(
      { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' },
      'feeds',
      'publish',
      '--business',
      String(t.businessId),
      '--json',
    );
    const { url } = published.json as { url: string };
    const answer = await t.app.inject({ method: 'GET', url });
    expect(answer.statusCode).toBe(200);
    return answer.body;
  };

  it('keeps C0 control characters out of the Kyero feed, saved in the console or imported; the feed validates', async () => {
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const saved = await agent.submit('/console/properties/new', '/console/properties', {
      external_ref: 'CONSOLE-1',
      title: 'Bonito\u0001piso',
      description: 'Bonito\u0001piso con\u001fterraza',
      operation: ['venta'],
      type: 'apartamento',
      price: '185000',
      city: 'Mad\u000crid',
      province: 'Madrid',
      address_privacy: 'hidden',
      status: 'disponible',
      public: '1',
    });
    expect(saved.statusCode).toBe(303);
    const summary = await importRecords(t.db, t.businessId, [
      listing('IMPORTED-1', { description: 'Línea\u0002 uno\nLínea dos', city: 'Zara\u0008goza', features: [{ key: 'ter\u0004raza' }] }),
    ]);
    expect(summary.rejected).toEqual([]);
    const stored = await t.db.selectFrom('properties').select(['title', 'description', 'city']).orderBy('id').execute();
    expect(stored).toEqual([
      { title: 'Bonitopiso', description: 'Bonitopiso conterraza', city: 'Madrid' },
      { title: 'Piso IMPORTED-1', description: 'Línea uno\nLínea dos', city: 'Zaragoza' },
    ]);
    const xml = await feed();
    // eslint-disable-next-line no-control-regex -- the characters under test
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(xml).toContain('<desc><es>Bonitopiso conterraza</es></desc>');
    expect(xml).toContain('<town>Zaragoza</town>');
    if (canValidate) expect(validateXml(xml)).toMatchObject({ ok: true });
  });

  it('writes a well-formed feed from a listing stored with a control character before the rule', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1')]);
    const id = await propertyId(t.db, 'OLD-1');
    const { api_doc } = await t.db.selectFrom('property_docs').select('api_doc').where('property_id', '=', id).executeTakeFirstOrThrow();
    const doc = JSON.parse(api_doc) as Record<string, unknown>;
    doc.description = 'Bonito\u0001piso \ud800';
    doc.city = 'Mad\u000crid';
    await t.db
      .updateTable('property_docs')
      .set({ api_doc: JSON.stringify(doc) })
      .where('property_id', '=', id)
      .execute();
    const xml = await feed();
    expect(xml).toContain('<town>Madrid</town>');
    expect(xml).toContain('<desc><es>Bonitopiso \ufffd</es></desc>');
    if (canValidate) expect(validateXml(xml)).toMatchObject({ ok: true });
  });

  it('publishes a hostile image URL percent-encoded and markup in places and features as plain text', async () => {
    const summary = await importRecords(t.db, t.businessId, [
      listing('HOSTILE-1', {
        address_privacy: 'public',
        images: [{ url: 'https://ok.example/a.jpg" onerror="alert(1)', public: true }],
        city: 'Madrid<img src=x onerror=alert(2)>',
        province: '<b>Madrid</b>',
        address: 'Calle Mayor 1<script>alert(3)</script>',
        building_name: '<i>Torre</i>',
        postal_code: '<b>28013</b>',
        features: [{ key: 'pool<svg onload=alert(4)>', label: '<b>Piscina</b>' }],
        specs: { url: 'https://ok.example/tour' },
      }),
      listing('HOSTILE-2', { specs: { url: 'javascript:alert(13)' } }),
    ]);
    expect(summary.rejected).toHaveLength(1);
    const id = await propertyId(t.db, 'HOSTILE-1');
    const { body } = await get(t.app, `/properties/${id}`, t.key);
    expect(body.data).toMatchObject({
      images: [expect.objectContaining({ url: 'https://ok.example/a.jpg%22%20onerror=%22alert(1)' })],
      city: 'Madrid',
      province: 'Madrid',
      address: 'Calle Mayor 1',
      postal_code: '28013',
      specs: expect.objectContaining({ building_name: 'Torre', url: 'https://ok.example/tour' }),
      features: [{ key: 'pool', label: 'Piscina', value: null, isextra: false }],
    });
    expect(JSON.stringify(body.data)).not.toMatch(/[<>"']alert|javascript:/);
  });
});
