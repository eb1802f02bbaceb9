// The baseline of the webhook benchmark: a bare node:http server that checks the
// X-Hub-Signature-256 HMAC of the raw body, as inmo does, and answers 200 without storing
// anything. Usage: node baseline-webhook.mjs APP_SECRET
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.argv[2];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(Buffer.concat(chunks)).digest('hex')}`);
    const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
