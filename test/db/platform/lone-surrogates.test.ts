/**
 * A lone UTF-16 surrogate becomes U+FFFD wherever a listing's text enters storage (issue 55,
 * item 8; docs/security.md), on this process's engine: an NDJSON file imported (the reader
 * thread: JSON's `"\ud800"`), a Kyero feed whose title inmo cuts from the description, and a
 * photo title cut in the console. Before, SQLite stored invalid UTF-8 and the API and the
 * idealista feed published the escape `\ud800`; now both engines store the same valid text and
 * every document carries U+FFFD. A surrogate pair (an emoji) is kept.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

/** A half of a surrogate pair without its other half (in `u` mode a pair is one code point). */
const LONE = /[\ud800-\udfff]/u;
/** JSON's escape of a surrogate half, as `JSON.stringify` writes a lone one. */
const ESCAPED = /\\ud[89a-f][0-9a-f]{2}/i;

const folder = mkdtempSync(join(tmpdir(), 'inmo-surrogates-'));

describe('lone surrogates in a listing’s text', () => {
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
    },
  });
  const env = () => ({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' });

  /** The API's property `id`: its raw body (valid UTF-8, no surrogate escape) and its object. */
  const published = async (id: number) => {
    const r = await t.app.inject({ method: 'GET', url: `/v1/ext/properties/${id}`, headers: { 'x-api-key': t.key } });
    expect(r.statusCode).toBe(200);
    const body = new TextDecoder('utf-8', { fatal: true }).decode(r.rawPayload);
    expect(body).not.toMatch(ESCAPED);
    return (JSON.parse(body) as { data: Record<string, unknown> }).data;
  };

  /** The idealista feed's document, as a portal reads it: valid UTF-8, no surrogate escape. */
  const idealista = async () => {
    const run = await inmo(
      env(),
      'feeds',
      'publish',
      '--business',
      String(t.businessId),
      '--format',
      'idealista',
      '--customer-code',
      `ilc${'7'.repeat(40)}`,
      '--json',
    );
    const answer = await t.app.inject({ method: 'GET', url: (run.json as { url: string }).url });
    expect(answer.statusCode).toBe(200);
    const body = new TextDecoder('utf-8', { fatal: true }).decode(answer.rawPayload);
    expect(body).not.toMatch(ESCAPED);
    return body;
  };

  it('stores and publishes U+FFFD for one imported from an NDJSON file (JSON’s \\ud800), keeping an emoji', async () => {
    const line = JSON.stringify(
      listing('SUR-1', {
        title: 'Piso \ud800 bonito 😀',
        description: '<p>Des\udc00cripción</p>',
        city: 'Ma\ud83drid',
        features: [{ key: 'vistas', label: 'Vistas \udfff' }],
      }),
    );
    // The file holds the escapes as JSON writes them.
    expect(line).toContain('\\ud800');
    const file = join(folder, `lone-${t.businessId}.ndjson`);
    writeFileSync(file, `${line}\n`);
    const run = await inmo(env(), 'properties', 'import', '--business', String(t.businessId), file, '--json');
    expect(run.json).toMatchObject({ created: 1, rejected: [] });

    const id = await propertyId(t.db, 'SUR-1');
    const stored = await t.db
      .selectFrom('properties')
      .select(['title', 'description', 'city'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ title: 'Piso \ufffd bonito 😀', description: '<p>Des\ufffdcripción</p>', city: 'Ma\ufffdrid' });

    const data = await published(id);
    expect(data.title).toBe('Piso \ufffd bonito 😀');
    expect(data.description).toBe('<p>Des\ufffdcripción</p>');
    expect(data.city).toBe('Ma\ufffdrid');
    expect(JSON.stringify(data.features)).toContain('Vistas \ufffd');

    const feed = await idealista();
    expect(feed).toContain('Des\ufffdcripción');
    expect(feed).not.toMatch(LONE);
  });

  it('publishes U+FFFD, never half an emoji, for a Kyero title cut from its description', async () => {
    // No <title>: inmo takes the description's first sentence, cut to 120 characters.
    const sentence = `a${'😀'.repeat(70)}`;
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<root><kyero><feed_version>3</feed_version></kyero>
<property><id>E-1</id><date>2026-01-02 10:00:00</date><ref>E-1</ref><price>150000</price><currency>EUR</currency>
<price_freq>sale</price_freq><type>Apartment</type><town>Málaga</town><province>Málaga</province>
<location><latitude>36.72</latitude><longitude>-4.42</longitude></location><beds>2</beds><baths>1</baths>
<surface_area><built>80</built></surface_area><desc><es>${sentence}. Con vistas.</es></desc></property>
</root>`;
    const file = join(folder, `emoji-${t.businessId}.xml`);
    writeFileSync(file, xml);
    const run = await inmo(env(), 'properties', 'import', '--business', String(t.businessId), file, '--json');
    expect(run.json).toMatchObject({ format: 'kyero', created: 1, rejected: [] });
    const data = await published(await propertyId(t.db, 'kyero:E-1'));
    expect(typeof data.title).toBe('string');
    expect(data.title as string).not.toMatch(LONE);
    expect((data.title as string).startsWith('a😀😀')).toBe(true);
    expect(await idealista()).not.toMatch(LONE);
  });

  it('stores U+FFFD for a photo title the console cuts inside an emoji', async () => {
    await importRecords(t.db, t.businessId, [
      listing('FOTO-1', { images: [{ url: 'https://img.example/1.jpg', order: 1, public: true, is_primary: true }] }),
    ]);
    const id = await propertyId(t.db, 'FOTO-1');
    const image = await t.db.selectFrom('property_images').select('id').where('property_id', '=', id).executeTakeFirstOrThrow();
    const agent = await loggedIn(t.app, 'agent@uno.example');
    // 499 letters and an emoji: 500 characters, 501 UTF-16 code units; the title keeps 500 code units.
    const title = `${'a'.repeat(499)}😀`;
    const saved = await agent.submit(`/console/properties/${id}`, `/console/properties/${id}/images/${image.id}`, {
      action: 'title',
      title,
    });
    expect(saved.statusCode).toBe(303);
    const stored = await t.db.selectFrom('property_images').select('title').where('id', '=', image.id).executeTakeFirstOrThrow();
    expect(stored.title).toBe(`${'a'.repeat(499)}\ufffd`);
    const images = (await published(id)).images as Array<{ title: string }>;
    expect(images[0].title).toBe(`${'a'.repeat(499)}\ufffd`);
    const listed = await get(t.app, '/properties', t.key);
    expect(JSON.stringify(listed.body)).not.toMatch(LONE);
  });
});
