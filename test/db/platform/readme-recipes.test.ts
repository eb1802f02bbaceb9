/**
 * The README's recipes run as written (issue 57 item 9): the webhook recipe of "Receive a
 * webhook", its commands read from README.md itself. The server runs as the recipe's `npm start`
 * (`inmo serve --demo`, README) with the environment the recipe gives it, and the URL is added
 * with the recipe's command and environment; a lead sent then reaches the local receiver, signed.
 * The suite's own INMO_ALLOW_PRIVATE_NETWORK=1 is removed first, so only the recipe's settings count.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { freshDatabaseUrl, REPO_ROOT } from '../../helpers/db.ts';
import { inmo } from '../../helpers/cli.ts';
import { startServe } from '../../helpers/processes.ts';

/** `VAR=value … command args…` → the variables and the words. */
function shellLine(line: string): { env: Record<string, string>; words: string[] } {
  const words = line.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  return { env, words };
}

it('the webhook recipe delivers to a local receiver, as written', async () => {
  const readme = readFileSync(`${REPO_ROOT}/README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('**4. Receive a webhook.**'), readme.indexOf('## Where to read on'));
  const snippets = [...section.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const start = snippets.find((c) => /(^|\s)npm start$/.test(c));
  const add = snippets.find((c) => /npx inmo webhooks add .*--url http:\/\/127\.0\.0\.1:\d+\//.test(c));
  expect(start, 'the recipe says how the server runs').toBeDefined();
  expect(add, 'the recipe registers a local receiver').toBeDefined();

  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;

  const base: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'warn' };
  delete base.INMO_ALLOW_PRIVATE_NETWORK;
  base.INMO_MEDIA_DIR = join(mkdtempSync(join(tmpdir(), 'inmo-readme-')), 'media');
  const server = await startServe({ ...base, ...shellLine(start!).env }, '--demo');
  try {
    const recipe = shellLine(add!);
    expect(recipe.words.slice(0, 4)).toEqual(['npx', 'inmo', 'webhooks', 'add']);
    const args = recipe.words.slice(2).map((w) => w.replace(/^http:\/\/127\.0\.0\.1:\d+\//, `http://127.0.0.1:${port}/`));
    const added = await inmo({ ...base, ...recipe.env }, ...args, '--json');
    expect(added.code, added.stderr).toBe(0);
    const secret = added.json.secret as string;
    const lead = await fetch(`${server.info.url}/leads/inquiries`, {
      method: 'POST',
      headers: { 'x-api-key': server.info.key as string, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ana García', type: 'buyer', phone_number_1: '612 34 56 78' }),
    });
    expect(lead.status).toBe(200);
    await expect.poll(() => received.length, { timeout: 60_000 }).toBeGreaterThan(0);
    const event = new Webhook(secret).verify(received[0].body, received[0].headers as Record<string, string>) as { type: string };
    expect(event.type).toBe('lead.created');
  } finally {
    await server.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}, 120_000);
