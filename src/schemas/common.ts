/** Small TypeBox helpers shared by the request, response and import schemas. */
import { Kind, type SchemaOptions, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/** `X | null`. */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => Type.Union([schema, Type.Null()], options);

/** The TypeBox kind of {@link Literals} schemas, which validation/validator.ts checks as Pydantic's `Literal[…]`. */
export const LITERALS_KIND = 'Literals';

/**
 * One of a few strings: `{"type": "string", "enum": [...]}` in the OpenAPI document (so docs
 * offer every value in their dropdowns and generated clients get a union), the union of the
 * values in TypeScript, and Pydantic's `literal_error` when validated.
 */
export const Literals = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> =>
  Type.Unsafe<T[number]>({ ...options, [Kind]: LITERALS_KIND, type: 'string', enum: [...values] });
