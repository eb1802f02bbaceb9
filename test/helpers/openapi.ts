/**
 * Responses checked against the OpenAPI document the server serves (`/v1/ext/openapi.json`),
 * with ajv and ajv-formats: the fuzz tests check every response's body, and the tests of one
 * operation check that what it answers is what the document promises, keys included.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export type Schema = Record<string, any>;

/** An ajv instance with the document's components under `openapi#/components/…`. */
export function openApiAjv(doc: Schema): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the default export's `default` under ESM.
  const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (instance: Ajv) => void;
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  return ajv;
}

/**
 * The JSON schema of an operation's response with `status`, its `$ref`s pointing into
 * {@link openApiAjv}'s copy of the components; `{}` for a response without a JSON body, and
 * undefined for a status the document does not list.
 */
export function responseSchema(operation: Schema, status: number): Schema | undefined {
  const response = operation.responses?.[String(status)];
  if (!response) return undefined;
  const schema = response.content?.['application/json']?.schema as Schema | undefined;
  return schema ? (JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Schema) : {};
}

/**
 * Expects `body` to be valid against the documented schema of `method path` → `status` (a path
 * of the document: `/leads/{lead_id}/export`), and its top-level keys to be exactly the keys the
 * schema documents: a key the server adds without documenting it fails, as does one it drops.
 */
export async function expectDocumented(
  app: FastifyInstance,
  method: 'get' | 'post' | 'delete' | 'patch',
  path: string,
  status: number,
  body: unknown,
) {
  const doc = (await app.inject({ method: 'GET', url: '/v1/ext/openapi.json' })).json() as Schema;
  const operation = doc.paths?.[path]?.[method] as Schema | undefined;
  expect(operation, `${method.toUpperCase()} ${path} is not in the document`).toBeDefined();
  const schema = responseSchema(operation!, status);
  expect(schema, `${method.toUpperCase()} ${path} does not document a ${status}`).toBeDefined();
  const validate: ValidateFunction = openApiAjv(doc).compile(schema!);
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  expect(Object.keys(body as object).sort()).toEqual(Object.keys((schema!.properties ?? {}) as object).sort());
}
