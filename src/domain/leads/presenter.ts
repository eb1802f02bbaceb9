/**
 * The lead object of GET /leads (spec §2.1, CONTRACT §6): the keys of spec §2.1 only; a key
 * whose value is null, an empty string or an empty list is omitted; `search_preferences`
 * never carries `internal_notes`.
 */

/** Search preferences without the agency's internal notes. */
export function publicSearchPreferences(stored: string | null): unknown {
  if (stored === null) return null;
  const entries = JSON.parse(stored) as unknown;
  if (!Array.isArray(entries)) return entries;
  return entries.map((entry) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
    const { internal_notes: _hidden, ...rest } = entry as Record<string, unknown>;
    return rest;
  });
}

const omitted = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/**
 * A stored lead as far as the API shows it: the columns its lead object is made of (spec
 * §2.1). The domain says what it needs; db/types.ts checks that the leads table provides it.
 */
export interface PresentedRow {
  id: number;
  name: string | null;
  type: string;
  status: string;
  /** 0 or 1. */
  active: number;
  source: string | null;
  /** E.164. */
  phone_number_1: string;
  phone_number_2: string | null;
  landline_phone: string | null;
  personal_email: string | null;
  professional_email: string | null;
  preferred_language: string | null;
  /** JSON array (spec §2.4), internal notes included. */
  search_preferences: string | null;
  /** RFC 3339. */
  created_at: string;
  updated_at: string;
}

/** The columns of {@link PresentedRow}, for the queries that read them. */
export const PRESENTED_COLUMNS = [
  'id',
  'name',
  'type',
  'status',
  'active',
  'source',
  'phone_number_1',
  'phone_number_2',
  'landline_phone',
  'personal_email',
  'professional_email',
  'preferred_language',
  'search_preferences',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof PresentedRow>;

/** The API's view of a stored lead. */
export function presentLead(row: PresentedRow): Record<string, unknown> {
  const candidate: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    active: row.active === 1,
    source: row.source,
    phone_number_1: row.phone_number_1,
    phone_number_2: row.phone_number_2,
    landline_phone: row.landline_phone,
    personal_email: row.personal_email,
    professional_email: row.professional_email,
    preferred_language: row.preferred_language,
    search_preferences: publicSearchPreferences(row.search_preferences),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  const lead: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(candidate)) if (!omitted(value)) lead[key] = value;
  return lead;
}
