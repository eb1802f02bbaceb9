/**
 * Plain words in the console (issue 29, CONTRACT §16): every lead status and lead type the
 * service knows has a label in both languages, so no page shows a raw code.
 */
import { describe, expect, it } from 'vitest';
import { CRITERIA, describeSearch } from '../../src/http/console/criteria.ts';
import { DICTIONARIES, translator } from '../../src/http/console/i18n.ts';
import { LEAD_STATUSES, LEAD_TYPES } from '../../src/domain/leads/rules.ts';

describe('console labels', () => {
  it.each(['es', 'en'] as const)('%s has a label for every lead status and lead type', (language) => {
    const words = DICTIONARIES[language] as Record<string, string>;
    const missing = [...LEAD_STATUSES.map((s) => `lead_status_${s}`), ...LEAD_TYPES.map((s) => `lead_type_${s}`)].filter(
      (key) => !words[key]?.trim(),
    );
    expect(missing).toEqual([]);
  });
});

describe('a lead search in plain words', () => {
  const every = Object.fromEntries(Object.entries(CRITERIA).map(([name, kind]) => [name, kind === 'list' ? ['mar'] : 3]));

  it.each(['es', 'en'] as const)('%s has a label for every criterion of spec §2.4, and no line shows a code', (language) => {
    const words = DICTIONARIES[language] as Record<string, string>;
    expect(Object.keys(CRITERIA).filter((name) => !words[`criterion_${name}`]?.includes('{v}'))).toEqual([]);
    const lines = describeSearch(translator(language), {
      operations: ['venta'],
      property_types: ['casa'],
      casa: every,
      edificio: every,
    }).join('\n');
    for (const name of Object.keys(CRITERIA)) expect(lines).not.toContain(name);
    expect(lines).not.toMatch(/\{v\}|undefined/);
  });

  it('writes the criteria as an agent reads them, prices as es-ES euros', () => {
    const entry = {
      operations: ['alquiler'],
      property_types: ['apartamento'],
      locations: [{ name: 'Delicias' }, { type: 'circle', center: [41.65, -0.9], radius: 800 }],
      apartamento: {
        price_rent_max: 900,
        price_max: 185_000,
        bedrooms_min: 2,
        size_min: 80.5,
        subtypes: ['atico', 'loft'],
        features: null,
      },
      internal_notes: 'No enseñar',
    };
    // Intl puts a no-break space between an amount and its €.
    const said = (language: 'es' | 'en') => describeSearch(translator(language), entry).map((l) => l.replace(/\u00a0/g, ' '));
    expect(said('es')).toEqual([
      'Operación: Alquiler',
      'Tipo: Piso o apartamento',
      'Zona: Delicias; una zona dibujada en el mapa',
      'Piso o apartamento: Alquiler máx. 900 €/mes · Compra máx. 185.000 € · 2+ habitaciones · Desde 80,5 m² · Subtipo: Ático, Loft',
    ]);
    expect(said('en')).toEqual([
      'Operation: Rent',
      'Type: Flat or apartment',
      'Area: Delicias; an area drawn on the map',
      'Flat or apartment: Rent up to 900 €/month · Buy up to 185.000 € · 2+ bedrooms · From 80,5 m² · Subtype: Ático, Loft',
    ]);
  });
});
