/**
 * The notes generated for a new lead (spec §4.2 rule 2, §4.3): a short Spanish summary the
 * agency reads in its workspace.
 */

type Entry = Record<string, unknown>;

const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v) => typeof v === 'string' && v.trim() !== '') : []);

/** A location entry in words: its name, or the kind of map area. */
export function describeLocation(location: unknown): string | null {
  if (typeof location !== 'object' || location === null) return null;
  const l = location as Record<string, unknown>;
  if (typeof l.name === 'string' && l.name.trim() !== '') return l.name.trim();
  const geometryType = typeof l.geometry === 'object' && l.geometry !== null ? (l.geometry as Record<string, unknown>).type : undefined;
  const kind = typeof l.type === 'string' ? l.type : typeof geometryType === 'string' ? geometryType : null;
  if (kind === null) return null;
  const radius = typeof l.radius === 'number' ? ` de ${Math.round(l.radius)} m` : '';
  return `zona en el mapa (${kind.toLowerCase()}${radius})`;
}

function line(label: string, value: string | null | undefined): string | null {
  return value !== null && value !== undefined && value.trim() !== '' ? `${label}: ${value.trim()}` : null;
}

/**
 * Summary of an inquiry: operations, property types and locations of the first search entry,
 * origin page, and the message (`search_preferences[0].internal_notes` if set, else `notes`),
 * under `heading` (by default, that it came by the web).
 */
export function inquiryNotes(input: { searches: Entry[]; sourcePage?: string | null; notes?: string | null; heading?: string }): string {
  const first = input.searches[0] ?? {};
  const internal = typeof first.internal_notes === 'string' && first.internal_notes.trim() !== '' ? first.internal_notes : null;
  const locations = Array.isArray(first.locations) ? first.locations.map(describeLocation).filter((l): l is string => l !== null) : [];
  return [
    input.heading ?? 'Consulta recibida por la web.',
    line('Operaciones', list(first.operations).join(', ')),
    line('Tipos de inmueble', list(first.property_types).join(', ')),
    line('Ubicaciones', locations.join('; ')),
    line('Página de origen', input.sourcePage),
    line('Mensaje', internal ?? input.notes),
  ]
    .filter((l): l is string => l !== null)
    .join('\n');
}

/** What {@link ingestNotes} reads of an ingest submission (spec §4.3): its page and the search's texts. */
export interface IngestSubmission {
  sourcePage?: string | null;
  search: {
    /** Monthly €: `900` or `700-900`. */
    budget?: string | null;
    entryDate?: string | null;
    exitDate?: string | null;
    people?: string | null;
    area?: string | null;
    habs?: string | null;
    pets?: string | null;
    workSituation?: string | null;
    location?: unknown;
    freeText?: string | null;
  };
}

/** Summary of a rental landing-form lead: every search field not stored elsewhere, and the page. */
export function ingestNotes(body: IngestSubmission, habsInNotes: boolean, budgetMax: number | null): string {
  const s = body.search;
  return [
    'Solicitud de alquiler recibida por formulario.',
    line('Presupuesto', budgetMax === null ? null : `${s.budget} €/mes`),
    line('Fecha de entrada', s.entryDate),
    line('Fecha de salida', s.exitDate),
    line('Personas', s.people),
    line('Zona preferida', s.area),
    habsInNotes ? line('Habitaciones', s.habs) : null,
    line('Mascotas', s.pets),
    line('Situación laboral', s.workSituation),
    line('Ubicación', describeLocation(s.location)),
    line('Mensaje', s.freeText),
    line('Página de origen', body.sourcePage),
  ]
    .filter((l): l is string => l !== null)
    .join('\n');
}
