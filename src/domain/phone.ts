/**
 * Phone numbers → E.164 (spec §4.2, CONTRACT §6), with libphonenumber-js and its full
 * metadata: a number without a `+` is read as Spanish (region ES), `00` international
 * prefixes are understood, and a number must be valid for its region, not merely possible.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Region assumed for numbers written without an international prefix. */
export const DEFAULT_REGION = 'ES';

/** The documented 422 detail for a phone that cannot be normalised (CONTRACT §2). */
export const INVALID_PHONE_DETAIL = 'Invalid phone number. Use international format, e.g. +34612345678';

/** E.164 form of a written phone number, or null when it is not a valid number. */
export function normalizePhone(text: string): string | null {
  if (typeof text !== 'string' || text.length > 64) return null;
  const parsed = parsePhoneNumberFromString(text, DEFAULT_REGION);
  return parsed && parsed.isValid() ? parsed.number : null;
}
