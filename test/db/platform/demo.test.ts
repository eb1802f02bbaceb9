/** The demo catalogue generator and the demo seed of `npm start`. */
import { describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../../src/demo/catalogue-generator.ts';
import { seedDemo, DEMO_LISTINGS } from '../../../src/demo/seed.ts';
import { PROPERTY_TYPES } from '../../../src/domain/catalogue/terms.ts';
import { parseImportLine } from '../../../src/services/catalogue/import/line.ts';
import { freshDb } from '../../helpers/db.ts';

describe('catalogue generator', () => {
  it('produces valid import lines covering all nine types, the three operations, every rental type, status and privacy level', () => {
    const records = [...generateCatalogue(DEMO_LISTINGS)];
    for (const record of records)
      expect(parseImportLine(JSON.stringify(record), '2026-01-01T00:00:00.000+00:00')).toMatchObject({ ok: true });
    const values = (key: string) => new Set(records.map((r) => (r as Record<string, unknown>)[key]));
    expect([...values('type')].sort()).toEqual([...PROPERTY_TYPES].sort());
    const ops = new Set(records.flatMap((r) => String(r.operation).split(',')));
    expect([...ops].sort()).toEqual(['alquiler', 'traspaso', 'venta']);
    expect(values('address_privacy')).toEqual(new Set(['public', 'approximate', 'hidden']));
    expect(values('status')).toEqual(new Set(['disponible', 'reservada', 'vendida', 'alquilada', 'retirada']));
    expect(values('rental_type')).toEqual(new Set([null, 'anual', 'temporal', 'vacacional']));
    expect(records.some((r) => r.images?.some((i) => i.public === false))).toBe(true);
    expect(records.some((r) => r.videos?.some((v) => v.processed === false))).toBe(true);
    expect(records.every((r) => r.city && r.province && r.country === 'España')).toBe(true);
  });

  it('words its descriptions as Spanish does: 1 dormitorio, 2 baños, a studio without a bedroom count', () => {
    const texts = [...generateCatalogue(DEMO_LISTINGS)].map((r) => String(r.description));
    for (const wrong of [/\b1 dormitorios\b/, /\b1 baños\b/, /\b0 dormitorios\b/, /\b[2-9] dormitorio\b/]) {
      expect(
        texts.filter((t) => wrong.test(t)),
        String(wrong),
      ).toEqual([]);
    }
    expect(texts.some((t) => /\b1 dormitorio y/.test(t))).toBe(true);
    expect(texts.some((t) => t.includes('Estudio diáfano con 1 baño.'))).toBe(true);
  });

  it('is deterministic for a seed', () => {
    expect([...generateCatalogue(20, 5)]).toEqual([...generateCatalogue(20, 5)]);
    expect([...generateCatalogue(20, 5)]).not.toEqual([...generateCatalogue(20, 6)]);
  });
});

describe('demo seed', () => {
  it('fills an empty database once and leaves a database with data alone', async () => {
    const { db } = await freshDb();
    const first = await seedDemo(db);
    expect(first).toMatchObject({ business_id: 1, properties: DEMO_LISTINGS });
    expect('key' in first && first.key).toMatch(/^AC_LIVE_/);
    const second = await seedDemo(db);
    expect(second).toEqual({ business_id: 1 });
    const businesses = await db.selectFrom('businesses').selectAll().execute();
    expect(businesses).toHaveLength(1);
    await db.destroy();
  });
});
