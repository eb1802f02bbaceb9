/**
 * E-mail in without an operator (CONTRACT §25), on the console's e-mail page: with the SMTP
 * listener configured, an owner sees the business's address to forward to (the webhook's token)
 * with the forwarding rule to copy; and owners add, test and remove the mailboxes read over IMAP,
 * against a real IMAP server (Debian's dovecot, test/helpers/dovecot.ts): the password sealed and
 * never shown, the test's failure in words, audit entries without secrets, CSRF and the owner role
 * checked, a private server refused under the outbound rules, every refusal changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEmailPull } from '../../../src/services/leads/email-pulls.ts';
import { inboundTokenOf } from '../../../src/services/leads/inbound-address.ts';
import { loggedIn, userWithPassword, Browser } from '../../helpers/console.ts';
import { businessWithKey, snapshot } from '../../helpers/db.ts';
import { dovecotHere, startDovecot, type Dovecot } from '../../helpers/dovecot.ts';
import { withApp } from '../../helpers/http.ts';

const DOMAIN = 'entrada.inmo.example';
const HERE = dovecotHere('console e-mail pulls (IMAP)');
const seed = async ({ db, businessId }: { db: Parameters<typeof userWithPassword>[0]; businessId: number }) => {
  await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
  await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
};
const outbound = { allowPrivateNetwork: true, channelHosts: [] };
const inboundSmtp = { port: 2525, host: null, domain: DOMAIN, maxConnections: 50, sessionMs: 600_000, tls: null };
const t = withApp({ app: { inboundSmtp, outbound }, seed });
/** The same console where the outbound rules forbid private servers, as in production. */
const strict = withApp({ app: { inboundSmtp: null, outbound: { allowPrivateNetwork: false, channelHosts: [] } }, seed });

let dovecot: Dovecot;
beforeAll(async () => {
  if (HERE) dovecot = await startDovecot();
});
afterAll(async () => {
  await dovecot?.stop();
});

/** The value of the readonly field `id` of a page. */
const fieldValue = (body: string, id: string) => new RegExp(`id="${id}" readonly value="([^"]*)"`).exec(body)?.[1];

describe("the business's address on the e-mail page (INMO_SMTP_INBOUND_PORT)", () => {
  it('shows an owner the address to forward to, of the webhook’s token, with the forwarding rule; never an agent', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const made = await owner.submit('/console/email', '/console/email/addresses', {});
    expect(made.statusCode).toBe(201);
    const page = await owner.get('/console/email');
    const token = await inboundTokenOf(t.db, t.businessId);
    expect(fieldValue(page.body, 'email-inbound-address')).toBe(`${token}@${DOMAIN}`);
    expect(page.body).toContain(`/webhooks/email/${token}`);
    expect(fieldValue(page.body, 'email-rule-filter')).toBe('from:(idealista.com OR fotocasa.es OR habitaclia.com OR pisos.com)');
    const sieve = /<textarea id="email-rule-sieve"[^>]*>([^<]*)<\/textarea>/.exec(page.body)?.[1];
    expect(sieve).toContain(`redirect :copy &quot;${token}@${DOMAIN}&quot;;`);
    expect(sieve).toContain('&quot;*.idealista.com&quot;');
    expect(page.body).toContain('Dirección a la que reenviar');
    const english = new Browser(t.app, { 'accept-language': 'en' });
    await english.login('owner@uno.example');
    expect((await english.get('/console/email')).body).toContain('Address to forward to');

    const agent = await loggedIn(t.app, 'agent@uno.example');
    const seen = await agent.get('/console/email');
    expect(seen.statusCode).toBe(200);
    expect(seen.body).not.toContain(token);
  });
});

describe.skipIf(!HERE)('mailboxes read over IMAP, on the e-mail page', () => {
  const form = (over: Partial<Record<string, string>> = {}): Record<string, string> => ({
    host: '127.0.0.1',
    port: String(dovecot.port),
    security: 'none',
    user: dovecot.user,
    password: dovecot.password,
    folder: 'INBOX',
    ...over,
  });
  const pulls = () => t.db.selectFrom('email_pulls').selectAll().orderBy('id').execute();
  const audit = () => t.db.selectFrom('audit_log').selectAll().where('action', 'like', 'email.pull%').orderBy('id').execute();

  it('an owner adds one (its password sealed, never shown), tests it, and removes it; each in the audit trail without secrets', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const ownerId = (await t.db.selectFrom('users').select('id').where('email', '=', 'owner@uno.example').executeTakeFirstOrThrow()).id;
    const added = await owner.submit('/console/email', '/console/email/pulls', form());
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe('/console/email?pull_added=1');
    const [pull] = await pulls();
    expect(pull).toMatchObject({
      business_id: t.businessId,
      url: `imap://agent%40example.test@127.0.0.1:${dovecot.port}/INBOX`,
      removed_at: null,
    });
    expect(pull.password_sealed).not.toContain(dovecot.password);
    const page = await owner.get('/console/email?pull_added=1');
    expect(page.body).toContain('Buzón añadido');
    expect(page.body).toContain(`127.0.0.1:${dovecot.port}/INBOX`);
    expect(page.body).not.toContain(dovecot.password);

    const tested = await owner.submit('/console/email', `/console/email/pulls/${pull.id}/test`, {});
    expect(tested.statusCode).toBe(200);
    expect(tested.body).toContain('Conectado: inmo ha iniciado sesión y ha abierto la carpeta.');

    const removed = await owner.submit('/console/email', `/console/email/pulls/${pull.id}/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect((await pulls())[0].removed_at).not.toBeNull();
    expect((await owner.get('/console/email?pull_removed=1')).body).toContain('Buzón quitado');
    expect((await owner.submit('/console/email', `/console/email/pulls/${pull.id}/remove`, {})).statusCode).toBe(404);
    expect((await owner.submit('/console/email', `/console/email/pulls/${pull.id}/test`, {})).statusCode).toBe(404);

    const entries = await audit();
    expect(entries.map((e) => [e.action, e.actor_type, e.actor_id, e.target_type, e.target_id])).toEqual([
      ['email.pull_add', 'user', String(ownerId), 'email_pull', String(pull.id)],
      ['email.pull_remove', 'user', String(ownerId), 'email_pull', String(pull.id)],
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/agent@example|imap-test-password|127\.0\.0\.1/);
    expect((await owner.get('/console/audit')).body).toContain('Añadió un buzón para leer');
  });

  it('says in words what failed: a wrong password, a folder that is not there, a port where nothing listens', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const testOf = async (over: Record<string, string>) => {
      expect((await owner.submit('/console/email', '/console/email/pulls', form(over))).statusCode).toBe(303);
      const id = (await pulls()).at(-1)!.id;
      const tested = await owner.submit('/console/email', `/console/email/pulls/${id}/test`, {});
      expect(tested.statusCode).toBe(502);
      return /id="email-pull-test">([^<]*)</.exec(tested.body)?.[1];
    };
    expect(await testOf({ password: 'not-the-password' })).toBe('La prueba falló: el servidor rechazó el usuario o la contraseña.');
    expect(await testOf({ folder: 'Portales' })).toBe('La prueba falló: la carpeta no existe en el servidor.');
    const closed = await testOf({ port: '1' });
    expect(closed).toBe('La prueba falló: el servidor rechazó la conexión: revisa el nombre y el puerto.');
  });

  it('refuses bad fields, no CSRF token, an agent, another business’s mailbox and a private server, changing nothing', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const agent = await loggedIn(t.app, 'agent@uno.example');
    expect((await owner.submit('/console/email', '/console/email/pulls', form())).statusCode).toBe(303);
    const id = (await pulls()).at(-1)!.id;
    const before = await snapshot(t.db);
    const bads: Array<Record<string, string>> = [
      { host: 'a b' },
      { port: '70000' },
      { user: '' },
      { password: '' },
      { host: 'x'.repeat(300) },
    ];
    for (const bad of bads) {
      const refused = await owner.submit('/console/email', '/console/email/pulls', form(bad));
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('id="email-pull-problem"');
      expect(refused.body).not.toContain(dovecot.password);
    }
    expect((await owner.request('POST', '/console/email/pulls', form())).statusCode).toBe(403);
    expect((await owner.request('POST', `/console/email/pulls/${id}/remove`, {})).statusCode).toBe(403);
    expect((await agent.submit('/console/email', '/console/email/pulls', form())).statusCode).toBe(403);
    expect((await agent.submit('/console/email', `/console/email/pulls/${id}/test`, {})).statusCode).toBe(403);
    expect((await agent.submit('/console/email', `/console/email/pulls/${id}/remove`, {})).statusCode).toBe(403);
    expect((await owner.submit('/console/email', '/console/email/pulls/999999/remove', {})).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
    const other = await businessWithKey(t.db, 'Otra Agencia');
    const theirs = await addEmailPull(t.db, { businessId: other.businessId, url: dovecot.url }, outbound);
    const withTheirs = await snapshot(t.db);
    expect((await owner.submit('/console/email', `/console/email/pulls/${theirs.id}/test`, {})).statusCode).toBe(404);
    expect((await owner.submit('/console/email', `/console/email/pulls/${theirs.id}/remove`, {})).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(withTheirs);

    // Where private networks are not allowed: neither a loopback server nor plain IMAP.
    const strictOwner = await loggedIn(strict.app, 'owner@uno.example');
    const strictBefore = await snapshot(strict.db);
    for (const over of [
      { security: 'tls', port: '993' },
      { host: 'imap.example.com', security: 'none' },
    ]) {
      const refused = await strictOwner.submit('/console/email', '/console/email/pulls', form(over));
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('Ese servidor no está permitido');
    }
    expect(await snapshot(strict.db)).toBe(strictBefore);
  });
});
