/**
 * Valuations from comparables (issue 58 item 5, CONTRACT §24) on both engines: against the sample
 * of the real Madrid catalogue (test/fixtures/catalogues), the comparables and the suggested range
 * of a home are those a reference computation finds reading the file itself (same type, ±25 % size,
 * within 1 km by the haversine distance, the 30 nearest, each price per m² adjusted by
 * (size / home's size)^0.15, the interquartile range times the size); the same postal code counts
 * as near, a sold listing's recorded price is used, too few comparables give no range; the report
 * is an A4 PDF of the owner's listing only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeOfListing, valuateHome } from '../../../src/services/owners/valuations.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, REPO_ROOT } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';
import { readPdf } from '../../helpers/pdf.ts';

const MADRID = join(REPO_ROOT, 'test', 'fixtures', 'catalogues', 'catalogue-madrid-sale.ndjson');

interface Line {
  external_ref: string;
  type: string;
  status: string;
  price: number | null;
  size_total: number | null;
  lat: number | null;
  lon: number | null;
}

/** The file's listings, the last line of each reference winning, as an import keeps them. */
function readMadrid(): Line[] {
  const latest = new Map<string, Line>();
  for (const text of readFileSync(MADRID, 'utf8').split('\n')) {
    if (!text.trim().startsWith('{')) continue;
    const line = JSON.parse(text) as Line;
    latest.set(line.external_ref, line);
  }
  return [...latest.values()];
}

/** The reference computation, written apart from src/: straight from the file, in plain loops. */
function reference(lines: Line[], home: Line) {
  const rad = Math.PI / 180;
  const meters = (a: Line, b: Line) => {
    const h =
      Math.sin(((b.lat! - a.lat!) * rad) / 2) ** 2 +
      Math.cos(a.lat! * rad) * Math.cos(b.lat! * rad) * Math.sin(((b.lon! - a.lon!) * rad) / 2) ** 2;
    return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
  };
  const found: Array<{ ref: string; d: number; adjusted: number }> = [];
  for (const c of lines) {
    if (c.external_ref === home.external_ref || c.type !== home.type) continue;
    if (c.status !== 'disponible' && c.status !== 'reservada') continue;
    if (!c.price || !c.size_total || c.lat === null || c.lon === null) continue;
    if (c.size_total < home.size_total! * 0.75 || c.size_total > home.size_total! * 1.25) continue;
    const d = meters(home, c);
    if (d > 1000) continue;
    found.push({ ref: c.external_ref, d, adjusted: (c.price / c.size_total) * (c.size_total / home.size_total!) ** 0.15 });
  }
  found.sort((a, b) => a.d - b.d);
  const kept = found.slice(0, 30);
  const values = kept.map((k) => k.adjusted).sort((a, b) => a - b);
  const q = (p: number) => {
    const at = (values.length - 1) * p;
    const lo = Math.floor(at);
    const hi = Math.min(values.length - 1, lo + 1);
    return values[lo] + (values[hi] - values[lo]) * (at - lo);
  };
  const euros = (m2: number) => Math.round((m2 * home.size_total!) / 1000) * 1000;
  return { refs: kept.map((k) => k.ref), low: euros(q(0.25)), median: euros(q(0.5)), high: euros(q(0.75)) };
}

describe('a valuation against the real Madrid catalogue', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await importRecords(
        db,
        businessId,
        readFileSync(MADRID, 'utf8')
          .split('\n')
          .filter((l) => l.trim().startsWith('{')),
      );
    },
  });

  it('finds the comparables and the range the reference computation finds', async () => {
    const lines = readMadrid();
    const imported = new Set((await t.db.selectFrom('properties').select('external_ref').execute()).map((r) => r.external_ref));
    const usable = lines.filter((l) => imported.has(l.external_ref));
    // The home with the most comparables: a busy part of town.
    const homes = usable.filter((l) => l.size_total && l.lat !== null && (l.status === 'disponible' || l.status === 'reservada'));
    const home = homes.map((h) => ({ h, n: reference(usable, h).refs.length })).sort((a, b) => b.n - a.n)[0].h;
    const expected = reference(usable, home);
    expect(expected.refs.length).toBeGreaterThanOrEqual(5);

    const { home: valued } = await homeOfListing(t.db, t.businessId, await propertyId(t.db, home.external_ref));
    const valuation = await valuateHome(t.db, t.businessId, valued);
    expect(valuation.comparables.map((c) => c.external_ref)).toEqual(expected.refs);
    expect(valuation.range).toMatchObject({ low: expected.low, median: expected.median, high: expected.high });
    expect(valuation.range!.low).toBeLessThanOrEqual(valuation.range!.high);
    for (const c of valuation.comparables) {
      expect(c.distance_m).toBeLessThanOrEqual(1000);
      expect(c.adjusted_m2).toBeCloseTo(c.price_m2 * (c.size / valued.size) ** 0.15, 6);
    }
  });
});

describe('the rules at their edges, and the report', () => {
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'ana@inmo.example', 'agent');
      const at = (ref: string, extra: Record<string, unknown>) =>
        listing(ref, { type: 'apartamento', subtype: 'piso', lat: null, lon: null, postal_code: '50001', size_total: 100, ...extra });
      await importRecords(db, businessId, [
        at('HOME', { price: 200000, title: 'Piso en el Centro' }),
        at('A', { price: 180000 }),
        at('B', { price: 210000, size_total: 120 }),
        at('C', { price: 240000, size_total: 80 }),
        at('TOO-BIG', { price: 500000, size_total: 130 }),
        at('OTHER-CP', { price: 150000, postal_code: '50002' }),
        at('CHALET', { price: 300000, type: 'casa', subtype: 'chalet' }),
        at('SOLD', { price: 230000, status: 'vendida' }),
      ]);
      await db.updateTable('properties').set({ closed_price: 190000 }).where('external_ref', '=', 'SOLD').execute();
    },
  });

  it('keeps the same postal code and the same type within ±25 %, with a sold one at its recorded price; the PDF shows them', async () => {
    const { home } = await homeOfListing(t.db, t.businessId, await propertyId(t.db, 'HOME'));
    const valuation = await valuateHome(t.db, t.businessId, home);
    expect(valuation.comparables.map((c) => [c.external_ref, c.price, c.closed, c.distance_m]).sort()).toEqual([
      ['A', 180000, false, null],
      ['B', 210000, false, null],
      ['C', 240000, false, null],
      ['SOLD', 190000, true, null],
    ]);
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612800001', 'Pedro Propietario');
    await linkOwner(t.db, owner, ['HOME']);
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const pdf = await ana.get(`/console/leads/${owner}/valuation.pdf?property=${await propertyId(t.db, 'HOME')}`);
    expect([pdf.statusCode, pdf.headers['content-type']]).toEqual([200, 'application/pdf']);
    const text = (await readPdf(pdf.rawPayload)).text.join(' ');
    for (const words of ['Informe de valoración', 'Pedro Propietario', 'Piso en el Centro', 'SOLD (vendido)', 'mismo C.P.', 'Entre'])
      expect(text).toContain(words);
    // Another listing, not this owner's: not found.
    expect((await ana.get(`/console/leads/${owner}/valuation.pdf?property=${await propertyId(t.db, 'A')}`)).statusCode).toBe(404);
  });

  it('gives no range with fewer than 3 comparables, and says so', async () => {
    await t.db.deleteFrom('properties').where('external_ref', 'in', ['A', 'B']).execute();
    const { home } = await homeOfListing(t.db, t.businessId, await propertyId(t.db, 'HOME'));
    const valuation = await valuateHome(t.db, t.businessId, home);
    expect([valuation.comparables.length, valuation.range]).toEqual([2, null]);
  });
});
