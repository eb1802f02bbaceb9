/**
 * idealista's v6 properties format (CONTRACT §22): its JSON Schemas (draft-04), shipped verbatim
 * in `idealista-v6/` (the copy of `spec/idealista-v6/properties/` and `rules.json`, which a test
 * keeps equal), checked with Ajv's draft-04 class (`ajv-draft-04`). The schemas are read and
 * compiled once per process, on first use; each check after that is a call of compiled code.
 *
 * The schemas are idealista's, not written for a strict validator (a `required` names properties
 * a branch does not declare, `rules.json` holds definitions as top-level keywords), so Ajv runs
 * without its strict mode; every keyword of draft-04 is still enforced.
 *
 * A fault is reported as `{path, keyword}`: the slash-separated field names down to the field
 * that broke a rule (the missing one for `required`), and the rule's JSON Schema keyword. It
 * carries no value of the document, so it may be shown and logged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type AjvDraft04 from 'ajv-draft-04';
import type { ErrorObject, ValidateFunction } from 'ajv-draft-04';
import { IDEALISTA_KINDS, type IdealistaKind } from '../domain/catalogue/idealista-feed.ts';
import { inPackage } from '../package-root.ts';

/** Where idealista's schemas are declared to live: their `id`s, which their `$ref`s resolve against. */
const BASE = 'https://feeds.idealista.com/v6/schemas/properties/';

/** The first rule a document broke: the field's path (`propertyFeatures/featuresBathroomNumber`) and the keyword (`required`). */
export interface IdealistaFault {
  path: string;
  keyword: string;
}

/** idealista's checks, compiled. Each returns null when the value satisfies its schema. */
export interface IdealistaSchemas {
  /** A whole customer document against `customer.json`. */
  customer(document: unknown): IdealistaFault | null;
  /** One item of `customerProperties` against `property.json`. */
  property(item: unknown): IdealistaFault | null;
  /** A `propertyFeatures` object against its kind's schema alone (a precise fault where `property.json`'s `oneOf` gives a vague one). */
  features(kind: IdealistaKind, features: unknown): IdealistaFault | null;
}

/** The first fault of a failed check, with the path given relative to `under`. */
function faultOf(errors: ErrorObject[] | null | undefined, under = ''): IdealistaFault {
  const error = errors?.[0];
  if (!error) return { path: under, keyword: 'unknown' };
  const path = error.instancePath
    .split('/')
    .filter((part) => part !== '' && !/^\d+$/.test(part))
    .concat(error.keyword === 'required' ? [String((error.params as { missingProperty: string }).missingProperty)] : []);
  return { path: [under, ...path].filter(Boolean).join('/'), keyword: error.keyword };
}

/**
 * Compiles idealista's schemas from `folder` (holding `rules.json` and `properties/*.json`).
 * @throws Error when a schema cannot be read or compiled.
 */
export function compileIdealistaSchemas(folder: string): IdealistaSchemas {
  // Required here, not at the module's top: only a process that publishes an idealista feed loads Ajv's draft-04 class.
  const Ajv = (createRequire(import.meta.url)('ajv-draft-04') as typeof AjvDraft04).default;
  const ajv = new Ajv({ strict: false, allErrors: false });
  ajv.addSchema(JSON.parse(readFileSync(`${folder}/rules.json`, 'utf8')) as object);
  for (const file of readdirSync(`${folder}/properties`)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    ajv.addSchema(JSON.parse(readFileSync(`${folder}/properties/${file}`, 'utf8')) as object);
  }
  const schema = (name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${BASE}${name}.json`);
    if (!validate) throw new Error(`idealista's schema ${name}.json is missing from ${folder}`);
    return validate;
  };
  const customer = schema('customer');
  const property = schema('property');
  const kinds = new Map(IDEALISTA_KINDS.map((kind) => [kind, schema(kind)]));
  const check = (validate: ValidateFunction, value: unknown, under = '') => (validate(value) ? null : faultOf(validate.errors, under));
  return {
    customer: (document) => check(customer, document),
    property: (item) => check(property, item),
    features: (kind, features) => check(kinds.get(kind)!, features, 'propertyFeatures'),
  };
}

/** The schemas inmo ships, where {@link idealistaSchemas} reads them. */
export const IDEALISTA_SCHEMAS_FOLDER = inPackage('src', 'feeds', 'idealista-v6');

let compiled: IdealistaSchemas | null = null;

/**
 * The schemas inmo ships, compiled on the first call and kept for the process.
 * @throws Error when they cannot be read or compiled (a broken installation).
 */
export function idealistaSchemas(): IdealistaSchemas {
  compiled ??= compileIdealistaSchemas(IDEALISTA_SCHEMAS_FOLDER);
  return compiled;
}
