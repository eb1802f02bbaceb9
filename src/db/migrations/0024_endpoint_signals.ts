/**
 * 0024: a business's webhook endpoints count as its configuration (issue 42).
 *
 * `businesses.config_version` (migration 0005: keys' rights, the channel) is bumped, by triggers
 * in the changing transaction, also whenever one of the business's webhook endpoints is added,
 * deleted, or changes the events it takes, its enabled state or its business. A new lead written
 * in one statement on PostgreSQL (services/leads/new-lead-at-once.ts) keeps the channel and the
 * endpoints it read with the version they were read at, and its statement writes only while the
 * version is still that one. The endpoint's URL and secrets are not watched: they decide nothing
 * of which events it gets.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql, PostgresAdapter } from 'kysely';

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Columns of `webhook_endpoints` whose change alters which events of which business an endpoint gets. */
const WHAT_IT_GETS = sql.raw('events, disabled_at, business_id');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    // inmo_bump_config_version() is migration 0005's.
    await sql`create trigger webhook_endpoints_changed after insert or update of ${WHAT_IT_GETS} or delete on webhook_endpoints
      for each row execute function inmo_bump_config_version()`.execute(db);
    return;
  }
  const bump = (row: 'old' | 'new') =>
    sql`update businesses set config_version = config_version + 1 where id = ${sql.raw(row)}.business_id;`;
  await sql`create trigger webhook_endpoints_inserted after insert on webhook_endpoints begin ${bump('new')} end`.execute(db);
  await sql`create trigger webhook_endpoints_updated after update of ${WHAT_IT_GETS} on webhook_endpoints
    begin ${bump('old')} ${bump('new')} end`.execute(db);
  await sql`create trigger webhook_endpoints_deleted after delete on webhook_endpoints begin ${bump('old')} end`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger webhook_endpoints_changed on webhook_endpoints`.execute(db);
    return;
  }
  for (const trigger of ['webhook_endpoints_deleted', 'webhook_endpoints_updated', 'webhook_endpoints_inserted']) {
    await sql`drop trigger ${sql.ref(trigger)}`.execute(db);
  }
}
