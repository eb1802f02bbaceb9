/**
 * A new lead and everything that comes with it, in one PostgreSQL statement (issue 32): the
 * lead, its note, its consent, its welcome message (when the business has a channel), its
 * jobs, its `lead.created` event and that event's webhook deliveries with their jobs, as
 * data-modifying CTEs of one `insert`, which PostgreSQL runs and commits as one statement.
 *
 * Why: each statement costs PostgreSQL a round trip and its own parse-plan-execute cycle; a
 * lead written as ten statements in a transaction took ten of each (0.25× a bare insert of the
 * lead, its note and jobs). The rules are the intake's (services/leads/intake.ts); only how the
 * rows reach the database differs. The caller decides the values; the SQL decides nothing but
 * what the other path decides from the same rows:
 *
 * - `on conflict do nothing`: a lead with this phone exists (or is being created): nothing is
 *   written and the result is null, so the caller takes the transactional path, which handles
 *   existing leads;
 * - the welcome message is written only if the business has a channel, in the language the
 *   channel maps `preferred_language` to, else the fallback (`templateLanguage`,
 *   channels/whatsapp-cloud.ts), read in the same snapshot;
 * - the event's data is the presented lead's JSON (domain/leads/presenter.ts), made by the
 *   caller with every field but the id, which the database gives;
 * - a delivery to each active endpoint that takes `lead.created`, each with its job (a new
 *   lead has no earlier pending delivery to wait behind);
 * - with a claimed Idempotency-Key, its record gets the 200 that the request answers; with a key
 *   not claimed first (services/integrations/idempotency.ts `DeferredKey`), the record is inserted `done` with
 *   that 200, and a key that has a row already fails the whole statement (a unique violation of
 *   `idempotency_keys_pkey`): nothing is written.
 *
 * SQLite cannot write from a CTE; there the intake's units share one commit instead
 * (db/group-commit.ts).
 */
import { CompiledQuery } from 'kysely';
import { prepareOnce, type Db } from '../database.ts';

/** What the statement writes. Times are canonical RFC 3339. */
export interface NewLeadRows {
  businessId: number;
  /** The lead's columns (undefined ones left to their defaults), `business_id` included. */
  lead: Record<string, unknown>;
  note: string;
  consent: { marketing: number; whatsapp: number; text: string | null; version: string | null; source_page: string | null } | null;
  /** The welcome's recipient (E.164) and the lead's preferred language; null: no welcome. */
  welcome: { recipient: string; preferredLanguage: string | null; fallbackLanguage: string } | null;
  jobs: string[];
  /** The event's `data` after `{"lead":{"id":<id>` (JSON text, starting with `,` or `}`). */
  eventDataAfterId: string;
  /**
   * The Idempotency-Key whose record gets the 200 (services/integrations/idempotency.ts `record`): its body
   * is `bodyBeforeId`, then the lead's id and `bodyAfterId` unless that is null (a body without
   * the id). `insert`: the key was not claimed first, its record is inserted with these. null: no key.
   */
  idempotency: {
    keyId: string;
    idempotencyKey: string;
    bodyBeforeId: string;
    bodyAfterId: string | null;
    insert: { fingerprint: string; createdAt: string; expiresAt: string } | null;
  } | null;
  at: string;
}

const statements = new Map<string, string>();

/** The statement for one shape of rows (columns, consent or not, welcome or not): few shapes, each a named prepared statement. */
function statementFor(
  columns: string[],
  consent: boolean,
  welcome: boolean,
  idempotency: 'none' | 'constant' | 'with id',
  insertKey: boolean,
): string {
  const key = `${columns.join(',')}|${consent}|${welcome}|${idempotency}|${insertKey}`;
  let text = statements.get(key);
  if (text !== undefined) return text;
  // $1 business, $2 at, $3 note, $4 jobs, $5 event data after the id; then optional parts; then the lead's columns.
  let n = 5;
  /** The next `count` placeholders, in the order {@link insertNewLeadAtOnce} pushes their values. */
  const params = (count: number) => Array.from({ length: count }, () => `$${++n}`);
  const parts: string[] = [];
  const consentValues = consent ? params(5).join(', ') : '';
  const [recipient, preferred, fallback] = welcome ? params(3) : [];
  const [keyId, idempotencyKey, before, after] = idempotency === 'none' ? [] : params(idempotency === 'with id' ? 4 : 3);
  const [fingerprint, createdAt, expiresAt] = insertKey ? params(3) : [];
  const leadValues = params(columns.length).join(', ');
  const quoted = columns.map((c) => `"${c}"`).join(', ');
  parts.push(`l as (insert into leads (${quoted}) values (${leadValues}) on conflict do nothing returning id)`);
  parts.push(`n as (insert into lead_notes (lead_id, text, created_at) select id, $3, $2 from l)`);
  if (consent) {
    parts.push(
      `c as (insert into lead_consents (business_id, lead_id, marketing, whatsapp, text, version, source_page, created_at) select $1, id, ${consentValues}, $2 from l)`,
    );
  }
  if (welcome) {
    parts.push(
      `w as (insert into messages (business_id, lead_id, direction, kind, author, template, language, recipient, state, created_at, updated_at) ` +
        `select $1, l.id, 'out', 'template', 'welcome', ch.template, coalesce(ch.languages::jsonb ->> ${preferred}::text, ${fallback}::text), ${recipient}, 'pending', $2, $2 ` +
        `from l join channels ch on ch.business_id = $1)`,
    );
  }
  parts.push(
    `e as (insert into events (business_id, type, lead_id, data, created_at) select $1, 'lead.created', id, '{"lead":{"id":' || id || $5::text, $2 from l returning id, lead_id)`,
  );
  parts.push(
    `d as (insert into webhook_deliveries (endpoint_id, event_id, lead_id, state, created_at, updated_at) ` +
      `select wh.id, e.id, e.lead_id, 'pending', $2, $2 from e join webhook_endpoints wh on wh.business_id = $1 and wh.disabled_at is null ` +
      `and (wh.events is null or wh.events::jsonb ? 'lead.created') order by wh.id returning id, lead_id)`,
  );
  // The lead's jobs in their order, then each delivery's, as the transactional path queues them.
  parts.push(
    `j as (insert into jobs (business_id, lead_id, kind, payload, state, run_at, created_at, updated_at) ` +
      `select $1, lead_id, kind, payload, 'pending', $2, $2, $2 from (` +
      `select l.id as lead_id, u.k as kind, null::text as payload, u.i as o from l, unnest($4::text[]) with ordinality as u(k, i) ` +
      `union all select d.lead_id, 'deliver_webhook', '{"delivery_id":' || d.id || '}', 1000000 + d.id from d) as queued order by o)`,
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
  text = `with ${parts.join(', ')} select id from l`;
  statements.set(key, text);
  prepareOnce(text);
  return text;
}

/**
 * Writes a new lead with its rows in one statement (see the module's comment).
 * @returns the new lead's id, or null when a lead with its phone exists (nothing written).
 * @throws the database's error (nothing written: one statement commits whole or not at all),
 *   among them the unique violation of a key not claimed first that has a row already.
 */
export async function insertNewLeadAtOnce(db: Db, rows: NewLeadRows): Promise<number | null> {
  const columns = Object.keys(rows.lead).filter((c) => rows.lead[c] !== undefined);
  const key = rows.idempotency;
  const text = statementFor(
    columns,
    rows.consent !== null,
    rows.welcome !== null,
    key === null ? 'none' : key.bodyAfterId === null ? 'constant' : 'with id',
    key?.insert != null,
  );
  const values: unknown[] = [rows.businessId, rows.at, rows.note, rows.jobs, rows.eventDataAfterId];
  if (rows.consent) {
    const { marketing, whatsapp, text: wording, version, source_page: page } = rows.consent;
    values.push(marketing, whatsapp, wording, version, page);
  }
  if (rows.welcome) values.push(rows.welcome.recipient, rows.welcome.preferredLanguage, rows.welcome.fallbackLanguage);
  if (key) values.push(key.keyId, key.idempotencyKey, key.bodyBeforeId, ...(key.bodyAfterId === null ? [] : [key.bodyAfterId]));
  if (key?.insert) values.push(key.insert.fingerprint, key.insert.createdAt, key.insert.expiresAt);
  for (const c of columns) values.push(rows.lead[c]);
  const result = await db.executeQuery<{ id: number }>(CompiledQuery.raw(text, values));
  return result.rows[0]?.id ?? null;
}
