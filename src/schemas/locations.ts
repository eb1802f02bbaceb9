/**
 * Places and map areas as the OpenAPI document describes them (spec §2.4, §4.4; CONTRACT §4):
 * a place by name, or a map area, `oneOf` keyed by `type` (circle, point, marker, rectangle,
 * polygon), any of which may carry a GeoJSON `geometry` (RFC 7946, `[lng, lat]`).
 *
 * Validation stays lenient, as the contract says: an entry of `locations` that is not a
 * recognised area is accepted and ignored (domain/geo.ts `parseMapArea`), so these schemas
 * document and type what is understood, and {@link Lenient} keeps the validator checking
 * only that an entry is an object.
 */
import { Kind, Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** The kind validation/pydantic.ts checks as "any JSON object" (`dict_type` otherwise). */
export const LENIENT_OBJECT_KIND = 'LenientObject';

/**
 * `schema` in the OpenAPI document and in TypeScript; "an object" to the validator, which
 * keeps it as sent.
 */
export const Lenient = <T extends TSchema>(schema: T): TUnsafe<Static<T>> =>
  Type.Unsafe<Static<T>>({ ...schema, [Kind]: LENIENT_OBJECT_KIND });

const Latitude = Type.Number({ minimum: -90, maximum: 90, description: 'Decimal degrees.' });
const Longitude = Type.Number({ minimum: -180, maximum: 180, description: 'Decimal degrees; may also be spelled `lon`.' });
const Radius = Type.Number({ exclusiveMinimum: 0, description: 'Metres, great-circle distance.' });
const LatLng = Type.Object({ lat: Latitude, lng: Longitude });

const GeoJsonGeometry = Type.Union(
  [
    Type.Object({
      type: Type.Literal('Point'),
      coordinates: Type.Array(Type.Number(), { minItems: 2, maxItems: 3, description: '`[lng, lat]`.' }),
    }),
    Type.Object({
      type: Type.Literal('Polygon'),
      coordinates: Type.Array(Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 3 })), {
        description: 'Rings of `[lng, lat]` positions; the first (outer) ring is used.',
      }),
    }),
  ],
  { description: 'GeoJSON (RFC 7946) `Point` (with the area’s `radius`, default 500 m) or `Polygon`; used instead of the other fields.' },
);

const withGeometry = { geometry: Type.Optional(GeoJsonGeometry) };

export const CircleArea = Type.Object(
  { type: Type.Literal('circle'), center: LatLng, radius: Radius, ...withGeometry },
  { $id: 'CircleArea', description: 'A circle: centre and radius in metres.' },
);
export const PointArea = Type.Object(
  { type: Type.Literal('point'), lat: Latitude, lng: Longitude, radius: Type.Optional({ ...Radius, default: 500 }), ...withGeometry },
  { $id: 'PointArea', description: 'A point and a radius (500 m by default).' },
);
export const MarkerArea = Type.Object(
  { type: Type.Literal('marker'), lat: Latitude, lng: Longitude, radius: Type.Optional({ ...Radius, default: 500 }), ...withGeometry },
  { $id: 'MarkerArea', description: 'A marker and a radius (500 m by default).' },
);
export const RectangleArea = Type.Object(
  {
    type: Type.Literal('rectangle'),
    bounds: Type.Object({ south: Latitude, west: Longitude, north: Latitude, east: Longitude }, { description: 'Inclusive bounds.' }),
    ...withGeometry,
  },
  { $id: 'RectangleArea', description: 'A rectangle; `west` > `east` crosses the antimeridian.' },
);
export const PolygonArea = Type.Object(
  {
    type: Type.Literal('polygon'),
    coordinates: Type.Array(LatLng, { minItems: 3, description: 'The ring, not closed; either winding.' }),
    ...withGeometry,
  },
  { $id: 'PolygonArea', description: 'A closed polygon: a position on an edge or a vertex is inside.' },
);

const AREAS = { circle: CircleArea, point: PointArea, marker: MarkerArea, rectangle: RectangleArea, polygon: PolygonArea } as const;

/** A map area, `oneOf` keyed by `type`. */
export const MapArea = Type.Unsafe<Static<(typeof AREAS)[keyof typeof AREAS]>>({
  $id: 'MapArea',
  description: 'A map area of CONTRACT §4; a listing is in it when its published position is.',
  oneOf: Object.values(AREAS).map((area) => Type.Ref(area.$id!)),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(Object.entries(AREAS).map(([name, area]) => [name, `#/components/schemas/${area.$id}`])),
  },
});

export const PlaceByName = Type.Object(
  { name: Type.String({ description: 'City, province or district; case- and accent-insensitive.' }) },
  { $id: 'PlaceByName', description: 'A place by name.' },
);

/** A place or a map area (what `locations` entries and ingest `search.location` hold). */
export const Location = Type.Union([Type.Ref('PlaceByName'), Type.Ref('MapArea')], {
  description: 'A place by name or a map area. Other objects are accepted, kept and ignored by matching.',
}) as unknown as TUnsafe<Static<typeof PlaceByName> | Static<typeof MapArea>>;

/** An entry of `locations` as stored and returned: as sent, so possibly neither a place nor an area. */
export const StoredLocation = Type.Union([
  Type.Ref('PlaceByName'),
  Type.Ref('MapArea'),
  Type.Object({}, { additionalProperties: true, description: 'Kept as sent: neither a place nor a recognised area.' }),
]) as unknown as TUnsafe<Static<typeof PlaceByName> | Static<typeof MapArea> | Record<string, unknown>>;

/** Schemas the others reference by `$id`, registered with the app (and so OpenAPI components). */
export const locationSchemas = [PlaceByName, MapArea, ...Object.values(AREAS)];
