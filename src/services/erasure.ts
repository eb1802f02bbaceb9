/**
 * Erasure of a lead (issue 31, CONTRACT §18; GDPR Art. 17): `DELETE /leads/{lead_id}`,
 * `inmo leads erase`, the console's button, and retention (INMO_LEAD_RETENTION_DAYS).
 *
 * One transaction removes every trace of the person: the lead row and, with it, its notes,
 * searches, matches, jobs (so no queued send or follow-up runs), follow-ups, messages and
 * conversation; its console history and consents; its events, and so their pending webhook
 * deliveries; its Idempotency-Key records; and the stored WhatsApp webhook bodies that name
 * one of its phones. What stays has nothing of the person: a `lead_erasures` row (the id,
 * when, why), the audit entry, and the event `lead.erased` (`{"id"}`) that tells subscribers
 * to erase their copy.
 *
 * Races. The lead's row is locked first (`FOR UPDATE` on PostgreSQL; SQLite has one writer),
 * so a change to the lead either commits before (and its rows are then deleted) or finds no
 * lead after. A WhatsApp send is claimed by moving its message to `sending` in a transaction
 * (jobs/deliver.ts): a claim after the erasure finds no message and sends nothing, and an
 * erasure after a claim waits for it, the send having begun before the erasure.
 */
import type { Db } from '../db/database.ts';
import * as repo from '../db/repositories/erasure.ts';
import { transact } from '../db/transaction.ts';
import { isRowId } from '../db/database.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { InmoError } from '../errors.ts';
import { recordAudit, type Actor } from './audit.ts';
import { recordEvent } from './events.ts';

/** The answer of an erasure: `{status: "ok", lead_id, erased_at}` (CONTRACT §18). */
export interface Erased {
  status: 'ok';
  lead_id: number;
  /** When the lead was erased, RFC 3339: the first erasure's time when it was erased before. */
  erased_at: string;
}

/**
 * Erases lead `leadId` (see the module's comment). Erasing a lead erased before answers as the
 * first time did and changes nothing.
 * @param options.businessId the business it must belong to (the API's and console's); any when
 *   omitted (the CLI, retention).
 * @param options.actor who asked, for the audit trail.
 * @param options.cause `request` (by default) or `retention`.
 * @param options.now the erasure's instant (tests; retention's clock).
 * @throws InmoError LEAD_NOT_FOUND when there is no such lead, and never was one erased.
 */
export async function eraseLead(
  db: Db,
  leadId: number,
  options: { businessId?: number; actor: Actor; cause?: 'request' | 'retention'; now?: string },
): Promise<Erased> {
  if (!isRowId(leadId)) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  return transact(db, async (trx) => {
    const lead = await repo.lockLead(trx, options.businessId, leadId);
    if (!lead) {
      const before = await repo.findErasure(trx, options.businessId, leadId);
      if (!before) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
      return { status: 'ok' as const, lead_id: leadId, erased_at: before.erased_at };
    }
    const at = options.now ?? nowRfc3339();
    const phones = [lead.phone_number_1, lead.phone_number_2, lead.landline_phone, ...(await repo.listMessagePhones(trx, leadId))];
    const digits = [...new Set(phones.filter((p): p is string => p !== null && p !== '').map((p) => p.replace(/^\+/, '')))];
    await repo.deleteLeadData(trx, lead.business_id, leadId, digits);
    await repo.insertErasure(trx, { lead_id: leadId, business_id: lead.business_id, cause: options.cause ?? 'request', erased_at: at });
    await recordEvent(trx, lead.business_id, 'lead.erased', null, { id: leadId }, at);
    await recordAudit(trx, lead.business_id, options.actor, 'lead.erase', leadId, at);
    return { status: 'ok' as const, lead_id: leadId, erased_at: at };
  });
}
