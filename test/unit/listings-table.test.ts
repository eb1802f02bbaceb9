/**
 * The pure parts of the listings table (issue 47, CONTRACT §23): a sale's or rental's price and
 * day checked (domain/catalogue/closing.ts), a photo's smallest stored width (media/photos.ts),
 * and a listing's public view as the website kit shows it (http/console/kit-preview.ts), its
 * description kept to the kit's tags without attributes.
 */
import { describe, expect, it } from 'vitest';
import { checkClosing, dayIn } from '../../src/domain/catalogue/closing.ts';
import { kitDescription } from '../../src/domain/catalogue/html.ts';
import { kitPreview } from '../../src/http/console/kit-preview.ts';
import { translator } from '../../src/http/console/i18n.ts';
import { photoAtWidth } from '../../src/media/photos.ts';

describe('a sale or rental recorded', () => {
  const today = '2026-11-27';
  it('needs a price over 0 and a calendar day not after today', () => {
    expect(checkClosing(185_000, '2026-11-27', today)).toEqual({ closing: { price: 185_000, on: '2026-11-27' } });
    expect(checkClosing(950.5, ' 2026-01-31 ', today)).toEqual({ closing: { price: 950.5, on: '2026-01-31' } });
    const faults = (price: number | string | null, on: string) =>
      'faults' in checkClosing(price, on, today) ? checkClosing(price, on, today) : null;
    expect(faults(null, '')).toEqual({
      faults: [
        { field: 'closed_price', kind: 'missing' },
        { field: 'closed_on', kind: 'missing' },
      ],
    });
    expect(faults('mucho', today)).toEqual({ faults: [{ field: 'closed_price', kind: 'number' }] });
    expect(faults(Number.NaN, today)).toEqual({ faults: [{ field: 'closed_price', kind: 'number' }] });
    for (const price of [0, -5, 1_000_000_001])
      expect(faults(price, today)).toEqual({ faults: [{ field: 'closed_price', kind: 'range' }] });
    expect(faults(1, '2026-11-28')).toEqual({ faults: [{ field: 'closed_on', kind: 'future' }] });
    for (const day of ['2026-02-30', '27/11/2026', '2026-13-01', 'ayer'])
      expect(faults(1, day), day).toEqual({ faults: [{ field: 'closed_on', kind: 'date' }] });
    expect(faults(1, '1899-12-31')).toEqual({ faults: [{ field: 'closed_on', kind: 'too_old' }] });
  });

  it("counts today in the business's time zone", () => {
    // 23:30 UTC on 27 November is already the 28th in Madrid, still the 27th in New York.
    const at = Date.parse('2026-11-27T23:30:00Z');
    expect(dayIn('Europe/Madrid', at)).toBe('2026-11-28');
    expect(dayIn('America/New_York', at)).toBe('2026-11-27');
  });
});

describe("a listing's photo and public view as the kit shows them", () => {
  const stored = 'http://127.0.0.1:8080/media/p/12/0b6f3c2e-8f7a-4a55-9c1e-3f2d1a0b9c8d-1600.jpg';

  it('takes the smallest stored width of a photo inmo stored, and an imported one as it is', () => {
    expect(photoAtWidth(stored, 480)).toBe(stored.replace('-1600.jpg', '-480.jpg'));
    expect(photoAtWidth('https://img.example/p/12/piso-1600.jpg', 480)).toBe('https://img.example/p/12/piso-1600.jpg');
  });

  it('keeps only the tags the kit shows, with no attribute, and no script', () => {
    expect(
      kitDescription(
        '<p class="x" onclick="alert(1)">Luz <a href="https://e.example">aquí</a><script>alert(2)</script></p><img src=x onerror=alert(3)><h2>Zona</h2>',
      ),
    ).toBe('<p>Luz aquí</p>Zona');
    expect(kitDescription(null)).toBeNull();
  });

  it('draws the card and the page from the published object, in the console’s language', () => {
    const published = {
      id: 7,
      operation: 'alquiler',
      title: 'Ático',
      price: null,
      size_total: 60,
      bedrooms: 1,
      bathrooms: 2,
      city: 'Zaragoza',
      province: 'Zaragoza',
      address: 'Delicias',
      description: '<p>Sol</p>',
      images: [
        { url: 'https://img.example/a.jpg', is_primary: false, title: null },
        { url: stored, is_primary: true, title: 'Salón' },
      ],
      features: [{ label: 'Ascensor' }, { label: null }],
      specs: { price_calc: { price_alq: 900, price_trasp: null }, address_privacy: 'approximate' },
    };
    const es = kitPreview(published, 'es', translator('es'));
    expect(es.card.price).toMatch(/^900\s€\/mes$/);
    expect(es.card.facts).toBe('Zaragoza · 60 m² · 1 dormitorio');
    // The widest stored width as src, and the stored ones in srcset; a photo linked at 960 has none at 1,600.
    expect(es.card.photo?.src).toBe(stored);
    const narrow = stored.replace('-1600.jpg', '-960.jpg');
    expect(kitPreview({ ...published, images: [{ url: narrow, is_primary: true }] }, 'es', translator('es')).card.photo).toEqual({
      src: narrow,
      srcset: `${stored.replace('-1600.jpg', '-480.jpg')} 480w, ${narrow} 960w`,
      alt: '',
    });
    expect(es.photos.map((p) => p.alt)).toEqual(['Salón', 'Ático']);
    expect(es.photos[1]).toEqual({ src: 'https://img.example/a.jpg', srcset: null, alt: 'Ático' });
    expect(es.facts).toBe('60 m² · 1 dormitorio · 2 baños');
    expect(es.features).toEqual(['Ascensor']);
    expect([es.place, es.placeApproximate]).toEqual(['Delicias, Zaragoza, Zaragoza', true]);
    const en = kitPreview({ ...published, bedrooms: 3 }, 'en', translator('en'));
    expect(en.card.facts).toBe('Zaragoza · 60 m² · 3 bedrooms');
    expect(en.prices).toBe('€900/month');
  });
});
