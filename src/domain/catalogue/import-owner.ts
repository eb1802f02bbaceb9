/**
 * The owner named by an import line (CONTRACT §24; issue 58 item 1): `"owner": {"lead_id": 12}`
 * or `"owner": {"phone": "+34 600 000 000"}` (one of the two), `null` to unlink the listing's
 * owner, absent to leave it as it is. Pure: checked with the rest of the line, on the reader
 * thread too (services/catalogue/import/line.ts); who the owner is, is settled where the line is
 * written (services/catalogue/import/owners.ts).
 */
import { normalizePhone } from '../leads/phone.ts';
import { importFault } from './import-faults.ts';
import { ImportRuleError, type ImportOwner } from './property-record.ts';

/**
 * The owner of a line as its `owner` field says it (already of the import format's shape).
 * @returns the owner; null: unlink; undefined: the field is absent.
 * @throws ImportRuleError `owner` naming both or neither of `lead_id` and `phone` (rule `owner_one_of`),
 *   or `owner.phone` that is not a valid phone number (rule `owner_phone`).
 */
export function importOwnerOf(field: { lead_id?: number; phone?: string } | null | undefined): ImportOwner | null | undefined {
  if (field === undefined || field === null) return field;
  const byId = field.lead_id !== undefined;
  const byPhone = field.phone !== undefined;
  if (byId === byPhone) throw new ImportRuleError('owner: give lead_id or phone, one of the two', importFault('owner', 'owner_one_of'));
  if (byId) return { leadId: field.lead_id! };
  const phone = normalizePhone(field.phone!);
  if (phone === null) throw new ImportRuleError('owner.phone: not a valid phone number', importFault('owner.phone', 'owner_phone'));
  return { phone };
}
