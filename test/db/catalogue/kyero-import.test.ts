/**
 * Kyero v3 feeds imported (issue 28, CONTRACT §15), on this process's engine: the CLI and the
 * console tell a feed from NDJSON by its content, import what can be mapped, and report each
 * property that cannot with its position, `<id>` and reason; a document that declares a DTD
 * imports nothing.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { propertyId, REPO_ROOT, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

const QUIRKS = join(REPO_ROOT, 'test', 'fixtures', 'kyero', 'quirks.xml');

describe('Kyero v3 feeds imported', () => {
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
    },
  });
  const cli = (...args: string[]) =>
    inmo({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' }, 'properties', 'import', '--business', String(t.businessId), ...args);

  it('inmo properties import tells a feed by its content, imports what maps and lists each refused property with its position and <id>', async () => {
    const run = await cli(QUIRKS);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('created 3, updated 0, rejected 2');
    expect(run.stdout).toContain('property 4 (<id> D-400): <type> "Yacht" is not a property type inmo can place');
    expect(run.stdout).toContain('property 5 (<id> E-500): the price is in GBP: inmo keeps prices in euros');
    const json = await cli(QUIRKS, '--json');
    expect(json.json).toMatchObject({
      format: 'kyero',
      created: 0,
      updated: 3,
      rejected: [
        { line: 4, id: 'D-400' },
        { line: 5, id: 'E-500' },
      ],
    });

    const villa = (await get(t.app, `/properties/${await propertyId(t.db, 'kyero:A-100')}`, t.key)).body.data;
    expect(villa).toMatchObject({
      operation: 'venta',
      type: 'casa',
      subtype: 'Villa',
      price: 245000,
      title: 'Villa con vistas al mar.',
      address: 'Montgó, Jávea',
      lat: 38.79,
      lon: 0.17,
      city: 'Jávea',
      bedrooms: 4,
      status: 'disponible',
    });
    expect(villa.images.map((i: { url: string; is_primary: boolean }) => [i.url, i.is_primary])).toEqual([
      ['https://img.example/a-100/1.jpg', true],
      ['https://img.example/a-100/2.jpg', false],
    ]);
    const flat = (await get(t.app, `/properties/${await propertyId(t.db, 'kyero:B-200')}`, t.key)).body.data;
    expect(flat).toMatchObject({ operation: 'alquiler', specs: { price_calc: { price_alq: 3033.33 } } });
    expect(flat.lat).toBeUndefined();
  });

  it('reads a feed as NDJSON when told to, and the other way round', async () => {
    const forced = await cli(QUIRKS, '--format', 'ndjson', '--json');
    expect(forced.json).toMatchObject({ format: 'ndjson', created: 0 });
    expect((forced.json as { rejected: unknown[] }).rejected.length).toBeGreaterThan(10);
    const bad = await cli(QUIRKS, '--format', 'csv');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('Allowed choices are ndjson, kyero');
  });

  it('refuses a document that declares a DTD and imports nothing of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inmo-kyero-'));
    const path = join(dir, 'evil.xml');
    writeFileSync(
      path,
      `<?xml version="1.0"?><!DOCTYPE root [<!ENTITY x SYSTEM "file:///etc/passwd">]><root><kyero><feed_version>3</feed_version></kyero><property><id>&x;</id></property></root>`,
    );
    const before = await snapshot(t.db);
    const run = await cli(path);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('declares a DTD');
    expect(run.stderr).not.toContain('root:');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('the console takes a feed as an upload and reports its refused properties with their <id>', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const token = await owner.token('/console/catalogue');
    const sent = await owner.upload(
      '/console/catalogue',
      { _csrf: token },
      { name: 'feed.xml', field: 'file', content: readFileSync(QUIRKS), type: 'text/xml' },
    );
    expect(sent.statusCode).toBe(303);
    const page = sent.headers.location as string;
    let body = '';
    // The page polls while the import runs.
    await expect.poll(async () => (body = (await owner.get(page)).body).includes('data-poll')).toBe(false);
    expect(body).toContain('inmueble 4 (&lt;id&gt; D-400)');
    // In the page's language, the feed's element named (import-faults.ts).
    expect(body).toContain('Tipo · <code>type</code>: «Yacht» no es un tipo de inmueble que inmo sepa clasificar.');
    expect(await propertyId(t.db, 'kyero:C-300')).toBeGreaterThan(0);
  }, 60_000);
});
