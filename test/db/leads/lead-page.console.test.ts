/**
 * The lead page kept short and useful (issue 47, CONTRACT §23): at most 10 near misses, the
 * lead's own places first, each failed criterion in words; matches and near misses link to the
 * listing; the phones are `tel:` and WhatsApp links.
 */
import { describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';

const rental = (ref: string, rent: number, city: string) =>
  listing(ref, { operation: 'alquiler', price: null, price_rent: rent, city, province: city, title: `Piso ${ref}` });

describe('the lead page', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [
        rental('MATCH', 800, 'Zaragoza'),
        ...Array.from({ length: 12 }, (_, i) => rental(`FAR-${i}`, 800, 'Huesca')),
        ...Array.from({ length: 3 }, (_, i) => rental(`DEAR-${i}`, 950, 'Zaragoza')),
      ]);
      await userWithPassword(db, businessId, 'ana@inmo.example', 'owner');
    },
  });

  it('shows 10 of 15 near misses, its own city first, in words, with links to the listings and the phone', async () => {
    const created = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Lucía',
      type: 'tenant',
      phone_number_1: '+34 611 20 00 10',
      search_preferences: [{ operations: ['alquiler'], apartamento: { price_rent_max: 900 }, locations: [{ name: 'Zaragoza' }] }],
    });
    expect(created.status).toBe(200);
    await new Worker({ db: t.db, settings: { pollMs: 20, maxAttempts: 1 } }).drain();
    const page = (await (await loggedIn(t.app, 'ana@inmo.example')).get(`/console/leads/${created.body.lead_id}`)).body;

    const nearMisses = page.slice(page.indexOf('Casi encajan'), page.indexOf('</section>', page.indexOf('Casi encajan')));
    const shown = [...nearMisses.matchAll(/<h4><a href="\/console\/properties\/\d+">Piso ([A-Z]+-\d+)<\/a><\/h4>/g)].map((m) => m[1]);
    expect(shown).toHaveLength(10);
    expect(shown.slice(0, 3).sort()).toEqual(['DEAR-0', 'DEAR-1', 'DEAR-2']);
    expect(nearMisses).toContain('Se muestran 10 de 15');
    expect(nearMisses).toContain('Falla en: alquiler máximo');
    expect(nearMisses).toContain('Falla en: zona');
    expect(nearMisses).not.toMatch(/Falla en: (location|price_rent_max)/);
    expect(page).toMatch(/<h4><a href="\/console\/properties\/\d+">Piso MATCH<\/a><\/h4>/);
    expect(page).toContain('<a href="tel:+34611200010"');
    expect(page).toContain('<a href="https://wa.me/34611200010"');
  });
});
