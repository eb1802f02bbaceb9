/**
 * 0009: Idempotency-Key on the two POSTs (issue 16, CONTRACT §13).
 *
 * - idempotency_keys: one row per (API key, Idempotency-Key) for 24 h, shared by every
 *   process. `fingerprint` is the SHA-256 of the request (method, route and body bytes).
 *   `running` while the first request is being handled, until `locked_until` (a process that
 *   died mid-request leaves its claim to lapse); `done` with the first response's `status`,
 *   `response` body and `outcome` (the Inmo-Lead-Outcome header), written in the same
 *   transaction as the lead. Rows past `expires_at` are as good as absent and are purged.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table idempotency_keys (
    key_id text not null references api_keys(key_id),
    idempotency_key text not null,
    fingerprint text not null,
    state text not null check (state in ('running', 'done')),
    locked_until text,
    status integer,
    response text,
    outcome text,
    created_at text not null,
    expires_at text not null,
    primary key (key_id, idempotency_key)
  )`.execute(db);
  await sql`create index idempotency_keys_expiry on idempotency_keys (expires_at)`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table idempotency_keys`.execute(db);
}
