/**
 * Why an import line or a feed's property was rejected, in parts any language can word (CONTRACT
 * §9: "a rejected line is reported with its line number and reason"). The reason itself stays one
 * English sentence, for the CLI and the logs; the console says each fault in its own language
 * (http/console/import-faults.ts) from these parts, so that no English sentence or code reaches a
 * Spanish page.
 */

/** Rules of the import format beyond Pydantic's validation types (`missing`, `greater_than_equal`…). */
export type ImportRule =
  | 'json_invalid'
  | 'json_too_deep'
  | 'not_object'
  | 'choice'
  | 'url'
  | 'language'
  | 'language_twice'
  | 'latlon'
  | 'timestamp'
  | 'markup_only'
  | 'fact_choice'
  | 'fact_range'
  | 'fact_year'
  | 'fact_floor'
  | 'fact_rating_required'
  | 'fact_rating_only_available'
  | 'fact_shape'
  | 'fact_twice'
  | 'kyero_overlong'
  | 'kyero_id_missing'
  | 'kyero_id_long'
  | 'kyero_currency'
  | 'kyero_price'
  | 'kyero_price_freq'
  | 'kyero_type'
  | 'owner_one_of'
  | 'owner_phone'
  | 'owner_unknown'
  | 'owner_not_propietario';

/** One fault of a rejected line. */
export interface ImportFault {
  /**
   * Where: the import format's field as a path (`price`, `specs.energy_certificate.rating`,
   * `images.2.url`), a Kyero element (`price_freq`), or null for the line as a whole.
   */
  field: string | null;
  /** The rule broken: one of {@link ImportRule}, or a Pydantic validation type (`missing`, `int_parsing`…). */
  rule: ImportRule | (string & {});
  /** The rule's values: Pydantic's context (`ge`, `le`, `max_length`, `expected`), `min`/`max` of a range, the `value` refused. */
  ctx?: Record<string, string | number>;
}

/** A fault's context kept to its plain values (strings and numbers), as stored and worded. */
function plainContext(ctx: Record<string, unknown> | undefined): Record<string, string | number> | undefined {
  if (!ctx) return undefined;
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(ctx)) if (typeof value === 'string' || typeof value === 'number') out[key] = value;
  return Object.keys(out).length ? out : undefined;
}

/**
 * A fault, its context left out when empty. `field` is written as a path whichever way it came:
 * the rules' `images[2].url` and validation's `images.2.url` are both `images.2.url`.
 */
export function importFault(field: string | null, rule: ImportFault['rule'], ctx?: Record<string, unknown>): ImportFault {
  const path = field === null ? null : field.replace(/\[(\d+)\]/g, '.$1');
  const plain = plainContext(ctx);
  return plain ? { field: path, rule, ctx: plain } : { field: path, rule };
}
