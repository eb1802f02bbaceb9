/**
 * Rules of lead creation (spec §3.1, §4.2, §4.3; CONTRACT §6) as pure functions.
 */
import { InmoError } from '../../errors.ts';

/** Inquiry `type` values (lower-cased) → stored lead type (spec §4.2). */
export const LEAD_TYPE_ALIASES: Readonly<Record<string, string>> = {
  buyer: 'demandante',
  tenant: 'demandante',
  comprador: 'demandante',
  inquilino: 'demandante',
  demandante: 'demandante',
  owner: 'propietario',
  propietario: 'propietario',
  'agencia-inmobiliaria': 'agencia-inmobiliaria',
  'entidad-bancaria': 'entidad-bancaria',
  'proveedor-servicios': 'proveedor-servicios',
};

/** Stored lead types (spec §2.1). */
export const LEAD_TYPES = ['demandante', 'propietario', 'agencia-inmobiliaria', 'entidad-bancaria', 'proveedor-servicios'] as const;
export type LeadType = (typeof LEAD_TYPES)[number];

/** Lead status values in use (spec §3.1, CONTRACT §6). */
export const LEAD_STATUSES = ['new', 'searching_property', 'active_negotiation', 'closed', 'inactive'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** The stored lead type of an inquiry `type` (case-insensitive), or null when it is not accepted. */
export function canonicalLeadType(text: string): string | null {
  const key = text.trim().toLowerCase();
  // Own keys only: `constructor` or `__proto__` must not find Object.prototype's members.
  return Object.hasOwn(LEAD_TYPE_ALIASES, key) ? LEAD_TYPE_ALIASES[key] : null;
}

/** Lead types that own `agency_property_ids` and `services` (spec §4.2). */
export const OWNS_AGENCY_PROPERTY_IDS = new Set(['agencia-inmobiliaria']);
export const OWNS_SERVICES = new Set(['entidad-bancaria', 'proveedor-servicios']);

function hasValue(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(hasValue);
  if (typeof value === 'object') return Object.values(value).some(hasValue);
  return true; // numbers and booleans
}

/**
 * Whether a search entry has content: any criterion other than `internal_notes` holding a
 * value (a non-blank string, a number, a non-empty list or an object with such a value).
 */
export function searchEntryHasContent(entry: Record<string, unknown>): boolean {
  return Object.entries(entry).some(([key, value]) => key !== 'internal_notes' && hasValue(value));
}

/** Status of a new lead (spec §3.1): `searching_property` when any search has content, else `new`. */
export function initialLeadStatus(searches: Array<Record<string, unknown>> | null | undefined): 'searching_property' | 'new' {
  return (searches ?? []).some(searchEntryHasContent) ? 'searching_property' : 'new';
}

/**
 * A malformed `search.budget` (spec §4.3 rule 3: the documented 500, `MALFORMED_BUDGET`);
 * `budget` is kept for the log line, never for the client.
 */
export class MalformedBudgetError extends InmoError<'MALFORMED_BUDGET'> {
  constructor(readonly budget: string) {
    super('MALFORMED_BUDGET');
  }
}

const BUDGET = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/;

/**
 * Monthly budget in € → the maximum monthly rent (CONTRACT §6): `"900"` → 900, `"700-900"`
 * (spaces around the hyphen allowed) → 900; absent or blank → null.
 * @throws MalformedBudgetError for anything else (`"900€"`, `"1.000"`, `"mil"`, `"900-700"`).
 */
export function parseBudget(budget: string | null | undefined): number | null {
  if (budget === null || budget === undefined || budget.trim() === '') return null;
  const match = BUDGET.exec(budget);
  if (!match) throw new MalformedBudgetError(budget);
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (!Number.isSafeInteger(high) || high < low) throw new MalformedBudgetError(budget);
  return high;
}

/** `habs` → minimum bedrooms: `"3"` or `"3+"` → 3; anything else → null (it goes to the notes). */
export function parseHabs(habs: string | null | undefined): number | null {
  const match = habs ? /^\s*(\d{1,2})\s*\+?\s*$/.exec(habs) : null;
  return match ? Number(match[1]) : null;
}
