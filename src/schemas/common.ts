/** Small TypeBox helpers shared by the request, response and import schemas. */
import { type SchemaOptions, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';

/** `X | null`. */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => Type.Union([schema, Type.Null()], options);

/** A union of string literals (an enum in OpenAPI). */
export const Literals = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnion<Array<TLiteral<T[number]>>> =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as TUnion<Array<TLiteral<T[number]>>>;
