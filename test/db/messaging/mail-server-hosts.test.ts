/**
 * Mail servers at private addresses are refused when they are added, in every spelling (issue 55,
 * item 10): `imap://` and `smtp://` are not special schemes, so `new URL` keeps `127.1`,
 * `0x7f000001` or `2130706433` as written, which the resolver still reaches as 127.0.0.1. The
 * console's test send says what went wrong in the page's language, never how a name resolved.
 */
import { describe, expect, it } from 'vitest';
import { upsertEmailSettings } from '../../../src/db/repositories/email-out.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { Browser, userWithPassword } from '../../helpers/console.ts';
import { inmo } from '../../helpers/cli.ts';
import { snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

const STRICT = { allowPrivateNetwork: false, channelHosts: [] };

/** Loopback and private addresses as a URL's host may write them. */
const SPELLINGS = [
  '127.1',
  '0x7f000001',
  '2130706433',
  '0177.0.0.1',
  '0x7f.1',
  '127.0.0.1.',
  '10.1',
  '0',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
];

const t = withApp({
  app: { outbound: STRICT },
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
  },
});

const closedEnv = () => ({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '0' });

describe('a mail server at a private address, in any spelling', () => {
  it.each(SPELLINGS)('inmo email pull add refuses imaps://…@%s at once', async (host) => {
    const before = await snapshot(t.db);
    const url = `imaps://agent:secret@${host}:993/INBOX`;
    const run = await inmo(closedEnv(), 'email', 'pull', 'add', '--business', String(t.businessId), '--url', url, '--json');
    expect(run.code).not.toBe(0);
    expect(run.json.error).toContain('imaps://');
    expect(`${run.stdout}${run.stderr}`).not.toContain('secret');
    expect(await snapshot(t.db)).toBe(before);
  });

  it.each(SPELLINGS)('inmo email connect refuses smtps://…@%s at once', async (host) => {
    const before = await snapshot(t.db);
    const url = `smtps://agent:secret@${host}:465`;
    const run = await inmo(
      closedEnv(),
      'email',
      'connect',
      '--business',
      String(t.businessId),
      '--url',
      url,
      '--from',
      'a@uno.example',
      '--json',
    );
    expect(run.code).not.toBe(0);
    expect(run.json.error).toBe('The SMTP server is not at a public address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)');
    expect(`${run.stdout}${run.stderr}`).not.toContain('secret');
    expect(await snapshot(t.db)).toBe(before);
  });

  it.each(SPELLINGS)("the console's e-mail form refuses the host %s", async (host) => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const before = await snapshot(t.db);
    const form = { host, port: '465', security: 'tls', user: 'agent', password: 'secret', from: 'hola@uno.example', reply_to: '' };
    const saved = await owner.submit('/console/email', '/console/email', form);
    expect(saved.statusCode).toBe(422);
    expect(saved.body).toContain('Ese servidor no está en una dirección pública.');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('a public address written as a number is still accepted', async () => {
    const run = await inmo(
      closedEnv(),
      'email',
      'connect',
      '--business',
      String(t.businessId),
      '--url',
      'smtps://agent:secret@0x08080808:465',
      '--from',
      'a@uno.example',
      '--json',
    );
    expect(run.code).toBe(0);
  });

  it("the console's test send to a server stored as 127.1 says it in the page's words, never what it resolved to", async () => {
    // Stored before this check existed: the send refuses it at connection time.
    await upsertEmailSettings(t.db, {
      business_id: t.businessId,
      host: '127.1',
      port: 465,
      security: 'tls',
      username: null,
      password: null,
      from_address: 'hola@uno.example',
      reply_to: null,
      connected_at: nowRfc3339(),
      updated_at: nowRfc3339(),
    });
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const sent = await owner.submit('/console/email', '/console/email/test', { test_to: 'ana@example.com' });
    expect(sent.statusCode).toBe(502);
    expect(sent.body).toContain('No se envió el correo de prueba: ese servidor no está en una dirección pública.');
    expect(sent.body).not.toMatch(/resolves|127\.0\.0\.1|INMO_ALLOW_PRIVATE_NETWORK/);
    const english = new Browser(t.app, { 'accept-language': 'en' });
    await english.login('owner@uno.example');
    const again = await english.submit('/console/email', '/console/email/test', { test_to: 'ana@example.com' });
    expect(again.body).toContain('The test e-mail was not sent: that server is not at a public address.');
  });
});
