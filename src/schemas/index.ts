/**
 * The schemas of an app, built once from the configured limits (CONTRACT §8, src/limits.ts):
 * the request schemas that enforce them, and so the OpenAPI document that states them. A test
 * builds an app with small limits by passing them to buildApp; nothing reads the environment
 * at import time.
 */
import type { Limits } from '../limits.ts';
import { propertiesQuery, sharedSchemas } from './api.ts';
import { leadRequestSchemas } from './lead-requests.ts';
import { viewingRequestSchemas } from './viewings.ts';

/**
 * Every limit-dependent schema for `limits`.
 * @returns the request schemas of the routes, the shared (`$ref`'d) schemas to register, and the limits themselves.
 */
export function buildSchemas(limits: Limits) {
  return {
    limits,
    PropertiesQuery: propertiesQuery(limits),
    ...leadRequestSchemas(limits),
    ...viewingRequestSchemas(limits),
    shared: sharedSchemas(limits),
  };
}

export type Schemas = ReturnType<typeof buildSchemas>;
