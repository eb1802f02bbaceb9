// The floor of the uncached read benchmarks: a bare node:http server that runs, for every
// request, the statement inmo runs for the page (recorded by bench/raw-floor.ts) on a raw
// better-sqlite3 connection, and sends the rows as inmo's bytes.
// Usage: node baseline-sqlite.mjs DB_FILE RECORDED_PAGE_JSON
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The binding inmo itself loads on this Node (src/db/sqlite-binding.ts): 13 needs Node-API 10.
const SQLite = createRequire(import.meta.url)(Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20');

const page = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const sqlite = new SQLite(process.argv[2], { readonly: true });
sqlite.pragma('cache_size = -65536');
const statement = sqlite.prepare(page.sql);
const server = createServer((req, res) => {
  const rows = statement.all(...page.params);
  const data = rows.map((r) => `{"id":${r.id},${r.api_doc.slice(1)}`).join(',');
  const body = Buffer.from(`{"data":[${data}],"total":${page.total},"limit":${page.limit},"offset":${page.offset}}`);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
