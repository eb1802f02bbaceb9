// The baseline of the changes-feed benchmark (bench/feed.ts): a bare node:http server that
// answers `GET /N` with the N-th of the pages in a JSON array file, as inmo sent them.
// Usage: node baseline-pages.mjs PAGES.json
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const pages = JSON.parse(readFileSync(process.argv[2], 'utf8')).map((page) => Buffer.from(page));
const server = createServer((req, res) => {
  const page = pages[Number(req.url.slice(1))];
  if (page === undefined) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': page.length });
  res.end(page);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
