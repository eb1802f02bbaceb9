/** The catalogue changes feed, GET /properties/changes (CONTRACT §13; services/catalogue/changes.ts). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../src/services/catalogue/changes.ts';
import { importFullCatalogueFile } from '../../../src/services/catalogue/import/import.ts';
import { inmo } from '../../helpers/cli.ts';
import { businessWithKey, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { get, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY, each: true });

interface Change {
  id: number;
  change: 'upsert' | 'delete';
  property: Record<string, unknown> | null;
  changed_at: string;
}

/** Follows the feed from `cursor` until `has_more` is false, applying every change to `copy`. */
async function follow(key: string, copy: Map<number, Record<string, unknown>>, cursor: string | null, limit = 3) {
  for (;;) {
    const query = `limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const { status, body } = await get(t.app, `/properties/changes?${query}`, key);
    expect(status).toBe(200);
    for (const c of body.data as Change[]) {
      if (c.change === 'upsert') copy.set(c.id, c.property!);
      else copy.delete(c.id);
    }
    cursor = body.next_cursor;
    if (!body.has_more) return cursor!;
  }
}

/** The whole public catalogue as GET /properties gives it, by id. */
async function published(key: string) {
  const { body } = await get(t.app, '/properties?limit=1000', key);
  return new Map<number, Record<string, unknown>>(body.data.map((p: { id: number }) => [p.id, p]));
}

/** `inmo properties import --business <the test's> --full ARGS…`, run in-process. */
const importFull = (...args: string[]) =>
  inmo(
    { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' },
    'properties',
    'import',
    '--business',
    String(t.businessId),
    '--full',
    ...args,
  );

describe('GET /properties/changes', () => {
  it('starts with every public listing once as an upsert, then gives only what changed', async () => {
    await importRecords(t.db, t.businessId, [
      listing('A'),
      listing('B'),
      listing('C', { public: false }),
      listing('D', { status: 'vendida' }),
    ]);
    const first = await get(t.app, '/properties/changes', t.key);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['data', 'next_cursor', 'has_more']);
    const upserts = first.body.data.filter((c: Change) => c.change === 'upsert');
    expect(upserts.map((c: Change) => c.property!.title).sort()).toEqual(['Piso A', 'Piso B']);
    for (const c of upserts) expect(c.property).toEqual((await get(t.app, `/properties/${c.id}`, t.key)).body.data);
    expect(first.body.data.every((c: Change) => c.change === 'upsert' || c.property === null)).toBe(true);
    expect(first.body.has_more).toBe(false);

    const quiet = await get(t.app, `/properties/changes?cursor=${first.body.next_cursor}`, t.key);
    expect(quiet.body).toEqual({ data: [], next_cursor: first.body.next_cursor, has_more: false });

    await importRecords(t.db, t.businessId, [listing('A', { status: 'vendida' }), listing('B', { price: 95_000 })]);
    const next = await get(t.app, `/properties/changes?cursor=${first.body.next_cursor}`, t.key);
    const byTitle = new Map(upserts.map((c: Change) => [c.id, c.property!.title]));
    expect(next.body.data.map((c: Change) => [byTitle.get(c.id), c.change, c.property?.price ?? null])).toEqual([
      ['Piso A', 'delete', null],
      ['Piso B', 'upsert', 95_000],
    ]);
    expect(next.body.data[0].changed_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*\+00:00$/);
  });

  it('pages with limit and has_more, and never shows another business’s listings', async () => {
    await importRecords(
      t.db,
      t.businessId,
      Array.from({ length: 7 }, (_, i) => listing(`P-${i}`)),
    );
    const other = await businessWithKey(t.db, 'Otra');
    await importRecords(t.db, other.businessId, [listing('THEIRS')]);
    const copy = new Map<number, Record<string, unknown>>();
    const first = await get(t.app, '/properties/changes?limit=3', t.key);
    expect([first.body.data.length, first.body.has_more]).toEqual([3, true]);
    await follow(t.key, copy, null, 3);
    expect([...copy.keys()].sort()).toEqual([...(await published(t.key)).keys()].sort());
    expect([...copy.values()].map((p) => p.title)).not.toContain('Piso THEIRS');
  });

  it.each([
    ['garbage!', 'malformed'],
    [Buffer.from('v1.abc.1').toString('base64url'), 'malformed'],
    [encodeCursor({ seq: 99, id: 1 }), 'a version the business has not reached'],
    [encodeCursor({ seq: 1, id: 2_147_483_648 }), 'an id no row can have'],
  ])('refuses the cursor %s (%s) with 422 and changes nothing', async (cursor) => {
    await importRecords(t.db, t.businessId, [listing('A')]);
    const before = await snapshot(t.db);
    const { status, body } = await get(t.app, `/properties/changes?cursor=${encodeURIComponent(cursor)}`, t.key);
    expect(status).toBe(422);
    expect(body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['query', 'cursor'],
        msg: 'Value error, unknown or malformed cursor: pass a next_cursor from this feed, or none to start again',
        input: cursor,
        ctx: { error: {} },
      },
    ]);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('gives 100 changes a page by default (CONTRACT §13)', async () => {
    await importRecords(
      t.db,
      t.businessId,
      Array.from({ length: 101 }, (_, i) => listing(`D-${i}`)),
    );
    const { body } = await get(t.app, '/properties/changes', t.key);
    expect([body.data.length, body.has_more]).toEqual([100, true]);
  });

  it.each(['limit=0', 'limit=501'])('refuses %s with a Pydantic 422', async (query) => {
    const { status, body } = await get(t.app, `/properties/changes?${query}`, t.key);
    expect(status).toBe(422);
    expect(body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('is complete: a client following it through any sequence of imports holds exactly GET /properties, field for field', async () => {
    const refs = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'];
    const line = fc.record({
      ref: fc.constantFrom(...refs),
      status: fc.constantFrom('disponible', 'reservada', 'vendida', 'alquilada', 'retirada'),
      public: fc.boolean(),
      price: fc.integer({ min: 50_000, max: 500_000 }),
      bedrooms: fc.integer({ min: 0, max: 5 }),
    });
    const step = fc.record({
      lines: fc.array(line, { minLength: 1, maxLength: 5 }),
      poll: fc.boolean(),
      limit: fc.integer({ min: 1, max: 4 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const { businessId, key } = await businessWithKey(t.db, `Agencia ${++run}`);
        const copy = new Map<number, Record<string, unknown>>();
        let cursor: string | null = null;
        for (const { lines, poll, limit } of steps) {
          await importRecords(
            t.db,
            businessId,
            lines.map((l) => listing(l.ref, { status: l.status, public: l.public, price: l.price, bedrooms: l.bedrooms })),
          );
          if (poll) cursor = await follow(key, copy, cursor, limit);
        }
        await follow(key, copy, cursor, 2);
        expect(copy).toEqual(await published(key));
      }),
      { numRuns: 25 },
    );
  });
});

describe('inmo properties import --full', () => {
  const file = (records: Array<Record<string, unknown> | string>) => {
    const path = join(mkdtempSync(join(tmpdir(), 'inmo-full-')), 'catalogue.ndjson');
    writeFileSync(path, records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
    return path;
  };

  it('withdraws the listings the file does not name, which the feed reports as deletions', async () => {
    await importRecords(t.db, t.businessId, [listing('KEEP'), listing('GONE'), listing('SOLD', { status: 'vendida' })]);
    const copy = new Map<number, Record<string, unknown>>();
    const cursor = await follow(t.key, copy, null);
    const summary = await importFullCatalogueFile(t.db, t.businessId, file([listing('KEEP', { price: 120_000 }), listing('NEW')]));
    expect(summary).toEqual({ format: 'ndjson', created: 1, updated: 1, repeated: 0, rejected: [], withdrawn: 2, refused: false });
    const statuses = await t.db.selectFrom('properties').select(['external_ref', 'status', 'listed']).orderBy('external_ref').execute();
    expect(statuses).toEqual([
      { external_ref: 'GONE', status: 'retirada', listed: 0 },
      { external_ref: 'KEEP', status: 'disponible', listed: 1 },
      { external_ref: 'NEW', status: 'disponible', listed: 1 },
      { external_ref: 'SOLD', status: 'retirada', listed: 0 },
    ]);
    await follow(t.key, copy, cursor);
    expect([...copy.values()].map((p) => p.title).sort()).toEqual(['Piso KEEP', 'Piso NEW']);
    expect(copy).toEqual(await published(t.key));
    // Run again: nothing left to withdraw.
    expect((await importFullCatalogueFile(t.db, t.businessId, file([listing('KEEP'), listing('NEW')]))).withdrawn).toBe(0);
  });

  it('refuses a file with a rejected line and writes nothing; the CLI says so with exit status 3', async () => {
    await importRecords(t.db, t.businessId, [listing('KEEP'), listing('OTHER')]);
    const before = await snapshot(t.db);
    const path = file([listing('KEEP'), '{"external_ref": "BROKEN"']);
    const summary = await importFullCatalogueFile(t.db, t.businessId, path);
    expect(summary.refused).toBe(true);
    expect(summary.rejected).toHaveLength(1);
    expect(summary.rejected[0].line).toBe(2);
    expect(await snapshot(t.db)).toBe(before);
    const cli = await importFull(path);
    expect(cli.code).toBe(3);
    expect(cli.stdout).toContain('nothing imported: --full refuses a file with rejected lines');
    expect(await snapshot(t.db)).toBe(before);
    const ok = await importFull('--json', file([listing('KEEP')]));
    expect([ok.code, ok.json]).toEqual([0, { format: 'ndjson', created: 0, updated: 1, repeated: 0, rejected: [], withdrawn: 1 }]);
  });
});

describe('property.changed (CONTRACT §13, §14)', () => {
  /** The property.changed events of the business after `after`, as `[ref, change]` in order. */
  async function changed(after = 0): Promise<Array<[string, string]>> {
    const { status, body } = await get(t.app, `/events?after=evt_${after}&limit=500`, t.key);
    expect(status).toBe(200);
    const refs = new Map((await t.db.selectFrom('properties').select(['id', 'external_ref']).execute()).map((r) => [r.id, r.external_ref]));
    return (body.data as Array<{ type: string; data: { id: number; change: string } }>)
      .filter((e) => e.type === 'property.changed')
      .map((e) => [refs.get(e.data.id)!, e.data.change]);
  }

  const lastEventId = async () =>
    Number(
      (
        await t.db
          .selectFrom('events')
          .select((eb) => eb.fn.max('id').as('m'))
          .executeTakeFirst()
      )?.m ?? 0,
    );

  it('is recorded when an import makes a listing enter, change in or leave the public catalogue, and only then', async () => {
    await importRecords(t.db, t.businessId, [listing('A'), listing('B'), listing('HIDDEN', { public: false })]);
    expect(await changed()).toEqual([
      ['A', 'upsert'],
      ['B', 'upsert'],
    ]);
    let mark = await lastEventId();
    // The same lines again: nothing the public catalogue can see has changed.
    await importRecords(t.db, t.businessId, [listing('A'), listing('B'), listing('HIDDEN', { public: false })]);
    expect(await changed(mark)).toEqual([]);
    mark = await lastEventId();
    await importRecords(t.db, t.businessId, [
      listing('A', { price: 99_000 }),
      listing('B', { status: 'vendida' }),
      listing('HIDDEN', { public: false, price: 1 }),
    ]);
    expect(await changed(mark)).toEqual([
      ['A', 'upsert'],
      ['B', 'delete'],
    ]);
    mark = await lastEventId();
    // A full import withdraws what it does not name: only a public one is an event.
    await importFullCatalogueFile(
      t.db,
      t.businessId,
      (() => {
        const path = join(mkdtempSync(join(tmpdir(), 'inmo-full-')), 'catalogue.ndjson');
        writeFileSync(path, `${JSON.stringify(listing('NEW'))}\n`);
        return path;
      })(),
    );
    expect(await changed(mark)).toEqual([
      ['NEW', 'upsert'],
      ['A', 'delete'],
    ]);
  });
});

describe('an empty document (issue 41)', () => {
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'inmo-full-')), 'catalogue.ndjson');
    writeFileSync(path, text);
    return path;
  };

  it('is refused by a full import, from a file or through the CLI, with --format ndjson too: nothing is withdrawn', async () => {
    await importRecords(t.db, t.businessId, [listing('KEEP'), listing('OTHER')]);
    const before = await snapshot(t.db);
    for (const text of ['', '\n', '\uFEFF', '\uFEFF \r\n\t\n']) {
      const path = file(text);
      await expect(importFullCatalogueFile(t.db, t.businessId, path)).rejects.toMatchObject({ code: 'IMPORT_DOCUMENT_EMPTY' });
      await expect(importFullCatalogueFile(t.db, t.businessId, path, undefined, 'ndjson')).rejects.toMatchObject({
        code: 'IMPORT_DOCUMENT_EMPTY',
      });
      const cli = await importFull(path);
      expect(cli.code).not.toBe(0);
      expect(cli.stderr).toContain('The document is empty');
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('is refused by a full import when well-formed but naming no listing (a Kyero root and nothing in it): nothing is withdrawn', async () => {
    await importRecords(t.db, t.businessId, [listing('KEEP'), listing('OTHER')]);
    const before = await snapshot(t.db);
    for (const text of [
      '<?xml version="1.0" encoding="UTF-8"?><root></root>',
      '<root><kyero><feed_version>3</feed_version></kyero></root>',
    ]) {
      await expect(importFullCatalogueFile(t.db, t.businessId, file(text))).rejects.toMatchObject({ code: 'IMPORT_FULL_NO_LISTINGS' });
    }
    expect(await snapshot(t.db)).toBe(before);
  });
});
