/**
 * Reading viewings (CONTRACT §20): the API's list (`GET /v1/ext/viewings`), one viewing, and a
 * lead's viewings for its export (CONTRACT §18). Times are shown in the business's time zone
 * (domain/viewings/presenter.ts).
 */
import type { Executor } from '../../db/database.ts';
import { isRowId } from '../../db/database.ts';
import * as repo from '../../db/repositories/viewings.ts';
import { presentViewing, type Viewing } from '../../domain/viewings/presenter.ts';
import { InmoError } from '../../errors.ts';
import { businessClock } from './clock.ts';

export type { ViewingFilters } from '../../db/repositories/viewings.ts';

/**
 * A page of the business's viewings matching `filters` (by lead, listing, agent, and a start in
 * `[from, to)`, canonical UTC), by start time then id: `{data, total, limit, offset}`, `total`
 * counting every match (CONTRACT §1).
 */
export async function listViewings(db: Executor, businessId: number, filters: repo.ViewingFilters, limit: number, offset: number) {
  const [clock, rows, total] = [
    await businessClock(db, businessId),
    await repo.listViewings(db, businessId, filters, limit, offset),
    await repo.countViewings(db, businessId, filters),
  ];
  return { data: rows.map((row) => presentViewing(row, clock.zone)), total, limit, offset };
}

/** The business's viewing `id`. @throws InmoError VIEWING_NOT_FOUND. */
export async function getViewing(db: Executor, businessId: number, id: number): Promise<Viewing> {
  const row = isRowId(id) ? await repo.findViewing(db, businessId, id) : undefined;
  if (!row) throw new InmoError('VIEWING_NOT_FOUND', { id });
  return presentViewing(row, (await businessClock(db, businessId)).zone);
}

/** Every viewing of lead `leadId`, by start time, with its iCalendar `sequence` (the lead's export, CONTRACT §18). */
export async function viewingsOfLead(db: Executor, businessId: number, leadId: number): Promise<Array<Viewing & { sequence: number }>> {
  const { zone } = await businessClock(db, businessId);
  const rows = await repo.listViewings(db, businessId, { leadId }, 1_000_000, 0);
  return rows.map((row) => ({ ...presentViewing(row, zone), sequence: row.sequence }));
}
