// The floor of the lead-creation benchmarks (issue 32): a bare node:http server that reads each
// POST's JSON body and inserts the lead, its note and its three jobs in one transaction, on a
// raw connection of the same engine inmo uses: better-sqlite3 (WAL, synchronous=NORMAL, as
// inmo opens it) or a `pg` Pool of 10 (inmo's default pool size). It answers what inmo answers
// an inquiry: `{"status":"ok","authenticated_as":…,"lead_id":…}`.
// Usage: node baseline-leads.mjs sqlite:FILE | postgres://…?schema=S   BUSINESS_ID
import { createServer } from 'node:http';
import { URL } from 'node:url';
import { createRequire } from 'node:module';

const [url, businessArg] = process.argv.slice(2);
const businessId = Number(businessArg);
const require = createRequire(import.meta.url);

const LEAD_COLUMNS =
  'business_id, name, type, status, active, rating, captured_by, source, phone_number_1, profile_category, urgency_profile, search_preferences, created_at, updated_at';
const JOB_KINDS = ['match_lead', 'send_welcome', 'schedule_follow_ups'];

/** The lead's row values, as inmo would store them, from the request's body. */
function values(body, at) {
  const phone = String(body.phone_number_1 ?? body.contact?.phone ?? '').replace(/[^\d+]/g, '');
  const name = String(body.name ?? body.contact?.name ?? '');
  const searches = JSON.stringify(body.search_preferences ?? [body.search ?? {}]);
  return [
    businessId,
    name,
    'demandante',
    'searching_property',
    1,
    3,
    'Web',
    'bench',
    phone,
    'potencial',
    'poca-urgencia',
    searches,
    at,
    at,
  ];
}

let insert;
if (url.startsWith('sqlite:')) {
  // The binding inmo itself loads on this Node (src/db/sqlite-binding.ts).
  const SQLite = require(Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20');
  const sqlite = new SQLite(url.slice('sqlite:'.length));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const lead = sqlite.prepare(
    `insert into leads (${LEAD_COLUMNS}) values (${LEAD_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')}) returning id`,
  );
  const note = sqlite.prepare('insert into lead_notes (lead_id, text, created_at) values (?, ?, ?)');
  const job = sqlite.prepare(
    "insert into jobs (business_id, lead_id, kind, state, run_at, created_at, updated_at) values (?, ?, ?, 'pending', ?, ?, ?)",
  );
  const store = sqlite.transaction((body, at) => {
    const id = lead.get(...values(body, at)).id;
    note.run(id, 'Consulta recibida por la web.', at);
    for (const kind of JOB_KINDS) job.run(businessId, id, kind, at, at, at);
    return id;
  });
  insert = async (body, at) => store(body, at);
} else {
  const pg = require('pg');
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  const pool = new pg.Pool({ connectionString: parsed.toString(), max: 10, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  const placeholders = LEAD_COLUMNS.split(',')
    .map((_, i) => `$${i + 1}`)
    .join(', ');
  insert = async (body, at) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query({
        name: 'lead',
        text: `insert into leads (${LEAD_COLUMNS}) values (${placeholders}) returning id`,
        values: values(body, at),
      });
      const id = rows[0].id;
      await client.query({
        name: 'note',
        text: 'insert into lead_notes (lead_id, text, created_at) values ($1, $2, $3)',
        values: [id, 'Consulta recibida por la web.', at],
      });
      await client.query({
        name: 'jobs',
        text: "insert into jobs (business_id, lead_id, kind, state, run_at, created_at, updated_at) select $1, $2, k, 'pending', $3, $3, $3 from unnest($4::text[]) k",
        values: [businessId, id, at, JOB_KINDS],
      });
      await client.query('commit');
      return id;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      res.writeHead(422).end();
      return;
    }
    insert(body, new Date().toISOString()).then(
      (id) => {
        const out = Buffer.from(JSON.stringify({ status: 'ok', authenticated_as: 'Bench leads', lead_id: id }));
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': out.length });
        res.end(out);
      },
      () => res.writeHead(500).end(),
    );
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
