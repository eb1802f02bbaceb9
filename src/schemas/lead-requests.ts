/**
 * Request bodies of POST /leads/inquiries (spec §4.2, §2.4), POST /leads/ingest (spec §4.3) and
 * PATCH /leads/{lead_id} (CONTRACT §25, the inquiry's fields again),
 * built for the configured limits of CONTRACT §8 ({@link leadRequestSchemas}, called by
 * schemas/index.ts `buildSchemas`). Unknown fields are ignored.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { OPERATIONS, PROPERTY_TYPES } from '../domain/catalogue/terms.ts';
import { LEAD_TYPE_ALIASES } from '../domain/leads/rules.ts';
import type { Limits } from '../limits.ts';
import { Literals, Nullable } from './common.ts';
import { Lenient, Location } from './locations.ts';

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const Count = Opt(Type.Integer());
const FreeObject = Type.Object({}, { additionalProperties: true });
/** Optional text of at most `limits.stringChars` characters. */
const text = (limits: Limits) => (description?: string) => Opt(Type.String({ maxLength: limits.stringChars, description }));
/** At most this many characters of a consent's wording (CONTRACT §18). */
export const CONSENT_TEXT_CHARS = 2000;

/**
 * The optional `consent` of both POSTs (CONTRACT §18): stored with the lead, its time and the
 * form's page; `whatsapp: false` and no WhatsApp message is ever sent to the lead. Absent or
 * null: nothing is recorded, and the lead is handled as before.
 */
const Consent = Opt(
  Type.Object(
    {
      marketing: Type.Boolean({ description: 'Whether the person agreed to commercial communications.' }),
      whatsapp: Type.Boolean({ description: 'Whether the person agreed to WhatsApp messages; `false`: none is ever sent to them.' }),
      text: Opt(Type.String({ maxLength: CONSENT_TEXT_CHARS, description: 'The wording the person saw.' })),
      version: Opt(Type.String({ maxLength: 100, description: 'The version of that wording.' })),
    },
    { description: 'What the person consented to (CONTRACT §18). Optional: without it, the lead is handled as before.' },
  ),
);

/** An optional list of words (features, subtypes, views). */
const words = (limits: Limits) => Opt(Type.Array(Type.String({ maxLength: limits.stringChars }), { maxItems: 200 }));

/** The criteria objects per property type (spec §2.4), strings bounded by `limits`. */
function typeCriteria(limits: Limits) {
  const Words = words(limits);
  const common = {
    features: Words,
    subtypes: Words,
    size_min: Count,
    size_max: Count,
    price_min: Count,
    price_max: Count,
    price_rent_min: Count,
    price_rent_max: Count,
    specs: Opt(FreeObject),
  };
  const homes = {
    views: Words,
    bedrooms_min: Count,
    bathrooms_min: Count,
    num_terraces_min: Count,
    size_terraces_min: Count,
    doble_bedrooms_min: Count,
    suite_bathrooms_min: Count,
  };

  /** Criteria per property type (spec §2.4); the unlisted types take a free object. */
  return {
    apartamento: Type.Object({ ...common, ...homes }),
    casa: Type.Object({ ...common, ...homes, plot_size_min: Count, porch_size_min: Count }),
    edificio: Type.Object({
      ...common,
      num_floors_min: Count,
      num_locales_min: Count,
      usable_area_min: Count,
      num_parkings_min: Count,
      num_viviendas_min: Count,
    }),
    aparcamiento: Type.Object({
      features: Words,
      subtypes: Words,
      min_seats: Count,
      price_min: Count,
      price_max: Count,
      price_rent_min: Count,
      price_rent_max: Count,
    }),
    local: FreeObject,
    nave: FreeObject,
    almacenaje: FreeObject,
    oficina: FreeObject,
    terreno: FreeObject,
  };
}

/**
 * One search (spec §2.4) with `location` entries of the given schema: the request's (places
 * and map areas, any object accepted) or the stored one (as sent).
 */
export const searchEntry = <L extends TSchema>(location: L, withInternalNotes: boolean, limits: Limits, description: string) => {
  const TypeCriteria = typeCriteria(limits);
  return Type.Object(
    {
      operations: Opt(Type.Array(Literals(OPERATIONS), { maxItems: 3 })),
      property_types: Opt(Type.Array(Literals(PROPERTY_TYPES), { maxItems: 9 })),
      // In TypeCriteria's order, the order faults are reported in.
      apartamento: Opt(TypeCriteria.apartamento),
      casa: Opt(TypeCriteria.casa),
      edificio: Opt(TypeCriteria.edificio),
      aparcamiento: Opt(TypeCriteria.aparcamiento),
      local: Opt(TypeCriteria.local),
      nave: Opt(TypeCriteria.nave),
      almacenaje: Opt(TypeCriteria.almacenaje),
      oficina: Opt(TypeCriteria.oficina),
      terreno: Opt(TypeCriteria.terreno),
      locations: Opt(Type.Array(location, { maxItems: limits.locations })),
      ...(withInternalNotes
        ? {
            internal_notes: text(limits)('Agency-only; as the message of the generated notes when set on the first entry. Never returned.'),
          }
        : {}),
    },
    { description },
  );
};

/**
 * The request bodies of the two POST endpoints for `limits`.
 * @returns `{ InquiryBody, IngestBody }`, TypeBox schemas (validated by validation/validator.ts).
 */
export function leadRequestSchemas(limits: Limits) {
  const Text = text(limits);
  const SearchEntry = searchEntry(Lenient(Location), true, limits, 'One search (spec §2.4). Unknown keys are ignored and not stored.');
  const NullableText = Opt(Type.String({ maxLength: limits.stringChars }));

  const InquiryBody = Type.Object({
    name: Type.String({ minLength: 1, maxLength: limits.nameChars, 'x-not-blank': true, description: 'Contact’s full name.' }),
    // Documented as the accepted spellings; checked as text, so that any other value is the
    // `value_error` of CONTRACT §6 (http/routes/leads.ts), in any case.
    type: Type.String({
      maxLength: 100,
      enum: Object.keys(LEAD_TYPE_ALIASES),
      'x-case-insensitive': true,
      description:
        'Case-insensitive: `buyer`, `tenant`, `comprador`, `inquilino`, `demandante` → `demandante`; `owner`, `propietario` → `propietario`; `agencia-inmobiliaria`, `entidad-bancaria`, `proveedor-servicios` as they are. Anything else: 422 `value_error`.',
    }),
    phone_number_1: Type.String({ maxLength: 64, description: 'Primary phone; normalised to E.164, read as Spanish without a `+`.' }),
    dni: Text(),
    profile_category: Type.Optional(Literals(['standard', 'potencial'] as const, { default: 'potencial' })),
    urgency_profile: Type.Optional(Literals(['alta-urgencia', 'poca-urgencia'] as const, { default: 'poca-urgencia' })),
    preferred_language: Opt(Literals(['es', 'gb', 'fr', 'ge', 'it'] as const)),
    phone_number_2: Opt(Type.String({ maxLength: 64 })),
    landline_phone: Opt(Type.String({ maxLength: 64 })),
    personal_email: Text(),
    professional_email: Text(),
    source: Text('Lead source; default `manual`.'),
    sourcePage: Text('URL of the submitting page; added to the notes.'),
    notes: Text('Free-text message; the notes’ message unless `search_preferences[0].internal_notes` is set.'),
    search_preferences: Opt(Type.Array(SearchEntry, { maxItems: limits.searches })),
    agency_property_ids: Opt(Type.Array(Type.Integer(), { maxItems: 1000, description: 'Kept only for `agencia-inmobiliaria`.' })),
    services: Opt(Type.Array(FreeObject, { maxItems: 200, description: 'Kept only for `entidad-bancaria` and `proveedor-servicios`.' })),
    rating: Type.Optional(Type.Integer({ default: 0, description: 'Accepted and ignored: leads are stored with rating 3.' })),
    active: Opt(Type.Boolean({ description: 'Accepted and ignored: leads are stored active.' })),
    captured_by: Opt(Type.String({ maxLength: limits.stringChars, description: 'Accepted and ignored: stored as captured by `Web`.' })),
    agency_id: Opt(Type.Integer({ minimum: 1, description: 'Accepted and ignored.' })),
    agency_client_ids: Opt(Type.Array(Type.Integer(), { maxItems: 1000, description: 'Accepted and ignored.' })),
    time_to_create: Type.Optional(Type.Integer({ default: 0, description: 'Accepted and ignored.' })),
    consent: Consent,
  });

  const IngestBody = Type.Object({
    id: Type.String({ maxLength: limits.stringChars, description: 'Submission identifier; not stored.' }),
    // `format` is an annotation (OpenAPI 3.1): the validator checks only the length, as before.
    createdAt: Type.String({
      maxLength: 64,
      format: 'date-time',
      description: 'ISO 8601 submission time, RFC 3339 preferred; any text is accepted, and not stored.',
    }),
    source: Type.String({ maxLength: limits.stringChars, description: 'Stored as the lead source.' }),
    sourcePage: Type.String({ maxLength: limits.stringChars, description: 'URL of the form page; added to the notes.' }),
    contact: Type.Object({
      name: Type.String({ maxLength: limits.nameChars }),
      phone: Type.String({ maxLength: 64 }),
      phoneRaw: Opt(Type.String({ maxLength: 64 })),
      areaCode: Opt(Type.String({ maxLength: 16 })),
      phoneNumber: Opt(Type.String({ maxLength: 64 })),
      phoneE164: Opt(Type.String({ maxLength: 64 })),
    }),
    search: Type.Object({
      budget: Opt(Type.String({ maxLength: 100, description: 'Monthly €: `900` or `700-900`; anything else is the documented 500.' })),
      entryDate: NullableText,
      exitDate: NullableText,
      people: NullableText,
      area: NullableText,
      habs: Opt(Type.String({ maxLength: 100, description: 'Minimum bedrooms (`3` or `3+`); other text goes to the notes.' })),
      pets: NullableText,
      workSituation: NullableText,
      location: Opt(Lenient(Location)),
      freeText: NullableText,
    }),
    consent: Consent,
  });
  /**
   * PATCH /leads/{lead_id} (CONTRACT §25): the inquiry's contact fields and searches, each
   * optional and checked as the inquiry checks it (the same schemas); `null` (or `[]` for
   * `search_preferences`) clears an optional one. Unknown fields are ignored, as the inquiry's are.
   */
  const LeadPatchBody = Type.Object(
    {
      name: Type.Optional(InquiryBody.properties.name),
      phone_number_1: Type.Optional(
        Type.String({
          maxLength: 64,
          description:
            'Primary phone; normalised to E.164, read as Spanish without a `+`. No other lead of the business may hold it (409).',
        }),
      ),
      phone_number_2: Opt(Type.String({ maxLength: 64, description: 'Normalised to E.164; `null` removes it.' })),
      personal_email: Text('`null` removes it.'),
      professional_email: Text('`null` removes it.'),
      preferred_language: Opt(Literals(['es', 'gb', 'fr', 'ge', 'it'] as const, { description: '`null` removes it.' })),
      search_preferences: Opt(
        Type.Array(SearchEntry, {
          maxItems: limits.searches,
          description: 'Replaces the lead’s searches whole (spec §2.4); `[]` or `null` removes them. The lead is matched again.',
        }),
      ),
    },
    { description: 'The fields to change; those left out keep their values.' },
  );
  /** `POST /valuations` (CONTRACT §24): the home an owner asks a price for, and the owner, as an inquiry names a person. */
  const ValuationBody = Type.Object({
    address: Type.String({
      minLength: 1,
      maxLength: 300,
      'x-not-blank': true,
      description: 'The home’s street and number, as the owner writes it.',
    }),
    postal_code: Type.String({ pattern: '^[0-9]{5}$', description: 'The home’s Spanish postal code: comparables are read in it.' }),
    property_type: Literals(PROPERTY_TYPES, { description: 'The catalogue’s type of the home.' }),
    operation: Type.Optional(
      Literals(['venta', 'alquiler'] as const, { default: 'venta', description: 'Sell (`venta`, the default) or let (`alquiler`).' }),
    ),
    size_total: Type.Number({ minimum: 10, maximum: 100000, description: 'Built area, m².' }),
    bedrooms: Opt(Type.Integer({ minimum: 0, maximum: 50, description: 'Bedrooms.' })),
    name: InquiryBody.properties.name,
    phone_number_1: InquiryBody.properties.phone_number_1,
    personal_email: Text(),
    preferred_language: InquiryBody.properties.preferred_language,
    source: Text('Lead source; default `web`.'),
    sourcePage: Text('URL of the submitting page; added to the notes.'),
    consent: Consent,
  });

  return { InquiryBody, IngestBody, LeadPatchBody, ValuationBody };
}

/** Shapes do not depend on the limits, only bounds do. */
type LeadRequestSchemas = ReturnType<typeof leadRequestSchemas>;
export type InquiryBody = Static<LeadRequestSchemas['InquiryBody']>;
export type IngestBody = Static<LeadRequestSchemas['IngestBody']>;
export type LeadPatchBody = Static<LeadRequestSchemas['LeadPatchBody']>;
