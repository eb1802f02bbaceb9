/**
 * TypeBox schemas of the /v1/ext API: the requests the server validates (through
 * validation/validator.ts) and the responses it documents. The OpenAPI document is generated
 * from these same objects. Those that depend on the configured limits (CONTRACT §8) are
 * functions of them, built once per app by schemas/index.ts `buildSchemas`.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { SCOPES } from '../domain/access/api-key.ts';
import { OPERATIONS, PROPERTY_TYPES } from '../domain/catalogue/terms.ts';
import { LANGUAGE_PARAMS } from '../domain/catalogue/languages.ts';
import { LEAD_STATUSES, LEAD_TYPES } from '../domain/leads/rules.ts';
import { OWNER_STAGES } from '../domain/leads/owner-stages.ts';
import { ERRORS, InmoError, type ErrorCode } from '../errors.ts';
import type { InboundEmailState } from '../db/types.ts';
import type { Limits } from '../limits.ts';
import { Literals, Nullable } from './common.ts';
import { searchEntry } from './lead-requests.ts';
import { locationSchemas, StoredLocation } from './locations.ts';
import { Viewing } from './viewings.ts';

/** Limits of paging (spec §8). */
const Limit = Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Page size, 1 to 1000.' });
const Offset = Type.Integer({ minimum: 0, default: 0, description: 'Rows skipped before the page.' });

// ---------------------------------------------------------------- requests

/** `lang` of the property reads (CONTRACT §22). */
const Lang = Literals(LANGUAGE_PARAMS, {
  'x-case-insensitive': true,
  description:
    'The language of `title` and `description`: `es`, `en`, `fr`, `de` or `it` (the spec’s `gb` and `ge` are `en` and `de`), any case. Each listing gives its text in that language where it holds one, title and description each on its own, else its default text (Spanish, or the first language it holds); `Content-Language` names the language asked for. Without `lang` each listing gives its default text, exactly as before languages existed.',
});

/** The query of GET /properties, with the `locations` bounds of `limits`. */
export const propertiesQuery = (limits: Limits) =>
  Type.Object({
    limit: Type.Optional(Limit),
    offset: Type.Optional(Offset),
    status: Type.Optional(Type.String({ description: 'Exact match; only `disponible` and `reservada` can match.' })),
    operation: Type.Optional(
      Literals(OPERATIONS, {
        'x-case-insensitive': true,
        description:
          'Case-insensitive. Matches properties offered for this operation among others; selects the price used by `min_price`, `max_price` and `sort` (sale price, `specs.price_calc.price_alq`, `specs.price_calc.price_trasp`). Without it, the first of those prices that is set.',
      }),
    ),
    rental_type: Type.Optional(
      Literals(['temporal', 'anual'] as const, {
        description: '`temporal`: temporary rentals. `anual`: rentals neither temporary nor holiday (unset counts as anual).',
      }),
    ),
    type: Type.Optional(Literals(PROPERTY_TYPES, { description: 'Property type key.' })),
    subtype: Type.Optional(Type.String({ description: 'Exact stored subtype key (`atico`, `duplex`, `chalet`…).' })),
    city: Type.Optional(Type.String({ description: 'Case-insensitive exact match (Unicode-aware).' })),
    locations: Type.Optional(
      Type.String({
        maxLength: limits.locationsQueryChars,
        description:
          'URL-encoded JSON array of map areas; a property matches when its published position lies in at least one. Shapes: `{"type":"circle","center":{"lat","lng"},"radius":m}`, `{"type":"point"|"marker","lat","lng","radius"?}` (500 m default), `{"type":"rectangle","bounds":{"south","west","north","east"}}`, `{"type":"polygon","coordinates":[{"lat","lng"}…]}`, or any area with a GeoJSON `geometry` (`Point` or `Polygon`, `[lng, lat]`). `lon` may stand for `lng`. Text that is not a JSON array is ignored, and so are unrecognised entries. ' +
          `At most ${limits.locations.toLocaleString('en')} areas and ${limits.polygonVertices.toLocaleString('en')} vertices per polygon.`,
      }),
    ),
    min_price: Type.Optional(Type.Number({ minimum: 0, description: 'Inclusive, €.' })),
    max_price: Type.Optional(Type.Number({ minimum: 0, description: 'Inclusive, €.' })),
    min_bedrooms: Type.Optional(Type.Integer({ minimum: 0, description: 'Inclusive.' })),
    is_featured: Type.Optional(Type.Boolean({ description: '`true`: only featured; `false`: only non-featured.' })),
    sort: Type.Optional(
      Literals(['price_asc', 'price_desc'] as const, {
        description:
          'By the price the operation selects; properties without it come last. Default: `updated_at` descending. Ties: `updated_at` desc, `id` desc.',
      }),
    ),
    lang: Type.Optional(Lang),
  });

/** The query of GET /properties/{property_id}. */
export const PropertyQuery = Type.Object({ lang: Type.Optional(Lang) });

export const ChangesQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'The `next_cursor` of the previous page; none to start from the beginning.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Changes per page, 1 to 500.' })),
});

export const PropertyParams = Type.Object({
  property_id: Type.Integer({ minimum: 1, description: 'The `id` of a property from the list.' }),
});

export const LeadsQuery = Type.Object({
  limit: Type.Optional(Limit),
  offset: Type.Optional(Offset),
  updated_since: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'RFC 3339 instant with an offset (`Z` or `±hh:mm`): only leads whose `updated_at` is at or after it. To follow changes, send the largest `updated_at` seen; leads updated at that very instant come again.',
      examples: ['2026-11-23T09:30:00Z'],
    }),
  ),
  status: Type.Optional(Literals(LEAD_STATUSES, { description: 'Exact pipeline status (spec §3.1).' })),
  type: Type.Optional(Literals(LEAD_TYPES, { description: 'Exact stored lead type (spec §2.1).' })),
  source: Type.Optional(Type.String({ description: 'Exact `source` (`web`, `manual`, …).' })),
});

export const LeadParams = Type.Object({
  lead_id: Type.Integer({ minimum: 1, description: 'The `id` of a lead, as `lead_id` of POST /leads/inquiries or `id` in GET /leads.' }),
});

// ---------------------------------------------------------------- responses

const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 with UTC offset.' });

export const Property = Type.Object(
  {
    id: Type.Integer(),
    operation: Nullable(Type.String(), { description: '`venta`, `alquiler`, `traspaso`, or several joined by commas.' }),
    type: Nullable(Literals(PROPERTY_TYPES)),
    subtype: Nullable(Type.String({ description: 'Spanish display label, or `Sin Especificar`.' })),
    title: Nullable(Type.String()),
    price: Nullable(Type.Number({ description: 'Sale price, €.' })),
    size_total: Nullable(Type.Number({ description: 'm².' })),
    bedrooms: Nullable(Type.Integer()),
    bathrooms: Nullable(Type.Integer()),
    postal_code: Type.Optional(Nullable(Type.String({ description: 'Omitted when the address is hidden.' }))),
    description: Nullable(Type.String({ description: 'HTML, sanitised with an allowlist.' })),
    images: Nullable(
      Type.Array(
        Type.Object({
          id: Type.Integer(),
          url: Type.String(),
          order: Type.Integer(),
          is_primary: Type.Boolean(),
          title: Nullable(Type.String()),
        }),
      ),
    ),
    videos: Nullable(
      Type.Array(
        Type.Object({
          id: Type.Integer(),
          title: Nullable(Type.String()),
          order: Type.Integer(),
          url: Nullable(Type.String()),
          hls_url: Nullable(Type.String()),
          thumbnail_url: Nullable(Type.String()),
          embed_url: Nullable(Type.String()),
        }),
      ),
    ),
    specs: Nullable(
      Type.Object(
        {
          price_calc: Type.Object({
            price_alq: Nullable(Type.Number({ description: 'Monthly rent, €.' })),
            price_trasp: Nullable(Type.Number({ description: 'Transfer price, €.' })),
          }),
          address_privacy: Literals(['public', 'approximate', 'hidden'] as const),
          building_name: Type.Optional(Nullable(Type.String({ description: 'Present only when the address is public.' }))),
        },
        { additionalProperties: true, description: 'Listing characteristics; other keys depend on the property type.' },
      ),
    ),
    features: Nullable(
      Type.Array(Type.Object({ label: Nullable(Type.String()), key: Type.String(), value: Type.Unknown(), isextra: Type.Boolean() })),
    ),
    status: Nullable(Literals(['disponible', 'reservada'] as const)),
    address: Type.Optional(Nullable(Type.String({ description: 'Full when public, approximate when approximate, omitted when hidden.' }))),
    city: Nullable(Type.String()),
    province: Nullable(Type.String()),
    country: Nullable(Type.String()),
    lat: Type.Optional(Nullable(Type.Number({ description: 'Exact when public, 2 decimals when approximate, omitted when hidden.' }))),
    lon: Type.Optional(Nullable(Type.Number({ description: 'As `lat`.' }))),
    is_featured: Nullable(Type.Boolean()),
    created_at: Nullable(Timestamp),
    updated_at: Nullable(Timestamp),
  },
  { $id: 'Property' },
);

/** `x-response-description`: what @fastify/swagger writes as the response's description. */
const responding = (description: string) => ({ 'x-response-description': description });

/** The 200's headers of the conditional GETs (http/conditional.ts, CONTRACT §13). */
const CONDITIONAL_HEADERS = {
  ETag: { type: 'string', description: 'Strong validator of this body: send it back in `If-None-Match` to get 304 when nothing changed.' },
  'Cache-Control': { type: 'string', enum: ['private, no-cache'], description: 'Store privately; revalidate before each use.' },
  'Content-Encoding': { type: 'string', enum: ['br', 'gzip'], description: 'When `Accept-Encoding` allows it and the body exceeds 1 KB.' },
};

/** Response schema options of a conditional GET's 200. */
export const conditional200 = (description: string, headers: Record<string, object> = {}) => ({
  ...responding(description),
  headers: { ...CONDITIONAL_HEADERS, ...headers },
});

/** The 200's header of the property reads asked for a language (CONTRACT §22). */
const CONTENT_LANGUAGE = {
  'Content-Language': {
    type: 'string',
    enum: ['es', 'en', 'fr', 'de', 'it'],
    description: 'Sent when `lang` was: the language asked for (`gb` as `en`, `ge` as `de`).',
  },
};

/** The request header and the 304 of a conditional GET (CONTRACT §13). */
export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'An `ETag` from an earlier 200 (or `*`): 304 with no body while the body would be the same.' }),
  ),
});
export const NotModified = Type.Null({ description: 'Not Modified: the body is the one whose ETag was sent. No body.' });

const Page = <T extends TSchema>(item: T, description: string, headers: Record<string, object> = {}) =>
  Type.Object(
    {
      data: Type.Array(item),
      total: Type.Integer({ description: 'Rows matching the filters, ignoring limit and offset.' }),
      limit: Type.Integer(),
      offset: Type.Integer(),
    },
    conditional200(description, headers),
  );

export const PropertyPage = Page(
  Type.Ref('Property'),
  'One page of the public catalogue, with the total matching the filters.',
  CONTENT_LANGUAGE,
);
export const ChangesPage = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'The listing’s id.' }),
        change: Literals(['upsert', 'delete'] as const, {
          description: '`upsert`: public now, store `property`; `delete`: left the public catalogue, drop it.',
        }),
        property: Type.Union([Type.Ref('Property'), Type.Null()], { description: 'The Property object for `upsert`; null for `delete`.' }),
        changed_at: Timestamp,
      }),
    ),
    next_cursor: Type.String({ description: 'Opaque: pass it as `cursor` in the next call (even when `data` is empty).' }),
    has_more: Type.Boolean({ description: 'More changes are waiting: call again at once.' }),
  },
  responding('Changes in commit order.'),
);

export const PropertyEnvelope = Type.Object({ data: Type.Ref('Property') }, conditional200('The property.', CONTENT_LANGUAGE));

/** A lead (spec §2.1); its search preferences bounded by `limits`. */
export const leadSchema = (limits: Limits) =>
  Type.Object(
    {
      id: Type.Integer(),
      name: Type.Optional(Type.String()),
      type: Literals(LEAD_TYPES, { description: 'Stored lead type (spec §2.1).' }),
      status: Literals(LEAD_STATUSES, { description: 'Pipeline status (spec §3.1).' }),
      active: Type.Optional(Type.Boolean()),
      source: Type.Optional(Type.String()),
      phone_number_1: Type.String({ description: 'E.164.' }),
      phone_number_2: Type.Optional(Type.String()),
      landline_phone: Type.Optional(Type.String()),
      personal_email: Type.Optional(Type.String()),
      professional_email: Type.Optional(Type.String()),
      preferred_language: Type.Optional(Literals(['es', 'gb', 'fr', 'ge', 'it'] as const)),
      search_preferences: Type.Optional(
        Type.Array(searchEntry(StoredLocation, false, limits, 'One search (spec §2.4), as stored.'), {
          description: 'What the lead is looking for (spec §2.4), as sent at creation, without internal notes.',
        }),
      ),
      created_at: Timestamp,
      updated_at: Timestamp,
      listings: Type.Optional(
        Type.Array(Type.Integer(), {
          description:
            'Only in GET /leads/{id} (and PATCH /leads/{id}) of a `propietario` lead: the ids of the listings it owns, oldest first (CONTRACT §24). Never in GET /leads.',
        }),
      ),
      owner_stage: Type.Optional(
        Literals(OWNER_STAGES, {
          description:
            'Only in GET /leads/{id} (and PATCH /leads/{id}) of a `propietario` lead: where the agency stands with the owner (CONTRACT §24), beside its `status`. Never in GET /leads.',
        }),
      ),
    },
    { $id: 'Lead', description: 'Keys without a value (null, empty string, empty list) are omitted.' },
  );
export const LeadPage = Page(Type.Ref('Lead'), 'One page of the business’s leads, newest first, with the total.');

export const LeadMatches = Type.Object(
  {
    data: Type.Array(
      Type.Intersect([
        Type.Ref('Property'),
        Type.Object({
          sent_at: Nullable(Timestamp, {
            description:
              'When the property was last sent to the lead, in an alert or by an agent by hand, by e-mail or WhatsApp (RFC 3339; CONTRACT §21), or null when never.',
          }),
          dismissed: Type.Boolean({ description: 'Whether the lead said “No me interesa” to it: it is never sent to the lead again.' }),
        }),
      ]),
      { description: 'Public properties matching one of the lead’s searches, best first.' },
    ),
    near_misses: Type.Array(
      Type.Object({
        property: Type.Ref('Property'),
        missed: Type.Array(Type.String(), {
          description:
            'The criteria it failed, named as in `search_preferences` (`price_max`, `price_rent_max`, `bedrooms_min`, `subtypes`, `features`, …) or `operation`, `type`, `location`: one per search it nearly matched.',
        }),
      }),
      { description: 'Public properties that fail exactly one criterion of a search, best first.' },
    ),
  },
  responding('What the lead was matched to when matching last ran; properties no longer public are left out.'),
);

/** A stored record of the export, as it is kept: every column but the business's id. */
const Stored = (description: string) => Type.Array(Type.Object({}, { additionalProperties: true }), { description });

/** A portal e-mail of the export (services/leads/email-intake.ts `inboundEmailsOfLead`). */
const InboundEmail = Type.Object({
  id: Type.Integer(),
  message_key: Type.String({
    description: 'Its `Message-ID`, else `sha256:` and the hex digest of its bytes: a message is kept once per business.',
  }),
  received_at: Timestamp,
  state: Literals(
    ['pending', 'lead', 'interaction', 'reply', 'not_understood', 'discarded'] as const satisfies readonly InboundEmailState[],
    {
      description:
        'What became of it: `lead` made the lead, `interaction` was added to it, `reply` answered an e-mail sent to the lead and joined its conversation.',
    },
  ),
  parser: Nullable(Type.String(), {
    description: 'The reader that understood it: `idealista`, `fotocasa`, `habitaclia`, `pisos.com` or `generic`.',
  }),
  sender: Nullable(Type.String(), { description: "The original sender's address (the portal's, also when forwarded)." }),
  subject: Nullable(Type.String()),
  reason: Nullable(Type.String(), { description: 'Why it was not understood or was discarded, in words.' }),
  raw: Nullable(Type.String(), { description: 'The message as received (RFC 5322), when its bytes are UTF-8; else null.' }),
  raw_base64: Nullable(Type.String({ contentEncoding: 'base64' }), {
    description: 'The bytes of a message that is not UTF-8, in base64; else null.',
  }),
});

/** A visit sheet of the export (services/viewings/visit-sheet.ts `visitSheetsOfLead`). */
const VisitSheet = Type.Object({
  viewing_id: Type.Integer(),
  visitor_name: Type.String(),
  document_type: Literals(['dni', 'nie', 'other'] as const, {
    description: '`dni`, `nie`, or `other`: a passport or another identity document.',
  }),
  document_number: Type.String({ description: 'Upper case, without spaces, dots or dashes.' }),
  signature_png_base64: Type.String({
    contentEncoding: 'base64',
    contentMediaType: 'image/png',
    description: 'The signature drawn on the screen, a PNG.',
  }),
  clause: Type.String({ description: 'The agency’s clause as it read when the sheet was signed.' }),
  signed_at: Timestamp,
  user_id: Type.Integer({ description: 'The console user who collected the sheet.' }),
});

export const LeadExport = Type.Object(
  {
    exported_at: Type.String({ format: 'date-time', description: 'When the export was made (RFC 3339).' }),
    lead: Type.Ref('Lead'),
    consents: Stored('The `consent` objects given with the lead, oldest first, with when and the form’s page.'),
    interactions: Stored(
      'Requests about the lead that came again and did not change it (CONTRACT §22), oldest first: the endpoint, its `source`, what it said, when.',
    ),
    searches: Stored('The lead’s searches (`search_preferences`).'),
    notes: Stored('The lead’s notes, oldest first.'),
    matches: Stored('Properties matched (`failed` null) or nearly matched (`failed`: the criteria missed) when matching last ran.'),
    messages: Stored('Every WhatsApp message to and from the lead, oldest first.'),
    conversation: Nullable(Type.Object({}, { additionalProperties: true, description: 'The WhatsApp conversation’s state.' })),
    follow_ups: Stored('The lead’s follow-ups.'),
    history: Stored('Changes made to the lead in the console, oldest first.'),
    events: Stored('The events about the lead still in the event log (30 days), oldest first, as GET /events shows them.'),
    emails: Type.Array(InboundEmail, {
      description:
        'The portal e-mails that made the lead or were added to it (CONTRACT §19), oldest first, each as received; a message is kept 30 days.',
    }),
    viewings: Stored('The lead’s viewings (CONTRACT §20), by start time, as GET /viewings shows them, with their `sequence`.'),
    visit_sheets: Type.Array(VisitSheet, {
      description: 'The visit sheets signed at the lead’s viewings (CONTRACT §20), by the viewing’s start time.',
    }),
    mandates: Stored(
      'The mandates drafted for the lead as a listing’s owner (CONTRACT §24), by listing then version, each as kept: the terms (`fee_percent_bp` in hundredths of a percent, money in whole euros, booleans 0/1), its status, and once signed the signer’s name and document, how it was signed, the clause and the signature as `signature_png_base64`.',
    ),
    owner_reports: Stored(
      'The reports sent to the lead as an owner (CONTRACT §24), oldest first, each with its period, its language and its figures as composed and sent.',
    ),
  },
  responding('Everything held on the lead (CONTRACT §18: access, GDPR Art. 15 and 20).'),
);

export const LeadErased = Type.Object(
  {
    status: Type.Literal('ok'),
    lead_id: Type.Integer(),
    erased_at: Type.String({
      format: 'date-time',
      description: 'When the lead was erased (RFC 3339); for a lead erased before, the first erasure’s time.',
    }),
  },
  responding('The lead is erased (CONTRACT §18; GDPR Art. 17), or was already.'),
);

export const Me = Type.Object(
  {
    status: Type.Literal('ok'),
    user: Type.Object({
      company_name: Nullable(Type.String()),
      scopes: Type.Array(Literals(SCOPES)),
      auth_method: Type.Literal('api_key'),
    }),
  },
  responding('The business and the scopes of the key.'),
);

export const PlainError = Type.Object(
  { detail: Type.String({ description: 'English sentence for logs, not for end users.' }) },
  { $id: 'PlainError' },
);

export const ValidationError = Type.Object(
  {
    detail: Type.Union([
      Type.Array(
        Type.Object({
          type: Type.String(),
          loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
          msg: Type.String(),
          input: Type.Unknown(),
          ctx: Type.Optional(Type.Object({}, { additionalProperties: true })),
        }),
      ),
      Type.String(),
    ]),
  },
  { $id: 'ValidationError', description: 'Pydantic v2-shaped: every fault of the request at once.' },
);

/**
 * Every 401 body a client can meet (CONTRACT §3), as the named examples of the 401 response
 * (`x-examples` becomes the media type's `examples`, which the interactive docs offer in a
 * list): each fixed detail of the error catalogue (src/errors.ts), keyed by its code, and the
 * missing-scope one for each scope, which it names. Read from the catalogue, so a new 401
 * there is documented here without a second copy.
 */
const UNAUTHORIZED_EXAMPLES = Object.fromEntries(
  (Object.keys(ERRORS) as ErrorCode[])
    // The API key's errors: the webhook's 401 (a bad signature) is not an API operation's.
    .filter((code) => ERRORS[code].status === 401 && code.startsWith('KEY_'))
    .flatMap((code): Array<[string, { summary?: string; value: { detail: string } }]> => {
      const detail = ERRORS[code].detail;
      if (typeof detail === 'string') return [[code, { value: { detail } }]];
      // A message with parameters needs its own examples; failing here says so at start-up.
      if (code !== 'KEY_LACKS_SCOPE') throw new Error(`No OpenAPI example for the 401 ${code}`);
      return SCOPES.map((scope) => [
        `${code}_${scope.replace(':', '_').toUpperCase()}`,
        { summary: `The operation requires ${scope}`, value: { detail: new InmoError(code, { scope }).detail } },
      ]);
    }),
);

/**
 * The 401 body, written out in each operation rather than a `$ref`'d component: @fastify/swagger
 * drops every sibling of a `$ref`, and so the examples with it.
 */
const Unauthorized = Type.Object(
  { detail: Type.String({ description: 'One of a few fixed sentences that say what to do (see the examples).' }) },
  {
    'x-response-description': 'Key missing, malformed, unknown, revoked, expired, or lacking the scope (which the message names).',
    'x-examples': UNAUTHORIZED_EXAMPLES,
  },
);

/** Schemas referenced by `$ref` from the routes, for `limits`; registered with `app.addSchema`. */
export const sharedSchemas = (limits: Limits) => [Property, leadSchema(limits), Viewing, PlainError, ValidationError, ...locationSchemas];

/** The error responses every API route shares (spec §7). */
export const commonErrors = {
  400: Type.Ref('PlainError', {
    description: 'The request could not be read (a URL that cannot be decoded, a body shorter than its Content-Length).',
  }),
  401: Unauthorized,
  403: Type.Ref('PlainError', {
    description:
      'A publishable key (`AC_PUB_`) used without an `Origin` on its list, or a secret key used from another site’s web page (`Sec-Fetch-Site: cross-site` or `same-site`).',
  }),
  422: Type.Ref('ValidationError', { description: 'A path parameter, query parameter or body field is invalid.' }),
  429: Type.Ref('PlainError', {
    description:
      'Too many requests for this key (or, on the POST endpoints, from this client IP) in the last minute; `Retry-After` gives the seconds to wait. Every response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
  }),
  500: Type.Ref('PlainError', { description: 'Unexpected server error.' }),
};
