/** Mandates as tests draft them (CONTRACT §24). */
import { DateTime } from 'luxon';

/**
 * The terms' form of a 12-month exclusive sale at 250,000 € and 3 % from today (the clock's, fake or
 * not, in Madrid: so that a test signing it never finds its last day passed), changed by `changes`.
 */
export const mandateTerms = (changes: Record<string, string> = {}): Record<string, string> => {
  const today = DateTime.fromJSDate(new Date(), { zone: 'Europe/Madrid' }).startOf('day');
  return {
    kind: 'exclusive',
    operation: 'venta',
    asking_price: '250000',
    starts_on: today.toISODate()!,
    ends_on: today.plus({ years: 1 }).minus({ days: 1 }).toISODate()!,
    fee_type: 'percent',
    fee_value: '3',
    minimum_fee: '3000',
    vat: 'excluded',
    keys: '1',
    ...changes,
  };
};
