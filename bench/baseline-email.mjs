// The baselines of the inbound e-mail benchmark: a server that reads each posted message whole
// and answers 202 {"status":"accepted"} without storing anything, as bare node:http (`node`) or
// as a minimal Fastify app (`fastify`: no plugins, no hooks, a parser keeping message/rfc822
// bodies as bytes, up to 10 MiB as inmo's).
// Usage: node baseline-email.mjs node|fastify
import { createServer } from 'node:http';
import Fastify from 'fastify';

const ANSWER = '{"status":"accepted"}';
const print = (port) => process.stdout.write(`${JSON.stringify({ port })}\n`);

if (process.argv[2] === 'fastify') {
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
  app.addContentTypeParser('message/rfc822', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/webhooks/email/:token', (_request, reply) => reply.code(202).type('application/json; charset=utf-8').send(ANSWER));
  await app.listen({ port: 0, host: '127.0.0.1' });
  print(app.server.address().port);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
} else {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      Buffer.concat(chunks);
      res.writeHead(202, { 'content-type': 'application/json; charset=utf-8' });
      res.end(ANSWER);
    });
  });
  server.listen(0, '127.0.0.1', () => print(server.address().port));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
