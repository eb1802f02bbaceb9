/**
 * The energy certificate and the facts Spanish portals ask of a listing (issue 46, CONTRACT §22):
 * `energy_certificate`, `floor`, `community_fees`, `year_built` and `condition`.
 *
 * They are keys of the listing's `specs`, as the real catalogues already carry `floor` and
 * `condition` there (shared/data/README.md), and the API publishes them in `specs` as stored.
 * The import format also takes them at the top level of a line; they are then stored in `specs`
 * (both places given with different values is a rejected line). Stored facts always keep the
 * rules below, so whatever reads them (the console, portal feeds) can rely on their shapes:
 *
 * - `energy_certificate`: `{"status": "available"|"in_process"|"exempt", "rating": "A"…"G"|null,
 *   "consumption_kwh_m2_year": number|null, "emissions_kg_co2_m2_year": number|null}`, stored
 *   with exactly these keys in this order. An `available` certificate has its rating; a rating,
 *   a consumption or emissions go only with `available` (a certificate in process or an exempt
 *   building has none). Consumption from 0 to {@link CONSUMPTION_MAX} kWh/m² a year, emissions
 *   from 0 to {@link EMISSIONS_MAX} kg CO₂/m² a year;
 * - `floor`: as portals write it, a text of at most {@link FLOOR_TEXT_MAX} characters (`3`,
 *   `bj`, `Ground floor`) or a whole number; a whole number, or a text that is one, from
 *   {@link FLOOR_MIN} to {@link FLOOR_MAX}; kept as given;
 * - `community_fees`: € a month, from 0 to {@link COMMUNITY_FEES_MAX};
 * - `year_built`: a whole year from {@link YEAR_BUILT_MIN} to {@link YEARS_AHEAD} years after the
 *   current one (a building under construction);
 * - `condition`: `obra-nueva` (new build), `buen-estado` (good condition) or `a-reformar` (to renovate).
 *
 * A fact that is null or absent is not stated.
 */
import { importFault, type ImportFault } from './import-faults.ts';

export const CERTIFICATE_STATUSES = ['available', 'in_process', 'exempt'] as const;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];
export const ENERGY_RATINGS = ['A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;
export type EnergyRating = (typeof ENERGY_RATINGS)[number];
export const CONDITIONS = ['obra-nueva', 'buen-estado', 'a-reformar'] as const;
export type Condition = (typeof CONDITIONS)[number];

/** The keys of `specs` these rules hold for, in the order they are added to `specs` from the top level. */
export const FACT_KEYS = ['energy_certificate', 'floor', 'community_fees', 'year_built', 'condition'] as const;
export type FactKey = (typeof FACT_KEYS)[number];

/** Highest energy consumption stated, kWh/m² a year (the worst G homes measure a few hundred). */
export const CONSUMPTION_MAX = 2000;
/** Highest emissions stated, kg CO₂/m² a year. */
export const EMISSIONS_MAX = 500;
export const FLOOR_MIN = -5;
export const FLOOR_MAX = 200;
export const FLOOR_TEXT_MAX = 40;
/** Highest community fees, € a month. */
export const COMMUNITY_FEES_MAX = 100_000;
export const YEAR_BUILT_MIN = 1000;
/** How many years after the current one `year_built` may be. */
export const YEARS_AHEAD = 10;

/** A listing's energy certificate as stored and published. */
export interface EnergyCertificate {
  status: CertificateStatus;
  rating: EnergyRating | null;
  /** kWh/m² a year. */
  consumption_kwh_m2_year: number | null;
  /** kg CO₂/m² a year. */
  emissions_kg_co2_m2_year: number | null;
}

/** A listing's facts, each null when not stated. */
export interface ListingFacts {
  energy_certificate: EnergyCertificate | null;
  floor: string | number | null;
  /** € a month. */
  community_fees: number | null;
  year_built: number | null;
  condition: Condition | null;
}

/** A fact that breaks a rule: the English reason, starting with the fact's place (`floor: …`, `specs.floor: …`). */
export type FactsOutcome = { ok: true; specs: Record<string, unknown> | null } | { ok: false; reason: string; fault: ImportFault };

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInteger = (v: unknown): v is number => isNumber(v) && Number.isInteger(v);
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/** The part of the energy certificate a fault is in (null for the other facts, and a certificate that is no object). */
export type CertificatePart = 'status' | 'rating' | 'consumption_kwh_m2_year' | 'emissions_kg_co2_m2_year';

/**
 * What kind of rule a fact breaks, for a form to say it in its own words (the reason stays the
 * import's English): `choice` (not one of the values), `range` (a number outside `min`..`max`),
 * `year` (not a whole year in `min`..`max`), `floor`, `rating_required` (an available
 * certificate without its letter), `rating_only_available` (a rating or figures on a certificate
 * in process or exempt), `shape` (a certificate that is no object).
 */
export type FactFaultKind = 'choice' | 'range' | 'year' | 'floor' | 'rating_required' | 'rating_only_available' | 'shape';

/** Why a fact breaks its rule: the reason (English, without the place), where, and the kind. */
interface Refusal {
  reason: string;
  part: CertificatePart | null;
  kind: FactFaultKind;
  /** `min` and `max` of a `range` or `year`. */
  ctx?: { min: number; max: number };
}

const refuse = (reason: string, kind: FactFaultKind, part: CertificatePart | null = null, ctx?: Refusal['ctx']): Refusal => ({
  reason,
  part,
  kind,
  ...(ctx ? { ctx } : {}),
});

/**
 * A fact's canonical form, or why it breaks its rule.
 * @param year the current year, for `year_built`.
 */
function checkFact(key: FactKey, value: unknown, year: number): { value: unknown } | Refusal {
  switch (key) {
    case 'energy_certificate':
      return checkCertificate(value);
    case 'floor': {
      const bad = refuse(
        `must be a text of at most ${FLOOR_TEXT_MAX} characters or a whole number from ${FLOOR_MIN} to ${FLOOR_MAX}`,
        'floor',
      );
      if (typeof value === 'string') {
        if (value.trim() === '' || value.length > FLOOR_TEXT_MAX) return bad;
        if (INTEGER_TEXT.test(value) && (Number(value) < FLOOR_MIN || Number(value) > FLOOR_MAX)) return bad;
        return { value };
      }
      return isInteger(value) && value >= FLOOR_MIN && value <= FLOOR_MAX ? { value } : bad;
    }
    case 'community_fees':
      return isNumber(value) && value >= 0 && value <= COMMUNITY_FEES_MAX
        ? { value }
        : refuse(`must be a number of euros a month from 0 to ${COMMUNITY_FEES_MAX}`, 'range', null, { min: 0, max: COMMUNITY_FEES_MAX });
    case 'year_built':
      return isInteger(value) && value >= YEAR_BUILT_MIN && value <= year + YEARS_AHEAD
        ? { value }
        : refuse(`must be a whole year from ${YEAR_BUILT_MIN} to ${year + YEARS_AHEAD}`, 'year', null, {
            min: YEAR_BUILT_MIN,
            max: year + YEARS_AHEAD,
          });
    case 'condition':
      return typeof value === 'string' && (CONDITIONS as readonly string[]).includes(value)
        ? { value }
        : refuse(`must be one of ${CONDITIONS.join(', ')}`, 'choice');
  }
}

function checkCertificate(value: unknown): { value: EnergyCertificate } | Refusal {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('must be an object with status, rating, consumption_kwh_m2_year and emissions_kg_co2_m2_year', 'shape');
  }
  const given = value as Record<string, unknown>;
  const status = given.status;
  if (typeof status !== 'string' || !(CERTIFICATE_STATUSES as readonly string[]).includes(status)) {
    return refuse(`status must be one of ${CERTIFICATE_STATUSES.join(', ')}`, 'choice', 'status');
  }
  const rating = given.rating ?? null;
  if (rating !== null && !(typeof rating === 'string' && (ENERGY_RATINGS as readonly string[]).includes(rating))) {
    return refuse('rating must be a letter from A to G, or null', 'choice', 'rating');
  }
  const consumption = given.consumption_kwh_m2_year ?? null;
  if (consumption !== null && !(isNumber(consumption) && consumption >= 0 && consumption <= CONSUMPTION_MAX)) {
    return refuse(
      `consumption_kwh_m2_year must be a number from 0 to ${CONSUMPTION_MAX} (kWh/m² a year)`,
      'range',
      'consumption_kwh_m2_year',
      {
        min: 0,
        max: CONSUMPTION_MAX,
      },
    );
  }
  const emissions = given.emissions_kg_co2_m2_year ?? null;
  if (emissions !== null && !(isNumber(emissions) && emissions >= 0 && emissions <= EMISSIONS_MAX)) {
    return refuse(
      `emissions_kg_co2_m2_year must be a number from 0 to ${EMISSIONS_MAX} (kg CO₂/m² a year)`,
      'range',
      'emissions_kg_co2_m2_year',
      {
        min: 0,
        max: EMISSIONS_MAX,
      },
    );
  }
  if (status === 'available' && rating === null) {
    return refuse('rating is required when the status is available (A to G)', 'rating_required', 'rating');
  }
  if (status !== 'available' && (rating !== null || consumption !== null || emissions !== null)) {
    return refuse(`a rating, consumption or emissions go only with status available, not ${status}`, 'rating_only_available', 'rating');
  }
  return {
    value: {
      status: status as CertificateStatus,
      rating: rating as EnergyRating | null,
      consumption_kwh_m2_year: consumption as number | null,
      emissions_kg_co2_m2_year: emissions as number | null,
    },
  };
}

/** A fact that breaks its rule, as {@link factFaults} lists it. */
export interface FactFault {
  fact: FactKey;
  /** Where it was given: in `specs`, or at the top level of the line. */
  place: 'specs' | 'top';
  /** The part of the certificate, or null. */
  part: CertificatePart | null;
  kind: FactFaultKind;
  /** The import's reason, with its place: what {@link factsInSpecs} would answer for this fact alone. */
  reason: string;
  ctx?: { min: number; max: number };
}

/**
 * Every fact of an import line that breaks its rule, each checked on its own by the rules of
 * {@link factsInSpecs} (which stops at the first): what a form shows beside each field. A line
 * without faults here may still give a fact twice with different values, which only
 * {@link factsInSpecs} refuses.
 * @param now RFC 3339 instant (its year bounds `year_built`).
 */
export function factFaults(
  topLevel: Partial<Record<FactKey, unknown>>,
  specs: Record<string, unknown> | null | undefined,
  now: string,
): FactFault[] {
  const year = Number(now.slice(0, 4));
  const faults: FactFault[] = [];
  for (const key of FACT_KEYS) {
    for (const [place, value] of [
      ['specs', specs?.[key] ?? null],
      ['top', topLevel[key] ?? null],
    ] as const) {
      if (value === null) continue;
      const checked = checkFact(key, value, year);
      if ('reason' in checked) {
        const { reason, ...rest } = checked;
        faults.push({ fact: key, place, ...rest, reason: `${place === 'specs' ? 'specs.' : ''}${key}: ${reason}` });
      }
    }
  }
  return faults;
}

/** A fact refused at `place` (`specs.floor`, `floor`): its English reason and its fault. */
function refused(place: string, refusal: Refusal): FactsOutcome {
  const field = refusal.part ? `${place}.${refusal.part}` : place;
  return { ok: false, reason: `${place}: ${refusal.reason}`, fault: importFault(field, `fact_${refusal.kind}`, refusal.ctx) };
}

/**
 * The `specs` of an import line with its facts checked and in their stored form: the facts of
 * `specs` checked where they are, those given at the top level (`topLevel`) put in their place,
 * or added after the others when `specs` lacks them. Other keys of `specs` are kept as given.
 * @param now RFC 3339 instant of the import (its year bounds `year_built`).
 * @returns the specs (null when there are none), or the reason of the first fact that breaks a rule.
 */
export function factsInSpecs(
  topLevel: Partial<Record<FactKey, unknown>>,
  specs: Record<string, unknown> | null | undefined,
  now: string,
): FactsOutcome {
  const year = Number(now.slice(0, 4));
  let out: Record<string, unknown> | null = specs ? { ...specs } : null;
  for (const key of FACT_KEYS) {
    const inSpecs = out?.[key] ?? null;
    let stored: unknown = null;
    if (inSpecs !== null) {
      const checked = checkFact(key, inSpecs, year);
      if ('reason' in checked) return refused(`specs.${key}`, checked);
      stored = out![key] = checked.value;
    }
    const given = topLevel[key] ?? null;
    if (given === null) continue;
    const checked = checkFact(key, given, year);
    if ('reason' in checked) return refused(key, checked);
    if (stored !== null && JSON.stringify(stored) !== JSON.stringify(checked.value)) {
      return {
        ok: false,
        reason: `${key}: given at the top level and in specs with different values`,
        fault: importFault(key, 'fact_twice'),
      };
    }
    (out ??= {})[key] = checked.value;
  }
  return { ok: true, specs: out };
}

/**
 * The facts of a listing's stored or published `specs` (each null when not stated). Stored
 * facts keep the rules of this module, so nothing is checked again here.
 */
export function listingFacts(specs: Record<string, unknown> | null | undefined): ListingFacts {
  const s = specs ?? {};
  const certificate = s.energy_certificate;
  return {
    energy_certificate: typeof certificate === 'object' && certificate !== null ? (certificate as EnergyCertificate) : null,
    floor: typeof s.floor === 'string' || typeof s.floor === 'number' ? s.floor : null,
    community_fees: isNumber(s.community_fees) ? s.community_fees : null,
    year_built: isInteger(s.year_built) ? s.year_built : null,
    condition:
      typeof s.condition === 'string' && (CONDITIONS as readonly string[]).includes(s.condition) ? (s.condition as Condition) : null,
  };
}
