/**
 * Request limits (CONTRACT §8), configurable through the environment and read once at start
 * into the config (config.ts); the schemas that enforce them, and so the OpenAPI document, are
 * built from the config's values (schemas/index.ts `buildSchemas`).
 *
 * | variable | limit | default |
 * |---|---|---|
 * | `INMO_MAX_BODY_BYTES` | request body, bytes (413 beyond) | 1 MiB |
 * | `INMO_MAX_STRING` | any string field, characters (422 `string_too_long`) | 10,000 |
 * | `INMO_MAX_NAME` | a contact `name`, characters | 200 |
 * | `INMO_MAX_SEARCHES` | entries of `search_preferences` (422 `too_long`) | 20 |
 * | `INMO_MAX_LOCATIONS` | map areas in `locations` (body entry or query) | 50 |
 * | `INMO_MAX_POLYGON_VERTICES` | vertices of one polygon | 1,000 |
 * | `INMO_MAX_LOCATIONS_QUERY_CHARS` | the `locations` query parameter, characters | 65,536 |
 */

export interface Limits {
  bodyBytes: number;
  stringChars: number;
  nameChars: number;
  searches: number;
  locations: number;
  polygonVertices: number;
  locationsQueryChars: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 1024 * 1024,
  stringChars: 10_000,
  nameChars: 200,
  searches: 20,
  locations: 50,
  polygonVertices: 1000,
  locationsQueryChars: 65_536,
};

const VARIABLES: Record<keyof Limits, string> = {
  bodyBytes: 'INMO_MAX_BODY_BYTES',
  stringChars: 'INMO_MAX_STRING',
  nameChars: 'INMO_MAX_NAME',
  searches: 'INMO_MAX_SEARCHES',
  locations: 'INMO_MAX_LOCATIONS',
  polygonVertices: 'INMO_MAX_POLYGON_VERTICES',
  locationsQueryChars: 'INMO_MAX_LOCATIONS_QUERY_CHARS',
};

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
