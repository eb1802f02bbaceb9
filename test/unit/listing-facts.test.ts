/**
 * The energy certificate and the portals' facts in the import line (issue 46, CONTRACT §22;
 * domain/catalogue/listing-facts.ts): checked at the top level and in `specs`, stored in
 * `specs` in their canonical form, and every fault a rejected line with a clear reason.
 */
import { describe, expect, it } from 'vitest';
import { listingFacts } from '../../src/domain/catalogue/listing-facts.ts';
import { parseImportLine } from '../../src/services/catalogue/import/line.ts';

const NOW = '2026-11-24T10:00:00+00:00';
const parse = (extra: Record<string, unknown>) => parseImportLine(JSON.stringify({ external_ref: 'F-1', ...extra }), NOW);
const specsOf = (extra: Record<string, unknown>) => {
  const parsed = parse(extra);
  if (!parsed.ok) throw new Error(parsed.reason);
  return JSON.parse(parsed.property.fields.specs ?? 'null') as Record<string, unknown> | null;
};
const reason = (extra: Record<string, unknown>) => {
  const parsed = parse(extra);
  return parsed.ok ? null : parsed.reason;
};

const CERTIFICATE = { status: 'available', rating: 'C', consumption_kwh_m2_year: 98.5, emissions_kg_co2_m2_year: 21 };

describe('the facts of a listing', () => {
  it('stores top-level facts in specs, after the keys specs already has, the certificate with its four keys', () => {
    expect(
      specsOf({
        specs: { district: 'Centro' },
        energy_certificate: { status: 'exempt' },
        floor: 'bj',
        community_fees: 85.5,
        year_built: 1975,
        condition: 'a-reformar',
      }),
    ).toEqual({
      district: 'Centro',
      energy_certificate: { status: 'exempt', rating: null, consumption_kwh_m2_year: null, emissions_kg_co2_m2_year: null },
      floor: 'bj',
      community_fees: 85.5,
      year_built: 1975,
      condition: 'a-reformar',
    });
    const specs = specsOf({ specs: { condition: 'buen-estado', floor: '3' }, floor: '3', energy_certificate: CERTIFICATE });
    expect(Object.keys(specs!)).toEqual(['condition', 'floor', 'energy_certificate']);
    expect(listingFacts(specs)).toEqual({
      energy_certificate: CERTIFICATE,
      floor: '3',
      community_fees: null,
      year_built: null,
      condition: 'buen-estado',
    });
  });

  it('accepts the floors of the real catalogues and of idealista, as given', () => {
    for (const floor of ['1', '60', 'Ground floor', 'Semi-basement', 'Floor -1', 'bj', 'en', 'ss', 'st', '-2', 3, -1, 0])
      expect(specsOf({ floor })).toEqual({ floor });
  });

  it('states nothing for null facts, and keeps a null in specs as it came', () => {
    expect(specsOf({ floor: null, energy_certificate: null })).toBeNull();
    expect(specsOf({ specs: { floor: null } })).toEqual({ floor: null });
  });

  it.each([
    [{ energy_certificate: { status: 'available' } }, 'energy_certificate: rating is required when the status is available (A to G)'],
    [
      { energy_certificate: { status: 'in_process', rating: 'B' } },
      'energy_certificate: a rating, consumption or emissions go only with status available, not in_process',
    ],
    [
      { energy_certificate: { status: 'exempt', consumption_kwh_m2_year: 50 } },
      'energy_certificate: a rating, consumption or emissions go only with status available, not exempt',
    ],
    [{ energy_certificate: { status: 'pending' } }, "energy_certificate.status: Input should be 'available', 'in_process' or 'exempt'"],
    [{ energy_certificate: { rating: 'A' } }, 'energy_certificate.status: Field required'],
    [
      { energy_certificate: { status: 'available', rating: 'H' } },
      "energy_certificate.rating: Input should be 'A', 'B', 'C', 'D', 'E', 'F' or 'G'",
    ],
    [
      { energy_certificate: { status: 'available', rating: 'A', consumption_kwh_m2_year: -1 } },
      'energy_certificate.consumption_kwh_m2_year: Input should be greater than or equal to 0',
    ],
    [
      { energy_certificate: { status: 'available', rating: 'A', emissions_kg_co2_m2_year: 900 } },
      'energy_certificate.emissions_kg_co2_m2_year: Input should be less than or equal to 500',
    ],
    [{ floor: 201 }, 'floor: must be a text of at most 40 characters or a whole number from -5 to 200'],
    [{ floor: '-9' }, 'floor: must be a text of at most 40 characters or a whole number from -5 to 200'],
    [{ floor: '' }, 'floor: must be a text of at most 40 characters or a whole number from -5 to 200'],
    [{ floor: 2.5 }, 'floor: must be a text of at most 40 characters or a whole number from -5 to 200'],
    [{ community_fees: -3 }, 'community_fees: Input should be greater than or equal to 0'],
    [{ community_fees: 250_000 }, 'community_fees: Input should be less than or equal to 100000'],
    [{ year_built: 1850.5 }, 'year_built: Input should be a valid integer, got a number with a fractional part'],
    [{ year_built: 999 }, 'year_built: Input should be greater than or equal to 1000'],
    [{ year_built: 2037 }, 'year_built: must be a whole year from 1000 to 2036'],
    [{ condition: 'reformado' }, "condition: Input should be 'obra-nueva', 'buen-estado' or 'a-reformar'"],
    [{ specs: { condition: 'reformado' } }, 'specs.condition: must be one of obra-nueva, buen-estado, a-reformar'],
    [
      { specs: { energy_certificate: { status: 'available', rating: 'Z' } } },
      'specs.energy_certificate: rating must be a letter from A to G, or null',
    ],
    [
      { specs: { energy_certificate: 'A' } },
      'specs.energy_certificate: must be an object with status, rating, consumption_kwh_m2_year and emissions_kg_co2_m2_year',
    ],
    [{ specs: { year_built: '1990' } }, 'specs.year_built: must be a whole year from 1000 to 2036'],
    [{ specs: { community_fees: 50 }, community_fees: 60 }, 'community_fees: given at the top level and in specs with different values'],
  ])('rejects %j: %s', (extra, expected) => {
    expect(reason(extra)).toBe(expected);
  });
});
