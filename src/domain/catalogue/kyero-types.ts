/**
 * Portal property types (Kyero v3 `<type>`, free text in Spanish or English, CONTRACT §15) →
 * the catalogue's nine types and a subtype. Case, accents and extra words are ignored: the
 * text's words are searched for the longest known phrase (`Villa independiente` is a villa,
 * `Casa rural con terreno` a country house, not land). A text with none of them cannot be placed.
 */
import type { PropertyType } from './terms.ts';

/** Phrase (lower case, without accents) → `[type, subtype or null]`. */
const PHRASES: Record<string, [PropertyType, string | null]> = {
  // Flats
  apartment: ['apartamento', 'apartamento'],
  apartamento: ['apartamento', 'apartamento'],
  flat: ['apartamento', 'piso'],
  piso: ['apartamento', 'piso'],
  penthouse: ['apartamento', 'atico'],
  atico: ['apartamento', 'atico'],
  duplex: ['apartamento', 'duplex'],
  triplex: ['apartamento', 'triplex'],
  studio: ['apartamento', 'estudio'],
  estudio: ['apartamento', 'estudio'],
  loft: ['apartamento', 'loft'],
  'ground floor': ['apartamento', 'planta-baja'],
  'planta baja': ['apartamento', 'planta-baja'],
  // Houses
  villa: ['casa', 'villa'],
  chalet: ['casa', 'chalet'],
  house: ['casa', null],
  casa: ['casa', null],
  detached: ['casa', 'chalet'],
  townhouse: ['casa', 'adosado'],
  'town house': ['casa', 'adosado'],
  adosado: ['casa', 'adosado'],
  adosada: ['casa', 'adosado'],
  'semi detached': ['casa', 'pareado'],
  pareado: ['casa', 'pareado'],
  pareada: ['casa', 'pareado'],
  'country house': ['casa', 'casa-rural'],
  'casa rural': ['casa', 'casa-rural'],
  'casa de campo': ['casa', 'casa-rural'],
  cortijo: ['casa', 'finca'],
  finca: ['casa', 'finca'],
  masia: ['casa', 'masia'],
  bungalow: ['casa', 'bungalow'],
  'village house': ['casa', 'casa-de-pueblo'],
  'casa de pueblo': ['casa', 'casa-de-pueblo'],
  // Business premises
  commercial: ['local', 'local-comercial'],
  comercial: ['local', 'local-comercial'],
  local: ['local', 'local-comercial'],
  shop: ['local', 'local-comercial'],
  restaurant: ['local', 'local-comercial'],
  bar: ['local', 'local-comercial'],
  office: ['oficina', null],
  oficina: ['oficina', null],
  despacho: ['oficina', 'despacho'],
  warehouse: ['nave', 'nave-industrial'],
  nave: ['nave', 'nave-industrial'],
  industrial: ['nave', 'nave-industrial'],
  storage: ['almacenaje', 'trastero'],
  'storage room': ['almacenaje', 'trastero'],
  trastero: ['almacenaje', 'trastero'],
  garage: ['aparcamiento', 'plaza-coche'],
  garaje: ['aparcamiento', 'plaza-coche'],
  parking: ['aparcamiento', 'plaza-coche'],
  'plaza de garaje': ['aparcamiento', 'plaza-coche'],
  building: ['edificio', null],
  edificio: ['edificio', null],
  'commercial ground floor': ['local', 'bajo-comercial'],
  'bajo comercial': ['local', 'bajo-comercial'],
  'logistics warehouse': ['nave', 'nave-logistica'],
  'nave logistica': ['nave', 'nave-logistica'],
  'open plan office': ['oficina', 'oficina-diafana'],
  'oficina diafana': ['oficina', 'oficina-diafana'],
  'motorbike parking': ['aparcamiento', 'plaza-moto'],
  'plaza de moto': ['aparcamiento', 'plaza-moto'],
  'residential building': ['edificio', 'edificio-residencial'],
  'edificio residencial': ['edificio', 'edificio-residencial'],
  'office building': ['edificio', 'edificio-oficinas'],
  'edificio de oficinas': ['edificio', 'edificio-oficinas'],
  // Land
  plot: ['terreno', null],
  land: ['terreno', null],
  parcela: ['terreno', null],
  solar: ['terreno', 'urbano'],
  terreno: ['terreno', null],
  'rustic land': ['terreno', 'rustico'],
  rustico: ['terreno', 'rustico'],
  'terreno rustico': ['terreno', 'rustico'],
  urbanizable: ['terreno', 'urbanizable'],
};

/** Known phrases, longest (most words) first. */
const BY_LENGTH = Object.keys(PHRASES).sort((a, b) => b.split(' ').length - a.split(' ').length || b.length - a.length);

/** Lower case, accents and punctuation removed, words separated by one space. */
function words(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * The catalogue type and subtype of a portal type text, or null when no known phrase is in it.
 * Of several phrases, the one with most words wins; of equals, the first in the text.
 */
export function placePortalType(text: string): { type: PropertyType; subtype: string | null } | null {
  // A feed names a few dozen types thousands of times over.
  const known = placed.get(text);
  if (known !== undefined) return known;
  const result = placeOnce(text);
  if (placed.size >= PLACED_KEPT) placed.clear();
  placed.set(text, result);
  return result;
}

/** Type texts placed so far, at most {@link PLACED_KEPT}. */
const placed = new Map<string, { type: PropertyType; subtype: string | null } | null>();
const PLACED_KEPT = 10_000;

function placeOnce(text: string): { type: PropertyType; subtype: string | null } | null {
  const padded = ` ${words(text)} `;
  let best: { at: number; length: number; phrase: string } | null = null;
  for (const phrase of BY_LENGTH) {
    const at = padded.indexOf(` ${phrase} `);
    if (at < 0) continue;
    const length = phrase.split(' ').length;
    if (best === null || length > best.length || (length === best.length && at < best.at)) best = { at, length, phrase };
  }
  if (best === null) return null;
  const [type, subtype] = PHRASES[best.phrase];
  return { type, subtype };
}
