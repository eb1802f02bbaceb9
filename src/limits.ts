/**
 * Request limits (CONTRACT §8), configurable through the environment and read once at start
 * into the config (config.ts); the schemas that enforce them, and so the OpenAPI document, are
 * built from the config's values (schemas/index.ts `buildSchemas`).
 *
 * The variables (`INMO_MAX_*`), what each limits and its default: {@link LIMIT_SETTINGS}, listed in
 * docs/configuration.md.
 */

export interface Limits {
  bodyBytes: number;
  stringChars: number;
  nameChars: number;
  searches: number;
  locations: number;
  polygonVertices: number;
  locationsQueryChars: number;
  jsonDepth: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 1024 * 1024,
  stringChars: 10_000,
  nameChars: 200,
  searches: 20,
  locations: 50,
  polygonVertices: 1000,
  locationsQueryChars: 65_536,
  jsonDepth: 64,
};

const VARIABLES: Record<keyof Limits, string> = {
  bodyBytes: 'INMO_MAX_BODY_BYTES',
  stringChars: 'INMO_MAX_STRING',
  nameChars: 'INMO_MAX_NAME',
  searches: 'INMO_MAX_SEARCHES',
  locations: 'INMO_MAX_LOCATIONS',
  polygonVertices: 'INMO_MAX_POLYGON_VERTICES',
  locationsQueryChars: 'INMO_MAX_LOCATIONS_QUERY_CHARS',
  jsonDepth: 'INMO_MAX_JSON_DEPTH',
};

/** What each variable limits, for docs/configuration.md (config.ts `SETTINGS`). */
const MEANINGS: Record<keyof Limits, string> = {
  bodyBytes: 'request body, bytes (413 beyond)',
  stringChars: 'any string field, characters (422 `string_too_long`)',
  nameChars: 'a contact `name`, characters',
  searches: 'entries of `search_preferences` (422 `too_long`)',
  locations: 'map areas in `locations` (a body entry or the query)',
  polygonVertices: 'vertices of one polygon',
  locationsQueryChars: 'the `locations` query parameter, characters',
  jsonDepth: 'nesting of arrays and objects in a JSON body (422 `json_invalid` beyond)',
};

/** The limits' variables, with their meaning and default (CONTRACT §8). */
export const LIMIT_SETTINGS = (Object.keys(VARIABLES) as Array<keyof Limits>).map((field) => ({
  name: VARIABLES[field],
  meaning: `limit of ${MEANINGS[field]}`,
  default: DEFAULT_LIMITS[field].toLocaleString('en'),
}));

/**
 * The limits the environment sets.
 * @throws Error naming the variable when a value is not a positive integer.
 */
export function loadLimits(env: NodeJS.ProcessEnv): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [field, name] of Object.entries(VARIABLES) as Array<[keyof Limits, string]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
    limits[field] = value;
  }
  return limits;
}

/**
 * Where JSON text nests arrays and objects deeper than `max` levels: the offset of the bracket
 * that goes one level too deep, or null. Read in one pass without recursion (strings skipped),
 * so that no depth of nesting can overflow a stack, here or in a parser after it. Request bodies
 * (http/fastapi-compat.ts) and each line of an NDJSON import (services/import-line.ts) are checked
 * with it before they are parsed.
 */
export function tooDeepAt(text: string, max: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return null;
}
