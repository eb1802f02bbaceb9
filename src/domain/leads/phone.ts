/**
 * Phone numbers → E.164 (spec §4.2, CONTRACT §6), with libphonenumber-js and its full
 * metadata: a number without a `+` is read as Spanish (region ES), `00` international
 * prefixes are understood, and a number must be valid for its region, not merely possible.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Region assumed for numbers written without an international prefix. */
export const DEFAULT_REGION = 'ES';

/** E.164 form of a written phone number, or null when it is not a valid number. */
export function normalizePhone(text: string): string | null {
  if (typeof text !== 'string' || text.length > 64) return null;
  const parsed = parsePhoneNumberFromString(text, DEFAULT_REGION);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/**
 * The primary phone of an ingest contact (spec §4.3): the first valid number of
 * `areaCode` + `phoneNumber`, `phoneE164`, `phone`, `phoneRaw`, in that order.
 */
export function ingestPrimaryPhone(contact: {
  phone: string;
  phoneRaw?: string | null;
  areaCode?: string | null;
  phoneNumber?: string | null;
  phoneE164?: string | null;
}): string | null {
  const candidates: Array<string | null | undefined> = [];
  if (contact.areaCode && contact.phoneNumber) {
    const prefix = contact.areaCode.trim().replace(/^(\+|00)/, '');
    candidates.push(`+${prefix}${contact.phoneNumber}`);
  }
  candidates.push(contact.phoneE164, contact.phone, contact.phoneRaw);
  for (const candidate of candidates) {
    const phone = candidate ? normalizePhone(candidate) : null;
    if (phone !== null) return phone;
  }
  return null;
}
