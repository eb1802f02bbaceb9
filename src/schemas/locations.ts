/**
 * Places and map areas as the OpenAPI document describes them (spec §2.4, §4.3, §4.4;
 * CONTRACT §4): a place by name, or a map area, `oneOf` keyed by `type` (circle, point,
 * marker, rectangle, polygon). Each area is given by its own fields (`lng` or `lon`) or,
 * instead, by a GeoJSON `geometry` (RFC 7946, `[lng, lat]`): every accepted spelling is an
 * alternative of its own, so a generated client gets a union it can build, not `unknown`.
 *
 * Validation stays lenient, as the contract says: an entry of `locations` that is not a
 * recognised area is accepted and ignored (domain/catalogue/geo.ts `parseMapArea`), so these schemas
 * document and type what is understood, and {@link Lenient} keeps the validator checking
 * only that an entry is an object.
 */
import { Kind, Type, type Static, type TLiteral, type TObject, type TProperties, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { DEFAULT_POINT_RADIUS_M, EARTH_RADIUS_M } from '../domain/catalogue/geo.ts';

/** The kind validation/validator.ts checks as "any JSON object" (`dict_type` otherwise). */
export const LENIENT_OBJECT_KIND = 'LenientObject';

/**
 * `schema` in the OpenAPI document and in TypeScript; "an object" to the validator, which
 * keeps it as sent.
 */
export const Lenient = <T extends TSchema>(schema: T): TUnsafe<Static<T>> =>
  Type.Unsafe<Static<T>>({ ...schema, [Kind]: LENIENT_OBJECT_KIND });

/** A `$ref` to a registered schema (an OpenAPI component), typed as that schema in TypeScript. */
const ref = <T extends TSchema>(schema: T): TUnsafe<Static<T>> => Type.Unsafe<Static<T>>(Type.Ref(schema.$id!));

/** `oneOf` the registered `schemas`, told apart by the value of their `type` (its key in `byType`). */
const taggedUnion = <T extends Record<string, TSchema>>(byType: T, options: { $id: string; description: string }) =>
  Type.Unsafe<Static<T[keyof T]>>({
    ...options,
    oneOf: Object.values(byType).map((schema) => Type.Ref(schema.$id!)),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(Object.entries(byType).map(([type, schema]) => [type, `#/components/schemas/${schema.$id}`])),
    },
  });

// Bounds as domain/catalogue/geo.ts reads them: an area outside them is not recognised (and so ignored).
const Latitude = Type.Number({ minimum: -90, maximum: 90, description: 'Decimal degrees.' });
const Longitude = Type.Number({ minimum: -180, maximum: 180, description: 'Decimal degrees.' });
const Radius = Type.Number({
  exclusiveMinimum: 0,
  maximum: Math.PI * EARTH_RADIUS_M,
  description: 'Metres, great-circle distance (at most half the Earth’s circumference).',
});
const DefaultRadius = Type.Optional({ ...Radius, default: DEFAULT_POINT_RADIUS_M });

/** A position: `lat` with `lng` or, the other spelling, `lon`. */
export const LatLng = Type.Union([Type.Object({ lat: Latitude, lng: Longitude }), Type.Object({ lat: Latitude, lon: Longitude })], {
  $id: 'LatLng',
  description: 'A position in decimal degrees; `lng` may be spelled `lon`.',
});

const GeoJsonPosition = Type.Array(Type.Number(), { minItems: 2, maxItems: 3, description: '`[lng, lat]`, decimal degrees.' });
export const GeoJsonPoint = Type.Object(
  { type: Type.Literal('Point'), coordinates: GeoJsonPosition },
  { $id: 'GeoJsonPoint', description: 'A GeoJSON `Point`: the circle of the area’s `radius` (500 m by default) around it.' },
);
export const GeoJsonPolygon = Type.Object(
  {
    type: Type.Literal('Polygon'),
    coordinates: Type.Array(Type.Array(GeoJsonPosition, { minItems: 3 }), {
      minItems: 1,
      description: 'Linear rings; the first (outer) one is the area, closed or not.',
    }),
  },
  { $id: 'GeoJsonPolygon', description: 'A GeoJSON `Polygon`: its outer ring, a position on an edge or a vertex being inside.' },
);
/** A GeoJSON (RFC 7946) geometry an area may carry instead of its own fields. */
export const GeoJsonGeometry = taggedUnion(
  { Point: GeoJsonPoint, Polygon: GeoJsonPolygon },
  { $id: 'GeoJsonGeometry', description: 'GeoJSON (RFC 7946) geometry, `[lng, lat]` order: `Point` or `Polygon`.' },
);

/** One way of writing an area of `type` K: its tag and the fields P. */
type AreaForm<K extends string, P extends TProperties> = Static<TObject<{ type: TLiteral<K> } & P>>;

/**
 * A map area of `type`: one alternative per spelling of its own fields, and one where a
 * GeoJSON `geometry` stands instead of them (domain/catalogue/geo.ts reads it first, whatever else is set).
 */
function area<K extends string, F extends TProperties[]>(type: K, forms: readonly [...F], options: { $id: string; description: string }) {
  const Tag = Type.Literal(type);
  const alternatives: TSchema[] = [
    ...forms.map((fields) => Type.Object({ type: Tag, ...fields })),
    Type.Object(
      { type: Tag, geometry: ref(GeoJsonGeometry), radius: DefaultRadius },
      { description: `A ${type} given by a GeoJSON geometry instead; \`radius\` applies to a \`Point\`.` },
    ),
  ];
  return Type.Unsafe<
    { [N in keyof F]: AreaForm<K, F[N]> }[number] | { type: K; geometry: Static<typeof GeoJsonGeometry>; radius?: number }
  >(Type.Union(alternatives, options));
}

export const CircleArea = area('circle', [{ center: ref(LatLng), radius: Radius }], {
  $id: 'CircleArea',
  description: 'A circle: centre and radius in metres.',
});
export const PointArea = area(
  'point',
  [
    { lat: Latitude, lng: Longitude, radius: DefaultRadius },
    { lat: Latitude, lon: Longitude, radius: DefaultRadius },
  ],
  { $id: 'PointArea', description: 'A point and a radius (500 m by default); `lng` may be spelled `lon`.' },
);
export const MarkerArea = area(
  'marker',
  [
    { lat: Latitude, lng: Longitude, radius: DefaultRadius },
    { lat: Latitude, lon: Longitude, radius: DefaultRadius },
  ],
  { $id: 'MarkerArea', description: 'A marker and a radius (500 m by default); `lng` may be spelled `lon`.' },
);
export const RectangleArea = area(
  'rectangle',
  [
    {
      bounds: Type.Object(
        { south: Latitude, west: Longitude, north: Latitude, east: Longitude },
        { description: 'Inclusive bounds; `south` ≤ `north`.' },
      ),
    },
  ],
  { $id: 'RectangleArea', description: 'A rectangle; `west` > `east` crosses the antimeridian.' },
);
export const PolygonArea = area(
  'polygon',
  [{ coordinates: Type.Array(ref(LatLng), { minItems: 3, description: 'The ring, closed or not; either winding.' }) }],
  { $id: 'PolygonArea', description: 'A closed polygon: a position on an edge or a vertex is inside.' },
);

const AREAS = { circle: CircleArea, point: PointArea, marker: MarkerArea, rectangle: RectangleArea, polygon: PolygonArea };

/** A map area of CONTRACT §4, `oneOf` keyed by `type`. */
export const MapArea = taggedUnion(AREAS, {
  $id: 'MapArea',
  description:
    'A map area of CONTRACT §4; a listing is in it when its published position is. An object of any other `type` that carries a GeoJSON `geometry` is read as that geometry too.',
});

export const PlaceByName = Type.Object(
  { name: Type.String({ description: 'City, province or district; case- and accent-insensitive.' }) },
  { $id: 'PlaceByName', description: 'A place by name.' },
);

/** A place or a map area (what `locations` entries and ingest `search.location` hold). */
export const Location = Type.Union([ref(PlaceByName), ref(MapArea)], {
  description: 'A place by name or a map area. Other objects are accepted, kept and ignored by matching.',
});

/** An entry of `locations` as stored and returned: as sent, so possibly neither a place nor an area. */
export const StoredLocation = Type.Union([
  ref(PlaceByName),
  ref(MapArea),
  Type.Object({}, { additionalProperties: true, description: 'Kept as sent: neither a place nor a recognised area.' }),
]);

/** Schemas the others reference by `$id`, registered with the app (and so OpenAPI components). */
export const locationSchemas = [
  PlaceByName,
  MapArea,
  ...Object.values(AREAS),
  LatLng,
  GeoJsonGeometry,
  GeoJsonPoint,
  GeoJsonPolygon,
] as TSchema[];
