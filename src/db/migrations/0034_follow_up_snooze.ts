/**
 * 0034: a due follow-up put off from the console's "Hoy" (issue 47, CONTRACT §23).
 *
 * - follow_ups.snoozed_until: RFC 3339 instant before which a due follow-up is left off "Hoy"
 *   (it stays due, and done still applies); null when it was never put off.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table follow_ups add column snoozed_until text`.execute(db);
}
