/** Mandates as tests draft them (CONTRACT §24). */

/** The terms' form of a 12-month exclusive sale at 250,000 € and 3 % (services/owners/mandates.ts `saveMandateDraft`), changed by `changes`. */
export const mandateTerms = (changes: Record<string, string> = {}): Record<string, string> => ({
  kind: 'exclusive',
  operation: 'venta',
  asking_price: '250000',
  starts_on: '2026-03-01',
  ends_on: '2027-02-28',
  fee_type: 'percent',
  fee_value: '3',
  minimum_fee: '3000',
  vat: 'excluded',
  keys: '1',
  ...changes,
});
