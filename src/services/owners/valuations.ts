/**
 * Valuations from comparables (CONTRACT §24, issue 58 item 5): a home valued against the agency's
 * catalogue (its own listings and those its feeds pull in), by the rules of
 * domain/owners/valuation.ts, and the A4 report an owner is given (valuation-pdf.ts).
 *
 * The candidates are read by type, size band, price and position (the postal code, or the box
 * around the 1 km circle), at most {@link CANDIDATES_READ}; the domain keeps those within the circle
 * and the 30 nearest.
 */
import type { Db } from '../../db/database.ts';
import { isRowId } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { findListing } from '../../db/repositories/properties.ts';
import { listValuationCandidates, type CandidateRow } from '../../db/repositories/valuations.ts';
import { searchBox, sizeBounds, valuate, type Candidate, type Valuation, type ValuedHome } from '../../domain/owners/valuation.ts';
import { InmoError } from '../../errors.ts';
import type { KeyRecord } from '../../db/repositories/idempotency.ts';
import { createInquiryLead, type Inquiry, type InquiryOrigin, type LeadWrites } from '../leads/intake.ts';
import { businessContact, businessName } from '../catalogue/listing-page.ts';
import { businessClock } from '../viewings/clock.ts';
import type { ConsoleLanguage } from './mandate-pdf.ts';

/** The most candidate listings read for one valuation. */
export const CANDIDATES_READ = 5000;

/** A candidate row as the domain reads it. */
const candidateOf = (row: CandidateRow): Candidate => {
  const closed = row.status === 'vendida' || row.status === 'alquilada';
  return {
    id: row.id,
    external_ref: row.external_ref,
    title: row.title,
    type: row.type ?? '',
    size: Number(row.size_total ?? 0),
    bedrooms: row.bedrooms,
    price: Number((closed ? row.closed_price : row.price) ?? 0),
    closed,
    postal_code: row.postal_code,
    lat: row.lat === null ? null : Number(row.lat),
    lon: row.lon === null ? null : Number(row.lon),
  };
};

/** Values `home` against the business's catalogue (see the module's comment). */
export async function valuateHome(db: Db, businessId: number, home: ValuedHome): Promise<Valuation> {
  const { min, max } = sizeBounds(home.size);
  const rows = await listValuationCandidates(db, businessId, {
    type: home.type,
    operation: home.operation,
    minSize: min,
    maxSize: max,
    postalCode: home.postal_code?.trim() || null,
    box: home.lat !== null && home.lon !== null ? searchBox({ lat: home.lat, lon: home.lon }) : null,
    limit: CANDIDATES_READ,
  });
  return valuate(home, rows.map(candidateOf));
}

/**
 * The home of the business's listing `propertyId` as a valuation reads it: its type, operation (a
 * letting when it is let and not sold), size, bedrooms and position.
 * @throws InmoError PROPERTY_NOT_FOUND; VALUATION_HOME_UNKNOWN (422: no type or size to compare by).
 */
export async function homeOfListing(db: Db, businessId: number, propertyId: number) {
  const listing = isRowId(propertyId) ? await findListing(db, businessId, propertyId) : undefined;
  if (!listing) throw new InmoError('PROPERTY_NOT_FOUND');
  if (!listing.type || !(Number(listing.size_total) > 0)) throw new InmoError('VALUATION_HOME_UNKNOWN');
  const ops = (listing.operation ?? '').split(',');
  const home: ValuedHome = {
    id: listing.id,
    type: listing.type,
    operation: ops.includes('alquiler') && !ops.includes('venta') ? 'alquiler' : 'venta',
    size: Number(listing.size_total),
    bedrooms: listing.bedrooms,
    postal_code: listing.postal_code,
    lat: listing.lat === null ? null : Number(listing.lat),
    lon: listing.lon === null ? null : Number(listing.lon),
  };
  return { listing, home };
}

/**
 * The valuation report of owner `leadId`'s listing `propertyId` (valuation-pdf.ts), in `lang`.
 * @returns the PDF's bytes and a file name (`valoracion-<ref>.pdf`, `valuation-<ref>.pdf`).
 * @throws InmoError LEAD_NOT_FOUND, PROPERTY_NOT_FOUND (not a listing of that owner), VALUATION_HOME_UNKNOWN.
 */
export async function valuationPdf(
  db: Db,
  businessId: number,
  leadId: number,
  propertyId: number,
  lang: ConsoleLanguage,
  now: number = Date.now(),
): Promise<{ pdf: Buffer; fileName: string }> {
  const lead = isRowId(leadId) ? await findLead(db, leadId, businessId) : undefined;
  if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  const { listing, home } = await homeOfListing(db, businessId, propertyId);
  if (listing.owner_lead_id !== lead.id) throw new InmoError('PROPERTY_NOT_FOUND');
  const valuation = await valuateHome(db, businessId, home);
  const { zone } = await businessClock(db, businessId);
  const { renderValuation } = await import('./valuation-pdf.ts');
  const pdf = await renderValuation({
    lang,
    zone,
    at: now,
    agency: await businessContact(db, businessId, await businessName(db, businessId)),
    ownerName: lead.name,
    listing: {
      reference: listing.external_ref,
      title: listing.title,
      address: [listing.address, [listing.postal_code, listing.city].filter(Boolean).join(' ')]
        .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
        .join(', '),
    },
    home,
    valuation,
  });
  const ref = listing.external_ref.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60);
  return { pdf, fileName: `${lang === 'es' ? 'valoracion' : 'valuation'}-${ref}.pdf` };
}

/** What an owner asks a price for through `POST /valuations` (CONTRACT §24): the home, and who asks. */
export interface ValuationAsked {
  address: string;
  postal_code: string;
  property_type: string;
  operation: 'venta' | 'alquiler';
  /** m². */
  size_total: number;
  bedrooms: number | null;
  /** The person, as an inquiry names one (phone already E.164). */
  person: Pick<Inquiry, 'name' | 'phone_number_1' | 'personal_email' | 'preferred_language' | 'source' | 'sourcePage' | 'consent'>;
}

const euros = (n: number) => `${Math.round(n).toLocaleString('es-ES')} €`;

/** The lead's notes of a valuation asked: the home's facts and the range given, in the agency's words (Spanish). */
export function valuationNotes(asked: ValuationAsked, valuation: Valuation): string {
  const rooms = asked.bedrooms === null ? '' : `, ${asked.bedrooms} ${asked.bedrooms === 1 ? 'dormitorio' : 'dormitorios'}`;
  const what = asked.operation === 'venta' ? 'venta' : 'alquiler';
  const monthly = asked.operation === 'alquiler' ? ' al mes' : '';
  const range = valuation.range
    ? `Rango sugerido: ${euros(valuation.range.low)} – ${euros(valuation.range.high)}${monthly} (mediana ${euros(valuation.range.median)}, ${valuation.comparables.length} inmuebles parecidos).`
    : `Sin rango: solo ${valuation.comparables.length} inmuebles parecidos en la zona.`;
  const home = `${asked.property_type[0].toUpperCase()}${asked.property_type.slice(1)} de ${asked.size_total.toLocaleString('es-ES')} m²${rooms}, ${asked.address.trim()}, ${asked.postal_code}.`;
  return `Valoración pedida (${what}): ${home}\n${range}`;
}

/**
 * `POST /valuations` (CONTRACT §24, the website kit's `<inmo-valuation>`): values the home from the
 * business's catalogue by its postal code (the address is not placed on a map: comparables share
 * the postal code), and stores the owner as a `propietario` lead with the home's facts and the
 * range in its notes, and its consent, as an inquiry does (a known person's request kept as an
 * interaction, CONTRACT §22).
 * @returns the valuation, and the lead with how it was stored (`created`, `completed`, `known`).
 * @throws as services/leads/intake.ts `createInquiryLead`.
 */
export async function askValuation(
  db: Db,
  writes: LeadWrites,
  businessId: number,
  asked: ValuationAsked,
  origin: InquiryOrigin,
  /** The Idempotency-Key's record of the response, made from the valuation (http/idempotency.ts); null without a key. */
  record: (valuation: Valuation) => KeyRecord | null,
) {
  const valuation = await valuateHome(db, businessId, {
    id: null,
    type: asked.property_type,
    operation: asked.operation,
    size: asked.size_total,
    bedrooms: asked.bedrooms,
    postal_code: asked.postal_code,
    lat: null,
    lon: null,
  });
  const stored = await createInquiryLead(
    writes,
    businessId,
    {
      ...asked.person,
      type: 'propietario',
      phone_number_2: null,
      landline_phone: null,
      source: asked.person.source ?? 'web',
      notes: valuationNotes(asked, valuation),
    },
    origin,
    record(valuation),
  );
  return { valuation, ...stored };
}
