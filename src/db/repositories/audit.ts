/** The audit trail (migration 0019, CONTRACT §18). SQL only. */
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../database.ts';
import type { AuditLogTable } from '../types.ts';

/** An entry as listed: `{id, actor_type, actor_id, action, target_type, target_id, created_at}`. */
export type AuditEntry = Omit<Selectable<AuditLogTable>, 'business_id'>;

/** Inserts entries, 500 rows per statement. */
export async function insertAuditEntries(db: Executor, rows: ReadonlyArray<Insertable<AuditLogTable>>): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insertInto('audit_log')
      .values(rows.slice(start, start + 500) as Array<Insertable<AuditLogTable>>)
      .execute();
  }
}

/** Up to `limit` entries of the business before entry `before` (from the newest when null), newest first. */
export async function listAuditEntries(db: Executor, businessId: number, limit: number, before: number | null): Promise<AuditEntry[]> {
  let query = db
    .selectFrom('audit_log')
    .select(['id', 'actor_type', 'actor_id', 'action', 'target_type', 'target_id', 'created_at'])
    .where('business_id', '=', businessId);
  if (before !== null) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}
