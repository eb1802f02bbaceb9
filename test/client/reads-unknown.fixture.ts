// Not part of the build (tsconfig.json excludes *.fixture.ts): test/unit/openapi-tooling.test.ts
// compiles it alone and expects `read` to refuse a field the document leaves `unknown`.
import type { components } from './openapi.d.ts';
import { read } from './every-operation.ts';

export function readsAFeatureValue(property: components['schemas']['Property']): void {
  read(property.features?.[0]?.value);
}
