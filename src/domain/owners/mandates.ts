/**
 * The rules of a mandate ("hoja de encargo", CONTRACT §24, issue 58 item 3), pure: its terms as an
 * agent types them, their defaults from the listing, the warnings before its end, and the
 * agency's clause when it has none.
 *
 * A mandate is the owner's instruction to the agency to sell or let one listing:
 * - `kind` `exclusive` (only this agency) or `open`; `operation` `venta` or `alquiler`;
 * - `asking_price` in whole euros (for `alquiler`, the monthly rent);
 * - `starts_on` and `ends_on`, dates `YYYY-MM-DD` in the business's time zone, the end on or after
 *   the start and at most {@link MAX_MONTHS} months later (12, renewable, is the custom);
 * - the fee, `{percent}` of the price (0.01 to 20, two decimals) or `{amount}` in euros, with an
 *   optional `minimum_fee` in euros, and `vat` `included` or `excluded` (IVA);
 * - `keys` (the agency holds a set), `sign_board` (a board on the façade),
 *   `keep_listed_after_expiry` (the owner lets the listing stay published after the end).
 *
 * Money is whole euros; the percentage is kept in hundredths (`300` is 3 %).
 */
import { DateTime } from 'luxon';

export const MANDATE_KINDS = ['exclusive', 'open'] as const;
export type MandateKind = (typeof MANDATE_KINDS)[number];

export const MANDATE_OPERATIONS = ['venta', 'alquiler'] as const;
export type MandateOperation = (typeof MANDATE_OPERATIONS)[number];

/** `draft` (being agreed), `signed` (in force), `ended` (replaced by a new version, or ended early), `expired` (its end passed). */
export const MANDATE_STATUSES = ['draft', 'signed', 'ended', 'expired'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

export const MANDATE_VAT = ['included', 'excluded'] as const;
export type MandateVat = (typeof MANDATE_VAT)[number];

/** The longest mandate, months. */
export const MAX_MONTHS = 60;

/** The highest asking price and fee amount, euros. */
export const MAX_EUROS = 1_000_000_000;

/** Days before a mandate's end when Hoy warns of it, the first warning first. */
export const MANDATE_WARNINGS = [30, 15, 7] as const;

/** The terms of a mandate. */
export interface MandateTerms {
  kind: MandateKind;
  operation: MandateOperation;
  /** Euros. */
  asking_price: number;
  /** `YYYY-MM-DD`, the business's. */
  starts_on: string;
  ends_on: string;
  /** A percentage of the price (hundredths: `300` is 3 %), or an amount in euros. */
  fee: { percent_bp: number } | { amount: number };
  /** Euros, or null for none. */
  minimum_fee: number | null;
  vat: MandateVat;
  keys: boolean;
  sign_board: boolean;
  keep_listed_after_expiry: boolean;
}

/** The fields of the terms' form. */
export const TERM_FIELDS = [
  'kind',
  'operation',
  'asking_price',
  'starts_on',
  'ends_on',
  'fee_type',
  'fee_value',
  'minimum_fee',
  'vat',
  'keys',
  'sign_board',
  'keep_listed_after_expiry',
] as const;
export type TermField = (typeof TERM_FIELDS)[number];

/** Why a field was refused: `required`, `choice` (not one of its values), `number` (not a whole number in range), `percent` (not 0.01–20 with two decimals), `date`, `order` (ends before it starts), `too_long` (over {@link MAX_MONTHS} months). */
export type TermFault = 'required' | 'choice' | 'number' | 'percent' | 'date' | 'order' | 'too_long';

/** The terms' form as typed: each field's text (a checkbox is `"1"` when ticked). */
export type TermsForm = Partial<Record<TermField, string>>;

const isDate = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && DateTime.fromISO(text).isValid;

/** A whole number of euros typed (`250.000`, `250000`, `250 000 €`), or null. */
export function readEuros(text: string): number | null {
  const digits = text.replace(/[\s.€]/g, '');
  if (!/^\d{1,10}$/.test(digits)) return null;
  const euros = Number(digits);
  return euros >= 0 && euros <= MAX_EUROS ? euros : null;
}

/** A percentage typed (`3`, `3,5`, `2.75 %`) in hundredths, 1 to 2000 (0.01 % to 20 %), or null. */
export function readPercent(text: string): number | null {
  const match = /^(\d{1,2})(?:[.,](\d{1,2}))?$/.exec(text.replace(/[\s%]/g, ''));
  if (!match) return null;
  const bp = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return bp >= 1 && bp <= 2000 ? bp : null;
}

/**
 * Reads the terms' form.
 * @returns `{terms}`, or `{faults}`: each refused field with why (every fault at once).
 */
export function readMandateTerms(form: TermsForm): { terms: MandateTerms } | { faults: Partial<Record<TermField, TermFault>> } {
  const faults: Partial<Record<TermField, TermFault>> = {};
  const text = (field: TermField) => (form[field] ?? '').trim();
  const choice = <T extends string>(field: TermField, values: readonly T[]): T | null => {
    const value = text(field);
    if (value === '') faults[field] = 'required';
    else if (!(values as readonly string[]).includes(value)) faults[field] = 'choice';
    return (values as readonly string[]).includes(value) ? (value as T) : null;
  };
  const kind = choice('kind', MANDATE_KINDS);
  const operation = choice('operation', MANDATE_OPERATIONS);
  const vat = choice('vat', MANDATE_VAT);
  const feeType = choice('fee_type', ['percent', 'amount'] as const);
  const price = readEuros(text('asking_price'));
  if (text('asking_price') === '') faults.asking_price = 'required';
  else if (price === null || price === 0) faults.asking_price = 'number';
  let fee: MandateTerms['fee'] | null = null;
  if (text('fee_value') === '') faults.fee_value = 'required';
  else if (feeType === 'percent') {
    const bp = readPercent(text('fee_value'));
    if (bp === null) faults.fee_value = 'percent';
    else fee = { percent_bp: bp };
  } else if (feeType === 'amount') {
    const amount = readEuros(text('fee_value'));
    if (amount === null || amount === 0) faults.fee_value = 'number';
    else fee = { amount };
  }
  let minimum: number | null = null;
  if (text('minimum_fee') !== '') {
    minimum = readEuros(text('minimum_fee'));
    if (minimum === null) faults.minimum_fee = 'number';
  }
  const [startsOn, endsOn] = [text('starts_on'), text('ends_on')];
  if (!isDate(startsOn)) faults.starts_on = startsOn === '' ? 'required' : 'date';
  if (!isDate(endsOn)) faults.ends_on = endsOn === '' ? 'required' : 'date';
  else if (isDate(startsOn)) {
    if (endsOn < startsOn) faults.ends_on = 'order';
    else if (endsOn > DateTime.fromISO(startsOn).plus({ months: MAX_MONTHS }).toISODate()!) faults.ends_on = 'too_long';
  }
  if (Object.keys(faults).length > 0 || !kind || !operation || !vat || price === null || fee === null) return { faults };
  const ticked = (field: TermField) => text(field) === '1' || text(field) === 'on';
  return {
    terms: {
      kind,
      operation,
      asking_price: price,
      starts_on: startsOn,
      ends_on: endsOn,
      fee,
      minimum_fee: minimum,
      vat,
      keys: ticked('keys'),
      sign_board: ticked('sign_board'),
      keep_listed_after_expiry: ticked('keep_listed_after_expiry'),
    },
  };
}

/** The terms as their form shows them (percentages with a comma, as Spanish agents write them). */
export function termsForm(terms: MandateTerms): TermsForm {
  const percent = 'percent_bp' in terms.fee ? terms.fee.percent_bp : null;
  return {
    kind: terms.kind,
    operation: terms.operation,
    asking_price: String(terms.asking_price),
    starts_on: terms.starts_on,
    ends_on: terms.ends_on,
    fee_type: percent === null ? 'amount' : 'percent',
    fee_value: percent === null ? String('amount' in terms.fee ? terms.fee.amount : '') : formatPercent(percent),
    minimum_fee: terms.minimum_fee === null ? '' : String(terms.minimum_fee),
    vat: terms.vat,
    keys: terms.keys ? '1' : '',
    sign_board: terms.sign_board ? '1' : '',
    keep_listed_after_expiry: terms.keep_listed_after_expiry ? '1' : '',
  };
}

/** Hundredths of a percent as written: `300` → `3`, `275` → `2,75`. */
export function formatPercent(bp: number): string {
  return (bp / 100).toString().replace('.', ',');
}

/**
 * The terms a new mandate starts from: exclusive, 12 months from `today` (to the day before), the
 * listing's operation (`alquiler` when it is let and not sold) and price, a fee of 3 % with a
 * minimum of 3,000 € for a sale, one month's rent for a letting, VAT on top.
 * @param listing its `operation` (`venta`, `alquiler`, `venta,alquiler`, …), `price` and `price_rent` (a month) in euros (null: unknown).
 */
export function defaultTerms(
  listing: { operation: string | null; price: number | null; price_rent?: number | null },
  today: string,
): MandateTerms {
  const letting = (listing.operation ?? '').split(',').includes('alquiler') && !(listing.operation ?? '').split(',').includes('venta');
  const price = Math.max(0, Math.round((letting ? listing.price_rent : listing.price) ?? 0));
  return {
    kind: 'exclusive',
    operation: letting ? 'alquiler' : 'venta',
    asking_price: price,
    starts_on: today,
    ends_on: DateTime.fromISO(today).plus({ months: 12 }).minus({ days: 1 }).toISODate()!,
    fee: letting && price > 0 ? { amount: price } : { percent_bp: 300 },
    minimum_fee: letting ? null : 3000,
    vat: 'excluded',
    keys: false,
    sign_board: false,
    keep_listed_after_expiry: false,
  };
}

/** Whole days from `today` to `endsOn` (both `YYYY-MM-DD`): 0 on the last day, negative after it. */
export function daysLeft(endsOn: string, today: string): number {
  return Math.round(DateTime.fromISO(endsOn, { zone: 'utc' }).diff(DateTime.fromISO(today, { zone: 'utc' }), 'days').days);
}

/**
 * The warning Hoy gives of a signed mandate on `today`: the smallest of {@link MANDATE_WARNINGS}
 * its days left are within (30, then 15, then 7), or null when it ends later, or has ended.
 */
export function endingWarning(endsOn: string, today: string): (typeof MANDATE_WARNINGS)[number] | null {
  const left = daysLeft(endsOn, today);
  if (left < 0) return null;
  return [...MANDATE_WARNINGS].reverse().find((days) => left <= days) ?? null;
}

/** The longest clause, characters. */
export const MANDATE_CLAUSE_MAX = 6000;

/**
 * The clause printed on a mandate when the agency has set none: the owner's instruction, the
 * exclusivity when exclusive, the fee due on a sale or letting to a buyer or tenant the agency
 * introduced within 12 months after the end ("cláusula de arrastre"), the energy certificate,
 * and how the owner's data are kept (GDPR Art. 13).
 */
export const DEFAULT_MANDATE_CLAUSE =
  'La propiedad encarga a la agencia la promoción y la búsqueda de comprador o arrendatario para el inmueble indicado, en las condiciones que ' +
  'constan, y declara que tiene facultad para disponer de él y que está libre de cargas salvo las manifestadas. Si el encargo es en exclusiva, ' +
  'la propiedad se compromete a no encargarlo a otra agencia durante su vigencia. Los honorarios se devengan al firmarse el contrato de ' +
  'compraventa o arrendamiento, también si se firma en los doce meses siguientes al fin del encargo con una persona presentada por la ' +
  'agencia durante su vigencia. La propiedad aportará el certificado de eficiencia energética y la documentación del inmueble. ' +
  'Sus datos (nombre, documento y firma) se tratan por la agencia para gestionar el encargo, se conservan mientras puedan derivarse ' +
  'responsabilidades y no se ceden a terceros salvo obligación legal. Puede ejercer sus derechos de acceso, rectificación, supresión y los ' +
  'demás que le reconoce la normativa dirigiéndose a la agencia.';
