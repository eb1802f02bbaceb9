/**
 * The catalogue's closed vocabularies (spec §2.2, §2.4, §3.2; shared/data/README.md) and
 * the Spanish display labels of subtype keys (CONTRACT §5).
 */

export const OPERATIONS = ['venta', 'alquiler', 'traspaso'] as const;
export type Operation = (typeof OPERATIONS)[number];

export const PROPERTY_TYPES = [
  'apartamento',
  'casa',
  'local',
  'nave',
  'almacenaje',
  'oficina',
  'terreno',
  'aparcamiento',
  'edificio',
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const PROPERTY_STATUSES = ['disponible', 'reservada', 'vendida', 'alquilada', 'retirada'] as const;
export type PropertyStatus = (typeof PROPERTY_STATUSES)[number];
/** The only statuses the API ever shows (spec §3.2). */
export const LISTED_STATUSES = ['disponible', 'reservada'] as const;

export const RENTAL_TYPES = ['anual', 'temporal', 'vacacional'] as const;
export type RentalType = (typeof RENTAL_TYPES)[number];
export const ADDRESS_PRIVACY = ['public', 'approximate', 'hidden'] as const;
export type AddressPrivacy = (typeof ADDRESS_PRIVACY)[number];

/**
 * The features the catalogue names (the keys of shared/data's listings), with their Spanish
 * labels and whether portals count them as extras: what the console's listing form offers.
 * An import may carry others; they are kept as they came.
 */
export const FEATURES: Record<string, { label: string; isextra: boolean }> = {
  exterior: { label: 'Exterior', isextra: false },
  ascensor: { label: 'Ascensor', isextra: false },
  armarios_empotrados: { label: 'Armarios empotrados', isextra: false },
  aire_acondicionado: { label: 'Aire acondicionado', isextra: false },
  terraza: { label: 'Terraza', isextra: false },
  patio: { label: 'Patio', isextra: false },
  trastero: { label: 'Trastero', isextra: true },
  garaje: { label: 'Plaza de garaje', isextra: true },
  jardin: { label: 'Jardín', isextra: true },
  piscina: { label: 'Piscina', isextra: true },
};

/** Label published for a missing or unknown subtype. */
export const UNKNOWN_SUBTYPE_LABEL = 'Sin Especificar';

/** Subtype key → Spanish display label, with the property type each key belongs to. */
export const SUBTYPES: Record<string, { label: string; type: PropertyType }> = {
  piso: { label: 'Piso', type: 'apartamento' },
  atico: { label: 'Ático', type: 'apartamento' },
  duplex: { label: 'Dúplex', type: 'apartamento' },
  estudio: { label: 'Estudio', type: 'apartamento' },
  loft: { label: 'Loft', type: 'apartamento' },
  apartamento: { label: 'Apartamento', type: 'apartamento' },
  'planta-baja': { label: 'Planta baja', type: 'apartamento' },
  triplex: { label: 'Tríplex', type: 'apartamento' },
  chalet: { label: 'Chalet', type: 'casa' },
  adosado: { label: 'Adosado', type: 'casa' },
  pareado: { label: 'Pareado', type: 'casa' },
  'casa-rural': { label: 'Casa rural', type: 'casa' },
  villa: { label: 'Villa', type: 'casa' },
  'casa-de-pueblo': { label: 'Casa de pueblo', type: 'casa' },
  masia: { label: 'Masía', type: 'casa' },
  finca: { label: 'Finca', type: 'casa' },
  bungalow: { label: 'Bungalow', type: 'casa' },
  'local-comercial': { label: 'Local comercial', type: 'local' },
  'bajo-comercial': { label: 'Bajo comercial', type: 'local' },
  'nave-industrial': { label: 'Nave industrial', type: 'nave' },
  'nave-logistica': { label: 'Nave logística', type: 'nave' },
  trastero: { label: 'Trastero', type: 'almacenaje' },
  despacho: { label: 'Despacho', type: 'oficina' },
  'oficina-diafana': { label: 'Oficina diáfana', type: 'oficina' },
  urbano: { label: 'Urbano', type: 'terreno' },
  urbanizable: { label: 'Urbanizable', type: 'terreno' },
  rustico: { label: 'Rústico', type: 'terreno' },
  'plaza-coche': { label: 'Plaza de coche', type: 'aparcamiento' },
  'plaza-moto': { label: 'Plaza de moto', type: 'aparcamiento' },
  'edificio-residencial': { label: 'Edificio residencial', type: 'edificio' },
  'edificio-oficinas': { label: 'Edificio de oficinas', type: 'edificio' },
};

/** Display label of a stored subtype key (CONTRACT §5). */
export function subtypeLabel(key: string | null | undefined): string {
  return (key && SUBTYPES[key]?.label) || UNKNOWN_SUBTYPE_LABEL;
}
