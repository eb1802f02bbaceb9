/**
 * 0005: change signals for the caches of the request path (issue 14).
 *
 * Each process caches API keys' verification, the catalogue version read with them and the
 * connected channels; another process changing them must be seen within 1 s. So:
 *
 * - `businesses.config_version` is bumped, by triggers in the changing transaction, whenever
 *   one of the business's keys is revoked, expires, changes scopes, secret or business, or is
 *   deleted, and whenever its channel is connected, changed or removed. Imports already bump
 *   `catalogue_version`. `sum(catalogue_version + config_version)` over the businesses
 *   therefore changes with everything a cache holds: it only ever grows.
 * - On PostgreSQL, a trigger on `businesses` sends `NOTIFY inmo_changes` (payload: the schema)
 *   in the same transaction, delivered at commit to every listening process.
 *
 * `last_used_at` is not watched: it changes on use, not on rights.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql, PostgresAdapter } from 'kysely';

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Columns of `api_keys` whose change alters what a key may do. */
const KEY_RIGHTS = sql.raw('revoked_at, expires_at, scopes, secret_hash, business_id');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table businesses add column config_version integer not null default 0`.execute(db);
  if (isPostgres(db)) {
    // `set search_path from current`: the function touches this schema's tables, whatever the
    // search path of the session that fires it.
    await sql`create function inmo_bump_config_version() returns trigger language plpgsql
      set search_path from current as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          update businesses set config_version = config_version + 1 where id = old.business_id;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          update businesses set config_version = config_version + 1 where id = new.business_id;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create function inmo_notify_changes() returns trigger language plpgsql
      set search_path from current as $$
      begin
        perform pg_notify('inmo_changes', current_schema());
        return null;
      end $$`.execute(db);
    await sql`create trigger api_keys_rights_changed after update of ${KEY_RIGHTS} or delete on api_keys
      for each row execute function inmo_bump_config_version()`.execute(db);
    await sql`create trigger channels_changed after insert or update or delete on channels
      for each row execute function inmo_bump_config_version()`.execute(db);
    await sql`create trigger businesses_changed after update of name, catalogue_version, config_version on businesses
      for each statement execute function inmo_notify_changes()`.execute(db);
    return;
  }
  const bump = (row: 'old' | 'new') =>
    sql`update businesses set config_version = config_version + 1 where id = ${sql.raw(row)}.business_id;`;
  await sql`create trigger api_keys_rights_changed after update of ${KEY_RIGHTS} on api_keys
    begin ${bump('old')} ${bump('new')} end`.execute(db);
  await sql`create trigger api_keys_deleted after delete on api_keys begin ${bump('old')} end`.execute(db);
  await sql`create trigger channels_inserted after insert on channels begin ${bump('new')} end`.execute(db);
  await sql`create trigger channels_updated after update on channels begin ${bump('old')} ${bump('new')} end`.execute(db);
  await sql`create trigger channels_deleted after delete on channels begin ${bump('old')} end`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger businesses_changed on businesses`.execute(db);
    await sql`drop trigger channels_changed on channels`.execute(db);
    await sql`drop trigger api_keys_rights_changed on api_keys`.execute(db);
    await sql`drop function inmo_notify_changes()`.execute(db);
    await sql`drop function inmo_bump_config_version()`.execute(db);
  } else {
    for (const trigger of ['channels_deleted', 'channels_updated', 'channels_inserted', 'api_keys_deleted', 'api_keys_rights_changed']) {
      await sql`drop trigger ${sql.ref(trigger)}`.execute(db);
    }
  }
  await sql`alter table businesses drop column config_version`.execute(db);
}
