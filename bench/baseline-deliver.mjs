// The baseline of the event-delivery benchmark (bench/events.ts): the same Standard Webhooks
// deliveries inmo's worker makes, with no database. Reads a JSON file of
// `{url, secret, concurrency, events: [{id, body}]}`, signs each body with the
// `standardwebhooks` package, POSTs it with fetch, `concurrency` at a time, and prints
// `{"seconds": …}` (from the first POST) when every delivery was answered 2xx. Usage: node baseline-deliver.mjs FILE
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';

const { url, secret, concurrency, events } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const webhook = new Webhook(secret.slice('whsec_'.length));
const started = performance.now();
let next = 0;
const worker = async () => {
  while (next < events.length) {
    const { id, body } = events[next++];
    const at = new Date();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': webhook.sign(id, at, body),
      },
      body,
      signal: AbortSignal.timeout(15_000),
    });
    await response.arrayBuffer();
    if (response.status < 200 || response.status > 299) throw new Error(`the receiver answered ${response.status}`);
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000 })}\n`);
process.exit(0);
