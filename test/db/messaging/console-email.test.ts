/**
 * The console's e-mail page (CONTRACT §19). Owners set the SMTP server with a CSRF-checked
 * form, its password write-only (never shown again, blank keeps it), and the test button sends
 * a real e-mail to the SMTP server on loopback (test/helpers/smtp.ts); they make and revoke the
 * inbound addresses. Every user sees the e-mails not understood, makes a lead of one by hand
 * (a known person gets the request in their history instead) or discards it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { InmoError } from '../../../src/errors.ts';
import { createInboundAddress, makeLeadFromEmail } from '../../../src/services/leads/email-intake.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { businessWithKey, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const t = withApp({
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
    await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
  },
});
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(async () => {
  await smtp.close();
});

describe('the console e-mail page', () => {
  it('sets the SMTP server with a write-only password and sends a test e-mail', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const empty = await owner.get('/console/email');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('href="/console/email" aria-current="page"');
    const form = {
      host: '127.0.0.1',
      port: String(smtp.port),
      security: 'starttls',
      user: SMTP_USER,
      password: SMTP_PASSWORD,
      from: 'hola@uno.example',
      reply_to: '',
    };
    const saved = await owner.submit('/console/email', '/console/email', form);
    expect(saved.statusCode).toBe(303);
    const page = await owner.get('/console/email?saved=1');
    expect(page.body).toContain(`127.0.0.1:${smtp.port}`);
    expect(page.body).not.toContain(SMTP_PASSWORD);
    // Saved again with the password blank: the stored one is kept.
    expect((await owner.submit('/console/email', '/console/email', { ...form, password: '', from: 'info@uno.example' })).statusCode).toBe(
      303,
    );
    const test = await owner.submit('/console/email', '/console/email/test', { test_to: 'ana@example.com' });
    expect(test.statusCode).toBe(200);
    expect(smtp.received.map((r) => [r.to[0], r.mail.from?.value[0].address])).toEqual([['ana@example.com', 'info@uno.example']]);
    expect(smtp.received[0].mail.text).toBeTruthy();
    expect(smtp.received[0].mail.html).toBeTruthy();
    // In the page's language (issue 57), not English on a Spanish page.
    expect(smtp.received[0].mail.subject).toMatch(/: correo de prueba$/);
    expect(smtp.received[0].mail.text).toMatch(/^Este es un correo de prueba de .+, enviado por inmo\./);
  });

  it('refuses bad fields, a form without its CSRF token and an agent, changing nothing', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const agent = new Browser(t.app);
    await agent.login('agent@uno.example');
    const before = await snapshot(t.db);
    const base = { host: 'smtp.uno.example', port: '465', security: 'tls', user: '', password: '', from: 'hola@uno.example', reply_to: '' };
    expect((await owner.submit('/console/email', '/console/email', { ...base, port: 'x' })).statusCode).toBe(422);
    expect((await owner.submit('/console/email', '/console/email', { ...base, from: 'no' })).statusCode).toBe(422);
    expect((await owner.submit('/console/email', '/console/email', { ...base, host: 'a b' })).statusCode).toBe(422);
    expect((await owner.submit('/console/email', '/console/email/test', { test_to: 'no' })).statusCode).toBe(422);
    expect((await owner.request('POST', '/console/email', base)).statusCode).toBe(403);
    expect((await agent.submit('/console/email', '/console/email', base)).statusCode).toBe(403);
    expect((await agent.submit('/console/email', '/console/email/test', { test_to: 'ana@example.com' })).statusCode).toBe(403);
    expect((await agent.submit('/console/email', '/console/email/addresses', {})).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('shows an agent the e-mails to review, without the owner’s settings and addresses', async () => {
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const page = await agent.get('/console/email');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/console/email" aria-current="page"');
    expect(page.body).toContain('Correos por revisar');
    expect(page.body).not.toContain('action="/console/email"');
    expect(page.body).not.toContain('action="/console/email/addresses"');
  });
});

describe('the e-mails not understood', () => {
  /** Posts each raw message to a new address of the business and reads them: their ids, in order. */
  async function arrive(...raws: string[]): Promise<number[]> {
    const { url } = await createInboundAddress(t.db, t.businessId);
    const before = (await t.db.selectFrom('inbound_emails').select('id').execute()).length;
    for (const raw of raws) {
      const response = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'message/rfc822' }, payload: raw });
      expect(response.statusCode).toBe(202);
    }
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const rows = await t.db.selectFrom('inbound_emails').select(['id', 'state']).orderBy('id').execute();
    expect(rows.slice(before).map((r) => r.state)).toEqual(raws.map(() => 'not_understood'));
    return rows.slice(before).map((r) => r.id);
  }
  const emailRow = (id: number) => t.db.selectFrom('inbound_emails').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const mail = (id: string, subject: string, body: string) =>
    `From: Portal <avisos@portal.example>\r\nTo: info@uno.example\r\nMessage-ID: <${id}@portal.example>\r\nSubject: ${subject}\r\n` +
    `Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;

  it('lists each with its sender, subject and reason in words; an agent makes the lead by hand from what was found', async () => {
    await importRecords(t.db, t.businessId, [
      listing('ZGZ-77', { operation: 'venta', type: 'apartamento', city: 'Zaragoza', price: 200000 }),
    ]);
    const [id] = await arrive(
      mail(
        'sin-tel-1',
        'Interesado en ZGZ-77',
        'Nombre: Carmen Ruiz\nEmail: carmen@correo.example\nReferencia: ZGZ-77\nMensaje: Llamadme por la tarde',
      ),
    );
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const list = await agent.get('/console/email');
    expect(list.body).toContain(`href="/console/email/messages/${id}"`);
    expect(list.body).toContain('Interesado en ZGZ-77');
    expect(list.body).toContain('avisos@portal.example');
    expect(list.body).toContain('No aparece ningún teléfono y un contacto lo necesita');
    expect(list.body).not.toContain('a lead needs one');

    const page = await agent.get(`/console/email/messages/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Llamadme por la tarde');
    expect(page.body).toContain('value="Carmen Ruiz"');
    expect(page.body).toContain('value="carmen@correo.example"');
    expect(page.body).toContain('value="ZGZ-77"');

    const form = {
      name: 'Carmen Ruiz',
      phone: '976 123 456',
      email: 'carmen@correo.example',
      message: 'Llamadme por la tarde',
      reference: 'ZGZ-77',
      source: 'idealista',
    };
    const made = await agent.submit(`/console/email/messages/${id}`, `/console/email/messages/${id}/lead`, form);
    expect(made.statusCode).toBe(303);
    const leadId = Number(/^\/console\/leads\/(\d+)$/.exec(made.headers.location as string)?.[1]);
    const lead = await t.db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
    expect([lead.name, lead.phone_number_1, lead.personal_email, lead.source, lead.type]).toEqual([
      'Carmen Ruiz',
      '+34976123456',
      'carmen@correo.example',
      'idealista',
      'demandante',
    ]);
    expect(JSON.parse(lead.search_preferences!)).toEqual([
      expect.objectContaining({ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Zaragoza' }] }),
    ]);
    const notes = await t.db.selectFrom('lead_notes').select('text').where('lead_id', '=', leadId).execute();
    expect(notes.map((n) => n.text).join('\n')).toMatch(/completada a mano[\s\S]*Llamadme por la tarde/);
    const jobs = await t.db.selectFrom('jobs').select('kind').where('lead_id', '=', leadId).execute();
    expect(jobs.map((j) => j.kind)).toContain('match_lead');
    expect(await emailRow(id)).toMatchObject({ state: 'lead', lead_id: leadId, reason: null });
    // Handled: it waits no more, and its page and forms are gone.
    expect((await agent.get('/console/email')).body).not.toContain(`/console/email/messages/${id}"`);
    const before = await snapshot(t.db);
    expect((await agent.get(`/console/email/messages/${id}`)).statusCode).toBe(404);
    expect(
      (await agent.request('POST', `/console/email/messages/${id}/lead`, { _csrf: await agent.token('/console/email'), ...form }))
        .statusCode,
    ).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('adds the request of a known person to their history, changing nothing of the lead', async () => {
    const known = await post(t.app, '/leads/inquiries', t.key, { name: 'Pedro Sanz', type: 'buyer', phone_number_1: '+34 699 888 777' });
    expect(known.status).toBe(200);
    const leadId = known.body.lead_id as number;
    const before = await t.db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
    const [id] = await arrive(mail('sin-nombre-2', 'Consulta', 'Mensaje: ¿Sigue disponible?'));
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const made = await agent.submit(`/console/email/messages/${id}`, `/console/email/messages/${id}/lead`, {
      name: 'Pedro',
      phone: '699888777',
      email: '',
      message: '¿Sigue disponible?',
      reference: '',
      source: 'fotocasa',
    });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe(`/console/leads/${leadId}`);
    expect(await t.db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow()).toEqual(before);
    const interactions = await t.db.selectFrom('lead_interactions').select(['channel', 'source']).where('lead_id', '=', leadId).execute();
    expect(interactions).toEqual([{ channel: 'email', source: 'fotocasa' }]);
    expect(await emailRow(id)).toMatchObject({ state: 'interaction', lead_id: leadId });
  });

  it('refuses a bad phone, a missing name, an unknown source, no CSRF token and another business’s e-mail, storing nothing', async () => {
    const [id] = await arrive(mail('sin-tel-3', 'Hola', 'Nombre: Luis'));
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const page = `/console/email/messages/${id}`;
    const action = `${page}/lead`;
    const good = { name: 'Luis', phone: '+34 612 000 111', email: '', message: '', reference: '', source: 'email' };
    const other = await businessWithKey(t.db, 'Otra agencia');
    await userWithPassword(t.db, other.businessId, 'agent@otra.example', 'agent');
    const stranger = await loggedIn(t.app, 'agent@otra.example');
    const before = await snapshot(t.db);
    const badPhone = await agent.submit(page, action, { ...good, phone: '12' });
    expect(badPhone.statusCode).toBe(422);
    expect(badPhone.body).toContain('El teléfono no es válido');
    expect(badPhone.body).toContain('aria-invalid="true"');
    expect((await agent.submit(page, action, { ...good, name: ' ' })).statusCode).toBe(422);
    expect((await agent.submit(page, action, { ...good, source: 'web' })).statusCode).toBe(422);
    expect((await agent.request('POST', action, good)).statusCode).toBe(403);
    expect((await agent.request('POST', `${page}/discard`, {})).statusCode).toBe(403);
    // Another business's agent finds nothing at that address.
    expect((await stranger.get(page)).statusCode).toBe(404);
    expect((await stranger.request('POST', action, { _csrf: await stranger.token('/console/email'), ...good })).statusCode).toBe(404);
    expect((await stranger.request('POST', `${page}/discard`, { _csrf: await stranger.token('/console/email') })).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('makes one lead when two agents make it at once: the other is told it was handled', async () => {
    const [id] = await arrive(mail('doble-5', 'Consulta doble', 'Nombre: Rosa'));
    const form = { name: 'Rosa', phone: '+34 622 333 444', email: null, message: null, reference: null, source: 'habitaclia' };
    const results = await Promise.allSettled([
      makeLeadFromEmail(t.db, t.businessId, id, form),
      makeLeadFromEmail(t.db, t.businessId, id, { ...form, name: 'Rosa M.' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected')!.reason;
    expect(refused).toBeInstanceOf(InmoError);
    expect(['EMAIL_MESSAGE_HANDLED', 'EMAIL_MESSAGE_NOT_FOUND']).toContain(refused.code);
    const leads = await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', '+34622333444').execute();
    expect(leads).toHaveLength(1);
    expect(await t.db.selectFrom('lead_interactions').select('id').where('lead_id', '=', leads[0].id).execute()).toEqual([]);
    expect(await emailRow(id)).toMatchObject({ state: 'lead', lead_id: leads[0].id });
  });

  it('discards one: it waits no more and is kept, as discarded, until its 30 days are over', async () => {
    const [id] = await arrive(mail('publi-4', 'Oferta para profesionales', 'Contrata ahora el plan premium.'));
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const discarded = await agent.submit(`/console/email/messages/${id}`, `/console/email/messages/${id}/discard`, {});
    expect(discarded.statusCode).toBe(303);
    expect(discarded.headers.location).toBe('/console/email?discarded=1');
    expect(await emailRow(id)).toMatchObject({ state: 'discarded', reason: 'discarded by an agent', lead_id: null });
    const list = await agent.get('/console/email?discarded=1');
    expect(list.body).toContain('Correo descartado.');
    expect(list.body).not.toContain(`/console/email/messages/${id}"`);
    expect((await agent.submit('/console/email', `/console/email/messages/${id}/discard`, {})).statusCode).toBe(404);
  });
});

describe('the inbound addresses on the e-mail page', () => {
  it('an owner makes one, shown as a full URL that takes e-mails (without the SMTP listener), and revokes it', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const made = await owner.submit('/console/email', '/console/email/addresses', {});
    expect(made.statusCode).toBe(201);
    const url = /id="email-inbound-url" readonly value="([^"]+)"/.exec(made.body)?.[1];
    expect(url).toMatch(/^http:\/\/[^/]+\/webhooks\/email\/[A-Za-z0-9]{43}$/);
    const path = new URL(url!).pathname;
    const posted = (payload: string) => t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'message/rfc822' }, payload });
    expect((await posted('From: a@b.example\r\nSubject: x\r\n\r\nhola\r\n')).statusCode).toBe(202);
    // Shown again on every visit until it is revoked (migration 0054, CONTRACT §25); no SMTP address without the listener.
    const page = await owner.get('/console/email');
    expect(page.body).toContain(path);
    expect(page.body).not.toContain('id="email-inbound-address"');
    const [address] = await t.db
      .selectFrom('inbound_email_tokens')
      .select('id')
      .where('business_id', '=', t.businessId)
      .orderBy('id', 'desc')
      .execute();
    const revoked = await owner.submit('/console/email', `/console/email/addresses/${address.id}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    const after = await owner.get('/console/email?revoked=1');
    expect(after.body).toContain('Dirección revocada');
    expect(after.body).not.toContain(path);
    expect((await posted('From: a@b.example\r\nSubject: y\r\n\r\nhola\r\n')).statusCode).toBe(404);
    expect((await owner.submit('/console/email', '/console/email/addresses/999999/revoke', {})).statusCode).toBe(404);
  });
});
