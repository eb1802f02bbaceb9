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
  /** Time a client has to send a request's headers, ms (408 and the connection closed beyond). */
  headersTimeoutMs: number;
  /** Time a client has to send a request's body once its headers are in, ms (connection closed beyond). */
  bodyTimeoutMs: number;
  /** The same for a file uploaded in the console, once its route has checked the session (http/connections.ts `allowUpload`), ms. */
  uploadTimeoutMs: number;
  /** How long an idle keep-alive connection is kept, ms. */
  keepAliveTimeoutMs: number;
  /** Bytes of a refused request's body read and discarded before the answer, so a client that writes before it reads gets it. */
  discardBodyBytes: number;
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
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  uploadTimeoutMs: 3_600_000,
  keepAliveTimeoutMs: 5_000,
  discardBodyBytes: 32 * 1024 * 1024,
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
  headersTimeoutMs: 'INMO_HEADERS_TIMEOUT_MS',
  bodyTimeoutMs: 'INMO_BODY_TIMEOUT_MS',
  uploadTimeoutMs: 'INMO_UPLOAD_TIMEOUT_MS',
  keepAliveTimeoutMs: 'INMO_KEEP_ALIVE_TIMEOUT_MS',
  discardBodyBytes: 'INMO_MAX_DISCARDED_BODY_BYTES',
};

/** What each variable limits, for docs/configuration.md (config.ts `SETTINGS`). */
const MEANINGS: Record<keyof Limits, string> = {
  bodyBytes: 'limit of request body, bytes (413 beyond)',
  stringChars: 'limit of any string field, characters (422 `string_too_long`)',
  nameChars: 'limit of a contact `name`, characters',
  searches: 'limit of entries of `search_preferences` (422 `too_long`)',
  locations: 'limit of map areas in `locations` (a body entry or the query)',
  polygonVertices: 'limit of vertices of one polygon',
  locationsQueryChars: 'limit of the `locations` query parameter, characters',
  jsonDepth: 'limit of nesting of arrays and objects in a JSON body (422 `json_invalid` beyond)',
  headersTimeoutMs: "time a client has to send a request's headers (408 and closed beyond)",
  bodyTimeoutMs: "time a client has to send a request's body after its headers (408 and closed beyond)",
  uploadTimeoutMs:
    "time a client has to send a console upload's body (a catalogue file, photos), once its session and CSRF token are checked (closed beyond)",
  keepAliveTimeoutMs: 'time an idle keep-alive connection is kept open',
  discardBodyBytes:
    "bytes of a refused request's body read and discarded before its answer (413, 401…), so a client that writes its whole body before reading gets the answer; beyond, the connection is closed",
};

/** The limits' variables, with their meaning and default (CONTRACT §8). */
export const LIMIT_SETTINGS = (Object.keys(VARIABLES) as Array<keyof Limits>).map((field) => ({
  name: VARIABLES[field],
  meaning: MEANINGS[field],
  default: `${DEFAULT_LIMITS[field].toLocaleString('en')}${field.endsWith('Ms') ? ' ms' : ''}`,
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
 * (http/request-pipeline.ts) and each line of an NDJSON import (services/catalogue/import/line.ts) are checked
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
