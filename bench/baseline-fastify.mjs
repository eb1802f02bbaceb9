// The second baseline of the read benchmarks: a minimal Fastify server (no plugins, no hooks,
// default settings) answering every GET with the same bytes the real server returned for the
// scenario, so the report separates what Fastify costs from what inmo adds.
// Usage: node baseline-fastify.mjs BODY_FILE
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.argv[2]);
const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
