/**
 * Erasure of a lead (issue 31, CONTRACT §18; GDPR Art. 17): `DELETE /leads/{lead_id}`,
 * `inmo leads erase`, the console's button, and retention (INMO_LEAD_RETENTION_DAYS).
 *
 * One transaction removes every trace of the person: the lead row and, with it, its notes,
 * searches, matches, jobs (so no queued send or follow-up runs), follow-ups, messages and
 * conversation, viewings and the visit sheets signed at them (CONTRACT §20); its console history and consents; its events, and so their pending webhook
 * deliveries; its Idempotency-Key records; and the stored WhatsApp webhook bodies that name
 * one of its phones. What stays has nothing of the person: a `lead_erasures` row (the id,
 * when, why), the audit entry, and the event `lead.erased` (`{"id"}`) that tells subscribers
 * to erase their copy.
 *
 * On SQLite the deleted content is overwritten in the file, and the write-ahead log that still
 * held it is truncated (db/database.ts `withSecureDelete`).
 *
 * Races. The lead's row is locked first (`FOR UPDATE` on PostgreSQL; SQLite has one writer),
 * so a change to the lead either commits before (and its rows are then deleted) or finds no
 * lead after. A WhatsApp send is claimed by moving its message to `sending` in a transaction
 * (services/messaging/delivery.ts): a claim after the erasure finds no message and sends nothing, and an
 * erasure after a claim waits for it, the send having begun before the erasure.
 */
import type { Db } from '../../db/database.ts';
import * as repo from '../../db/repositories/erasure.ts';
import { transact } from '../../db/transaction.ts';
import { isRowId, withSecureDelete } from '../../db/database.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';

/** A day, ms. */
const DAY_MS = 24 * 60 * 60 * 1000;
import { InmoError } from '../../errors.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { recordEvent } from '../integrations/events.ts';

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
  options: { businessId?: number; actor: AuditActor; cause?: 'request' | 'retention'; now?: string },
): Promise<Erased> {
  return withSecureDelete(db, async () => (await erase(db, leadId, options))!);
}

/**
 * {@link eraseLead}, and with `quietBefore` (retention's cutoff) only if the lead, once locked,
 * is still quiet since then: a lead that came back to life meanwhile is kept (null).
 */
async function erase(
  db: Db,
  leadId: number,
  options: { businessId?: number; actor: AuditActor; cause?: 'request' | 'retention'; now?: string; quietBefore?: string },
): Promise<Erased | null> {
  if (!isRowId(leadId)) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  return transact(db, async (trx) => {
    const lead = await repo.lockLead(trx, options.businessId, leadId);
    if (!lead) {
      const before = await repo.findErasure(trx, options.businessId, leadId);
      if (!before) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
      return { status: 'ok' as const, lead_id: leadId, erased_at: before.erased_at };
    }
    if (options.quietBefore !== undefined && (await repo.listQuietLeads(trx, options.quietBefore, 1, leadId)).length === 0) return null;
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

/** Leads erased per transaction by retention: short ones, so intake is never held up long. */
const RETENTION_BATCH = 200;

/**
 * Retention (CONTRACT §18, `INMO_LEAD_RETENTION_DAYS`): erases every lead that is `new`,
 * `closed` or `inactive` and has had no change and no message for `days` days before `now`,
 * each as {@link eraseLead} does, with cause `retention`, audited as done by the system.
 * @returns how many leads were erased.
 */
export async function eraseQuietLeads(db: Db, days: number, now: Date): Promise<number> {
  const cutoff = toRfc3339(new Date(now.getTime() - days * DAY_MS));
  const at = toRfc3339(now);
  return withSecureDelete(db, async () => {
    let erased = 0;
    for (;;) {
      const ids = await repo.listQuietLeads(db, cutoff, RETENTION_BATCH);
      for (const id of ids) {
        const done = await erase(db, id, { actor: { type: 'system', id: 'retention' }, cause: 'retention', now: at, quietBefore: cutoff });
        if (done) erased++;
      }
      if (ids.length < RETENTION_BATCH) return erased;
    }
  });
}
