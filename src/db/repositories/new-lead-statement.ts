/**
 * A new lead and everything that comes with it, in one PostgreSQL statement (issue 32): the
 * lead, its note, its consent, its welcome message, its jobs, its `lead.created` event and that
 * event's webhook deliveries with their jobs, as data-modifying CTEs of one `insert`, which
 * PostgreSQL runs and commits as one statement.
 *
 * It duplicates how the intake's transactional path writes these rows (services/leads/intake.ts,
 * through db/repositories/leads.ts, messaging.ts, jobs.ts, events.ts and idempotency.ts); the
 * rules are not here. services/leads/new-lead-at-once.ts decides every value with the intake's
 * own functions (which endpoints take the event, the welcome's template and language, the
 * event's data, the jobs) and hands them in as parameters; the SQL only inserts them, and decides
 * nothing but what the unique constraints decide. test/db/leads/new-lead-statement.test.ts proves that
 * both paths store the same rows.
 *
 * Why: each statement costs PostgreSQL a round trip and its own parse-plan-execute cycle; a
 * lead written as ten statements in a transaction took ten of each (0.25× a bare insert of the
 * lead, its note and jobs).
 *
 * - `on conflict do nothing`: a lead with this phone exists (or is being created): nothing is
 *   written and the result is null, so the caller takes the transactional path, which handles
 *   existing leads;
 * - the welcome and the endpoints were decided from the business's channel and endpoints as
 *   they were at its `config_version` (migrations 0005, 0024), which the caller hands in: when
 *   the business's version is another one as the statement runs, nothing is written and the
 *   result is `stale`;
 * - the event's data is the presented lead's JSON (domain/leads/presenter.ts), made by the
 *   caller with every field but the id, which the database gives;
 * - a delivery to each endpoint named, in order, each with its job (a new lead has no earlier
 *   pending delivery to wait behind);
 * - with a claimed Idempotency-Key, its record gets the 200 that the request answers; with a key
 *   not claimed first (services/integrations/idempotency.ts), the record is inserted `done` with
 *   that 200, and a key that has a row already fails the whole statement (a unique violation of
 *   `idempotency_keys_pkey`): nothing is written.
 *
 * SQLite cannot write from a CTE; there the intake's units share one commit instead
 * (db/group-commit.ts).
 */
import { CompiledQuery } from 'kysely';
import { prepareOnce, type Db } from '../database.ts';
import type { KeyRecord } from './idempotency.ts';
import { withSearchText } from './leads.ts';

/** What the statement writes. Times are canonical RFC 3339. */
export interface NewLeadRows {
  businessId: number;
  /** The lead's columns (undefined ones left to their defaults), `business_id` included. */
  lead: Record<string, unknown>;
  note: string;
  consent: { marketing: number; whatsapp: number; text: string | null; version: string | null; source_page: string | null } | null;
  /**
   * The welcome message, `pending`: its kind (`template` or `email`), recipient (E.164, or the
   * e-mail address), template (null for an e-mail) and language code; null: no welcome.
   */
  welcome: { kind: string; recipient: string; template: string | null; language: string } | null;
  /** The lead's jobs, in the order they are queued. */
  jobs: string[];
  /** The webhook endpoints the `lead.created` event goes to, in order: a pending delivery and its job each. */
  endpointIds: number[];
  /** The business's `config_version` that `welcome` and `endpointIds` were decided at. */
  configVersion: number;
  /** The event's `data` after `{"lead":{"id":<id>` (JSON text, starting with `,` or `}`). */
  eventDataAfterId: string;
  /**
   * The Idempotency-Key whose record gets the 200, as db/repositories/idempotency.ts
   * `writeKeyRecord` writes it for a new lead (`known` does not apply); null: no key.
   */
  idempotency: KeyRecord | null;
  at: string;
}

const statements = new Map<string, string>();

/**
 * The statement for one shape of rows (columns, consent or not, welcome or not, deliveries or
 * not, the key's record): few shapes, each a named prepared statement.
 */
function statementFor(
  columns: string[],
  consent: boolean,
  welcome: boolean,
  deliveries: boolean,
  idempotency: 'none' | 'constant' | 'with id',
  insertKey: boolean,
): string {
  const key = `${columns.join(',')}|${consent}|${welcome}|${deliveries}|${idempotency}|${insertKey}`;
  let text = statements.get(key);
  if (text !== undefined) return text;
  // $1 business, $2 at, $3 note, $4 jobs, $5 event data after the id, $6 the config version; then optional parts; then the lead's columns.
  let n = 6;
  /** The next `count` placeholders, in the order {@link insertNewLeadAtOnce} pushes their values. */
  const params = (count: number) => Array.from({ length: count }, () => `$${++n}`);
  const parts: string[] = [];
  const consentValues = consent ? params(5).join(', ') : '';
  const [recipient, template, language, kind] = welcome ? params(4) : [];
  const [endpoints] = deliveries ? params(1) : [];
  const [keyId, idempotencyKey, before, after] = idempotency === 'none' ? [] : params(idempotency === 'with id' ? 4 : 3);
  const [fingerprint, createdAt, expiresAt] = insertKey ? params(3) : [];
  const leadValues = params(columns.length).join(', ');
  const quoted = columns.map((c) => `"${c}"`).join(', ');
  // Written only at the configuration the caller decided from (the parameters' types are the columns').
  const current = `(select config_version from businesses where id = $1)`;
  parts.push(`l as (insert into leads (${quoted}) select ${leadValues} where ${current} = $6 on conflict do nothing returning id)`);
  parts.push(`n as (insert into lead_notes (lead_id, text, created_at) select id, $3, $2 from l)`);
  if (consent) {
    parts.push(
      `c as (insert into lead_consents (business_id, lead_id, marketing, whatsapp, text, version, source_page, created_at) select $1, id, ${consentValues}, $2 from l)`,
    );
  }
  if (welcome) {
    parts.push(
      `w as (insert into messages (business_id, lead_id, direction, kind, author, template, language, recipient, state, created_at, updated_at) ` +
        `select $1, id, 'out', ${kind}::text, 'welcome', ${template}::text, ${language}::text, ${recipient}, 'pending', $2, $2 from l)`,
    );
  }
  parts.push(
    `e as (insert into events (business_id, type, lead_id, data, created_at) select $1, 'lead.created', id, '{"lead":{"id":' || id || $5::text, $2 from l returning id, lead_id)`,
  );
  if (deliveries) {
    parts.push(
      `d as (insert into webhook_deliveries (endpoint_id, event_id, lead_id, state, created_at, updated_at) ` +
        `select u.endpoint, e.id, e.lead_id, 'pending', $2, $2 from e, unnest(${endpoints}::integer[]) with ordinality as u(endpoint, i) ` +
        `order by u.i returning id, lead_id)`,
    );
  }
  // The lead's jobs in their order, then each delivery's, as the transactional path queues them.
  const deliveryJobs = deliveries
    ? ` union all select d.lead_id, 'deliver_webhook', '{"delivery_id":' || d.id || '}', 1000000 + d.id from d`
    : '';
  parts.push(
    `j as (insert into jobs (business_id, lead_id, kind, payload, state, run_at, created_at, updated_at) ` +
      `select $1, lead_id, kind, payload, 'pending', $2, $2, $2 from (` +
      `select l.id as lead_id, u.k as kind, null::text as payload, u.i as o from l, unnest($4::text[]) with ordinality as u(k, i)` +
      `${deliveryJobs}) as queued order by o)`,
  );
  if (idempotency !== 'none') {
    // As the transactional path records it (db/repositories/idempotency.ts recordResponse).
    const response = idempotency === 'with id' ? `${before}::text || l.id || ${after}::text` : `${before}::text`;
    parts.push(
      insertKey
        ? // No `on conflict`: a key with a row already fails the statement, and nothing is written.
          `k as (insert into idempotency_keys (key_id, idempotency_key, fingerprint, state, locked_until, status, response, outcome, lead_id, created_at, expires_at) ` +
            `select ${keyId}, ${idempotencyKey}, ${fingerprint}, 'done', null, 200, ${response}, 'created', l.id, ${createdAt}, ${expiresAt} from l)`
        : `k as (update idempotency_keys set state = 'done', locked_until = null, status = 200, response = ${response}, outcome = 'created', lead_id = l.id ` +
            `from l where key_id = ${keyId} and idempotency_key = ${idempotencyKey} and state = 'running')`,
    );
  }
  text = `with ${parts.join(', ')} select (select id from l) as id, ${current} as version`;
  statements.set(key, text);
  prepareOnce(text);
  return text;
}

/**
 * Writes a new lead with its rows in one statement (see the module's comment).
 * @returns the new lead's id; null when a lead with its phone exists; `stale` when the
 *   business's `config_version` is no longer `rows.configVersion` (nothing written either way).
 * @throws the database's error (nothing written: one statement commits whole or not at all),
 *   among them the unique violation of a key not claimed first that has a row already.
 */
export async function insertNewLeadAtOnce(db: Db, rows: NewLeadRows): Promise<number | null | 'stale'> {
  const lead: Record<string, unknown> = withSearchText(rows.lead);
  const columns = Object.keys(lead).filter((c) => lead[c] !== undefined);
  const key = rows.idempotency;
  const text = statementFor(
    columns,
    rows.consent !== null,
    rows.welcome !== null,
    rows.endpointIds.length > 0,
    key === null ? 'none' : key.body.afterId === null ? 'constant' : 'with id',
    key?.insert != null,
  );
  const values: unknown[] = [rows.businessId, rows.at, rows.note, rows.jobs, rows.eventDataAfterId, rows.configVersion];
  if (rows.consent) {
    const { marketing, whatsapp, text: wording, version, source_page: page } = rows.consent;
    values.push(marketing, whatsapp, wording, version, page);
  }
  if (rows.welcome) values.push(rows.welcome.recipient, rows.welcome.template, rows.welcome.language, rows.welcome.kind);
  if (rows.endpointIds.length > 0) values.push(rows.endpointIds);
  if (key) values.push(key.keyId, key.idempotencyKey, key.body.beforeId, ...(key.body.afterId === null ? [] : [key.body.afterId]));
  if (key?.insert) values.push(key.insert.fingerprint, key.insert.createdAt, key.insert.expiresAt);
  for (const c of columns) values.push(lead[c]);
  const [result] = (await db.executeQuery<{ id: number | null; version: number | null }>(CompiledQuery.raw(text, values))).rows;
  if (result.id !== null) return result.id;
  return result.version === rows.configVersion ? null : 'stale';
}
