/**
 * 0022: a pull held until an owner confirms it (issue 41, CONTRACT §15).
 *
 * A pull whose document would withdraw more than `INMO_PULL_WITHDRAW_MAX_SHARE` of its source's
 * listings imports its new and changed listings but withdraws nothing: the source keeps the run
 * whose refs (import_refs) the withdrawal would be made from, when the pull was held, how many
 * listings it would withdraw and of how many. Confirming withdraws them from those refs;
 * discarding, or the source's next pull that comes to a document, forgets the hold and its refs.
 *
 * - feed_sources.held_run, held_at, held_withdrawals, held_of: all null unless a pull is held.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

const COLUMNS = [
  ['held_run', sql`text`],
  ['held_at', sql`text`],
  ['held_withdrawals', sql`integer`],
  ['held_of', sql`integer`],
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of COLUMNS) await sql`alter table feed_sources add column ${sql.ref(name)} ${type}`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...COLUMNS].reverse()) await sql`alter table feed_sources drop column ${sql.ref(name)}`.execute(db);
}
