/**
 * A valuation report as an A4 PDF ("informe de valoración", CONTRACT §24,
 * `GET /console/leads/{id}/valuation.pdf?property=…`), laid out as the agency's other sheets
 * (services/viewings/signed-sheet-pdf.ts), in the console's language (es or en):
 *
 * - the agency and its contact, the owner it is for, the day (the business's);
 * - the home: reference, title, address, type, size, bedrooms;
 * - the suggested range (the comparables' interquartile range of adjusted price per m², times the
 *   size) and its median, or that there were too few comparables;
 * - each comparable: reference, size, price, price per m², distance, the size adjustment and the
 *   adjusted price per m² (a sold or let one marked);
 * - how the figures were made, in a sentence.
 */
import type { Valuation, ValuedHome } from '../../domain/owners/valuation.ts';
import { MIN_COMPARABLES, RADIUS_M, SIZE_SPREAD } from '../../domain/owners/valuation.ts';
import { startSignedSheet } from '../viewings/signed-sheet-pdf.ts';
import type { ConsoleLanguage } from './mandate-pdf.ts';

/** What a report is made of. */
export interface ValuationContent {
  lang: ConsoleLanguage;
  zone: string;
  /** The report's instant, epoch ms. */
  at: number;
  agency: { name: string; email: string | null };
  ownerName: string | null;
  listing: { reference: string; title: string | null; address: string };
  home: ValuedHome;
  valuation: Valuation;
}

const WORDS = {
  es: {
    title: 'Informe de valoración',
    for: 'Para',
    date: 'Fecha',
    home: 'La vivienda',
    reference: 'Referencia',
    address: 'Dirección',
    size: 'Superficie',
    bedrooms: 'Dormitorios',
    operation: { venta: 'Venta', alquiler: 'Alquiler (renta mensual)' },
    range: 'Valor estimado',
    rangeValue: 'Entre {low} y {high} (mediana {median})',
    perM2: 'Por m²',
    tooFew: 'Hay menos de {n} inmuebles comparables cerca: no se da un rango. Hable con su agente.',
    comparables: 'Inmuebles comparables',
    header: ['Ref.', 'm²', 'Precio', '€/m²', 'Distancia', 'Ajuste', '€/m² ajust.'],
    sameArea: 'mismo C.P.',
    closed: ' (vendido)',
    method:
      'Comparables: inmuebles del mismo tipo y operación, con una superficie ±{spread} % de la suya, en el mismo código postal o a menos de {radius} m. Cada precio por m² se ajusta por tamaño (las viviendas mayores valen menos por m²). El rango es el intervalo intercuartílico de los precios ajustados por m², multiplicado por la superficie.',
    locale: 'es-ES',
    none: 'Sin dirección registrada',
  },
  en: {
    title: 'Valuation report',
    for: 'For',
    date: 'Date',
    home: 'The home',
    reference: 'Reference',
    address: 'Address',
    size: 'Size',
    bedrooms: 'Bedrooms',
    operation: { venta: 'Sale', alquiler: 'Letting (monthly rent)' },
    range: 'Estimated value',
    rangeValue: 'From {low} to {high} (median {median})',
    perM2: 'Per m²',
    tooFew: 'There are fewer than {n} comparable listings nearby: no range is given. Talk to your agent.',
    comparables: 'Comparable listings',
    header: ['Ref.', 'm²', 'Price', '€/m²', 'Distance', 'Adjustment', 'Adj. €/m²'],
    sameArea: 'same postcode',
    closed: ' (sold)',
    method:
      'Comparables: listings of the same type and operation, sized within ±{spread} % of the home, in the same postcode or within {radius} m. Each price per m² is adjusted for size (larger homes fetch less per m²). The range is the interquartile range of the adjusted prices per m², times the size.',
    locale: 'en-GB',
    none: 'No address recorded',
  },
} as const;

/** Draws the report (see the module's comment). @returns the PDF's bytes. */
export async function renderValuation(content: ValuationContent): Promise<Buffer> {
  const w = WORDS[content.lang];
  const euros = (value: number) =>
    new Intl.NumberFormat(w.locale, { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 }).format(value);
  const number = (value: number, digits = 0) => new Intl.NumberFormat(w.locale, { maximumFractionDigits: digits }).format(value);
  const page = startSignedSheet({ lang: content.lang, title: w.title, reference: content.listing.reference, agency: content.agency });
  if (content.ownerName) page.fact(w.for, content.ownerName);
  page.fact(w.date, new Intl.DateTimeFormat(w.locale, { dateStyle: 'long', timeZone: content.zone }).format(new Date(content.at)));

  const home = content.home;
  page.heading(w.home);
  page.fact(w.reference, content.listing.reference);
  if (content.listing.title) page.fact(w.home, content.listing.title);
  page.fact(w.address, content.listing.address || w.none);
  page.fact(w.size, `${number(home.size)} m² · ${w.operation[home.operation]}`);
  if (home.bedrooms !== null) page.fact(w.bedrooms, number(home.bedrooms));

  const { range, comparables } = content.valuation;
  page.heading(w.range);
  if (range) {
    page.fact(
      w.range,
      w.rangeValue.replace('{low}', euros(range.low)).replace('{high}', euros(range.high)).replace('{median}', euros(range.median)),
    );
    page.fact(w.perM2, `${euros(range.low_m2)} – ${euros(range.high_m2)}`);
  } else page.note(w.tooFew.replace('{n}', String(MIN_COMPARABLES)));

  if (comparables.length) {
    page.heading(w.comparables);
    page.table(
      w.header,
      comparables.map((c) => [
        `${c.external_ref}${c.closed ? w.closed : ''}`,
        number(c.size),
        euros(c.price),
        euros(c.price_m2),
        c.distance_m === null ? w.sameArea : `${number(c.distance_m)} m`,
        `${c.adjustment >= 0 ? '+' : ''}${number(c.adjustment * 100, 1)} %`,
        euros(c.adjusted_m2),
      ]),
      [0.24, 0.08, 0.15, 0.12, 0.14, 0.12, 0.15],
    );
  }
  page.note(w.method.replace('{spread}', String(SIZE_SPREAD * 100)).replace('{radius}', number(RADIUS_M)));
  return page.end();
}
