/**
 * One line of a catalogue import file (shared/data/README.md, "Import format"). Everything
 * but `external_ref` is optional; extra keys are ignored.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ADDRESS_PRIVACY, PROPERTY_STATUSES, PROPERTY_TYPES, RENTAL_TYPES } from '../domain/catalogue/terms.ts';
import { LISTING_LANGUAGES } from '../domain/catalogue/languages.ts';
import {
  CERTIFICATE_STATUSES,
  COMMUNITY_FEES_MAX,
  CONDITIONS,
  CONSUMPTION_MAX,
  EMISSIONS_MAX,
  ENERGY_RATINGS,
  FLOOR_MAX,
  FLOOR_MIN,
  FLOOR_TEXT_MAX,
  YEAR_BUILT_MIN,
} from '../domain/catalogue/listing-facts.ts';
import { Literals, Nullable } from './common.ts';

const Text = (maxLength = 10_000) => Type.Optional(Nullable(Type.String({ maxLength })));
const Amount = Type.Optional(Nullable(Type.Number({ minimum: 0 })));
const Count = Type.Optional(Nullable(Type.Integer({ minimum: 0 })));

export const ImportImage = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  order: Type.Optional(Nullable(Type.Integer())),
  is_primary: Type.Optional(Nullable(Type.Boolean())),
  title: Text(500),
  public: Type.Optional(Nullable(Type.Boolean())),
});

export const ImportVideo = Type.Object({
  title: Text(500),
  order: Type.Optional(Nullable(Type.Integer())),
  url: Text(2048),
  hls_url: Text(2048),
  thumbnail_url: Text(2048),
  embed_url: Text(2048),
  processed: Type.Optional(Nullable(Type.Boolean())),
});

export const ImportFeature = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 100 }),
  label: Text(200),
  value: Type.Optional(Type.Unknown()),
  isextra: Type.Optional(Nullable(Type.Boolean())),
});

/**
 * Texts by language (domain/catalogue/languages.ts): keys `es`, `en`, `fr`, `de`, `it`. Other
 * keys are kept for the import's rules to refuse with their name (a language inmo does not keep).
 */
const ByLanguage = (maxLength: number) =>
  Type.Optional(
    Nullable(Type.Object(Object.fromEntries(LISTING_LANGUAGES.map((lang) => [lang, Text(maxLength)])), { additionalProperties: true })),
  );

/** The energy certificate (domain/catalogue/listing-facts.ts); the rules across its fields are the import's. */
export const ImportEnergyCertificate = Type.Object({
  status: Literals(CERTIFICATE_STATUSES),
  rating: Type.Optional(Nullable(Literals(ENERGY_RATINGS))),
  consumption_kwh_m2_year: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: CONSUMPTION_MAX }))),
  emissions_kg_co2_m2_year: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: EMISSIONS_MAX }))),
});

export const ImportRecord = Type.Object({
  external_ref: Type.String({ minLength: 1, maxLength: 200, 'x-not-blank': true }),
  public: Type.Optional(Nullable(Type.Boolean())),
  status: Type.Optional(Nullable(Literals(PROPERTY_STATUSES))),
  operation: Text(100),
  rental_type: Type.Optional(Nullable(Literals(RENTAL_TYPES))),
  type: Type.Optional(Nullable(Literals(PROPERTY_TYPES))),
  subtype: Text(100),
  title: Text(),
  description: Text(100_000),
  titles: ByLanguage(10_000),
  descriptions: ByLanguage(100_000),
  price: Amount,
  price_rent: Amount,
  price_transfer: Amount,
  size_total: Amount,
  bedrooms: Count,
  bathrooms: Count,
  address: Text(500),
  address_approximate: Text(500),
  building_name: Text(200),
  postal_code: Text(20),
  city: Text(200),
  province: Text(200),
  country: Text(200),
  lat: Type.Optional(Nullable(Type.Number({ minimum: -90, maximum: 90 }))),
  lon: Type.Optional(Nullable(Type.Number({ minimum: -180, maximum: 180 }))),
  address_privacy: Type.Optional(Nullable(Literals(ADDRESS_PRIVACY))),
  images: Type.Optional(Nullable(Type.Array(ImportImage, { maxItems: 500 }))),
  videos: Type.Optional(Nullable(Type.Array(ImportVideo, { maxItems: 100 }))),
  features: Type.Optional(Nullable(Type.Array(ImportFeature, { maxItems: 500 }))),
  specs: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
  energy_certificate: Type.Optional(Nullable(ImportEnergyCertificate)),
  // A text or a whole number, kept as given: checked by the import's rule, whose reason names both forms.
  floor: Type.Optional(
    Type.Unknown({
      description: `A text of at most ${FLOOR_TEXT_MAX} characters (\`3\`, \`bj\`, \`Ground floor\`) or a whole number from ${FLOOR_MIN} to ${FLOOR_MAX}.`,
    }),
  ),
  community_fees: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: COMMUNITY_FEES_MAX }))),
  year_built: Type.Optional(Nullable(Type.Integer({ minimum: YEAR_BUILT_MIN }))),
  condition: Type.Optional(Nullable(Literals(CONDITIONS))),
  is_featured: Type.Optional(Nullable(Type.Boolean())),
  created_at: Text(64),
  updated_at: Text(64),
  /**
   * The listing's owner (CONTRACT §24): `{"lead_id"}`, a `propietario` lead of the business, or
   * `{"phone"}`, that of the business's `propietario` lead with the phone (made when none has it);
   * null unlinks the owner, absent leaves it as it is. Never published.
   */
  owner: Type.Optional(
    Nullable(
      Type.Object({
        lead_id: Type.Optional(Type.Integer({ minimum: 1 })),
        phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      }),
    ),
  ),
});
export type ImportRecord = Static<typeof ImportRecord>;
