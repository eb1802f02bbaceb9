/**
 * The lead is told of its viewings (CONTRACT §20, issue 44) on both engines: by the business's
 * approved WhatsApp templates (the fake Graph API, test/helpers/fake-servers.graph.ts) with the date, time,
 * listing and place as privacy allows and two quick-reply buttons whose replies (signed webhook
 * deliveries, test/helpers/whatsapp.ts) confirm or cancel; else by e-mail (a real SMTP server,
 * test/helpers/servers.smtp.ts) whose one-click links do the same; a reminder once when due by a fixed
 * clock, again after a move, never for a cancelled viewing; a crash between the send and its
 * record never sends twice.
 *
 * "Now" is vitest's fake `Date` (only `Date`): Friday 20 March 2026, 10:00 in Madrid (winter
 * time, +01:00); the viewings are on Monday 23 March.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { changeViewing } from '../../../src/services/viewings/transitions.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { inmo } from '../../helpers/cli.ts';
import { post, withApp } from '../../helpers/http.ts';
import { runCrashableWorker } from '../../helpers/processes.ts';
import { withNoticeServers } from '../../helpers/notice-servers.ts';
import { connectFakeChannel, deliver, inbound, PHONE_NUMBER_ID } from '../../helpers/whatsapp.ts';

const NOW = '2026-03-20T09:00:00Z';
/** Monday 23 March 2026, 10:00 in Madrid. */
const MONDAY_10 = '2026-03-23T10:00:00+01:00';
const TEMPLATES = {
  viewing_scheduled: 'visita_programada',
  viewing_rescheduled: 'visita_cambiada',
  viewing_cancelled: 'visita_cancelada',
  viewing_reminder: 'visita_recordatorio',
};

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      listing('PISO-1', { title: 'Piso en Delicias', titles: { es: 'Piso en Delicias', en: 'Flat in Delicias' } }),
      listing('PISO-2', { title: 'Ático escondido', address_privacy: 'hidden' }),
    ]);
    await createUser(db, { businessId, email: 'bea@inmo.example', role: 'agent' });
  },
});

const servers = withNoticeServers(NOW);
let phones = 0;
/** The worker's clock; a minute ahead of "now" unless a test moves it. */
let clock: ManualClock;

beforeEach(() => {
  clock = new ManualClock(new Date(Date.parse(NOW) + 60_000));
});

const drain = (hours = 24) =>
  new Worker({ db: t.db, clock, settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3, viewingReminderHours: hours } }).drain();

const whatsapp = (templates: Record<string, string> = TEMPLATES) =>
  connectFakeChannel(t.db, t.businessId, servers.graph.baseUrl, { templates });

const email = () => connectEmail(t.db, { businessId: t.businessId, url: servers.smtp.url, from: 'hola@agency.example', replyTo: null });

/** Books a viewing through the API (a secret key: `scheduled`) for a new lead. @returns the viewing's and the lead's ids and the lead's WhatsApp id. */
async function book(fields: Record<string, unknown> = {}, ref = 'PISO-1', startsAt = MONDAY_10) {
  const phone = `61280${String(++phones).padStart(4, '0')}`;
  const response = await post(t.app, '/viewings', t.key, {
    property_id: await propertyId(t.db, ref),
    starts_at: startsAt,
    lead: {
      name: 'Lucía Gómez',
      phone_number_1: `+34${phone}`,
      personal_email: `lucia${phones}@example.com`,
      consent: { marketing: false, whatsapp: true, text: 'Acepto que me contacten.', version: 'v1' },
      ...fields,
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const viewing = await t.db.selectFrom('viewings').selectAll().where('id', '=', response.body.id).executeTakeFirstOrThrow();
  return { id: viewing.id, leadId: viewing.lead_id, waId: `34${phone}`, e164: `+34${phone}` };
}

const status = async (id: number) =>
  (await t.db.selectFrom('viewings').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
/** The templates sent, by name, in order. */
const sent = (name?: string) =>
  servers.graph.requests.filter((r) => r.body?.type === 'template' && (name === undefined || r.body.template.name === name));
const updates = async (id: number) =>
  (await t.db.selectFrom('events').select('data').where('type', '=', 'viewing.updated').orderBy('id').execute())
    .map((e) => JSON.parse(e.data).viewing)
    .filter((v: { id: number }) => v.id === id)
    .map((v: { status: string }) => v.status);

/** The texts sent to leads, in order. */
const texts = () => servers.graph.requests.filter((r) => r.body?.type === 'text').map((r) => r.body.text.body as string);

/** A quick-reply button's reply, as WhatsApp posts it (again: `delivery`, the same bytes). @returns the delivery. */
async function press(
  waId: string,
  text: string,
  payload: string,
  delivery = inbound({ from: waId, type: 'button', part: { text, payload } }),
) {
  const response = await deliver(t.app, delivery);
  expect(response.statusCode).toBe(200);
  await drain();
  return delivery;
}

describe('by WhatsApp', () => {
  it('scheduling through the API sends the template with date, time, listing, address and two buttons; “Confirmar” confirms', async () => {
    await whatsapp();
    const { id, waId, e164 } = await book();
    await drain();
    const [notice] = sent('visita_programada');
    expect(notice.body.to).toBe(e164);
    expect(notice.body.template).toEqual({
      name: 'visita_programada',
      language: { code: 'es' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'lunes, 23 de marzo' },
            { type: 'text', text: '10:00' },
            { type: 'text', text: 'Piso en Delicias' },
            { type: 'text', text: 'Calle Mayor 1, Madrid' },
          ],
        },
        { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: `viewing:${id}:confirm` }] },
        { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: `viewing:${id}:cancel` }] },
      ],
    });
    const message = await t.db.selectFrom('messages').selectAll().where('author', '=', 'viewing').executeTakeFirstOrThrow();
    expect(message).toMatchObject({ kind: 'template', state: 'sent', template: 'visita_programada' });

    const delivery = await press(waId, 'Confirmar', `viewing:${id}:confirm`);
    expect(await status(id)).toBe('confirmed');
    expect(await updates(id)).toEqual(['confirmed']);
    // The answer is applied and acknowledged in the lead's language, not answered by the assistant.
    expect(texts()).toEqual(['Hecho: tu visita a Piso en Delicias del lunes, 23 de marzo a las 10:00 queda confirmada. ¡Te esperamos!']);
    expect(sent()).toHaveLength(2); // the welcome and the notice
    // The same reply delivered again changes nothing.
    await press(waId, 'Confirmar', `viewing:${id}:confirm`, delivery);
    expect(await updates(id)).toEqual(['confirmed']);
    expect(texts()).toHaveLength(1);
  });

  it('booking from the console’s lead page sends the template too', async () => {
    await whatsapp();
    const ana = await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
    const owner = await loggedIn(t.app, 'ana@inmo.example');
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34600111001', name: 'Lucía Beatriz' })).id;
    const booked = await owner.submit(`/console/leads/${lead}`, `/console/leads/${lead}/viewings`, {
      property_id: String(await propertyId(t.db, 'PISO-1')),
      date: '2026-03-23',
      time: '11:30',
      user_id: String(ana.id),
    });
    expect(booked.statusCode).toBe(303);
    await drain();
    const [notice] = sent('visita_programada');
    expect(notice.body.to).toBe('+34600111001');
    expect(notice.body.template.components[0].parameters[1]).toEqual({ type: 'text', text: '11:30' });
  });

  it('“Cancelar” cancels; a button without our payload answers the lead’s next viewing; another lead’s payload does nothing', async () => {
    await whatsapp();
    const lucia = await book();
    const mario = await book({ name: 'Mario Ruiz' }, 'PISO-1', '2026-03-23T11:00:00+01:00');
    await drain();
    await press(mario.waId, 'Cancelar', `viewing:${lucia.id}:cancel`);
    expect(await status(lucia.id)).toBe('scheduled');
    await press(lucia.waId, 'Cancelar', `viewing:${lucia.id}:cancel`);
    expect(await status(lucia.id)).toBe('cancelled');
    // The lead's own cancellation is not told back to them.
    expect(sent('visita_cancelada')).toHaveLength(0);
    await press(mario.waId, 'Confirmar', 'Confirmar');
    expect(await status(mario.id)).toBe('confirmed');
    // Each answer is acknowledged; a cancelled viewing's "Confirmar" says it was cancelled.
    await press(lucia.waId, 'Confirmar', `viewing:${lucia.id}:confirm`);
    expect(await status(lucia.id)).toBe('cancelled');
    expect(texts()).toEqual([
      'Hecho: tu visita a Piso en Delicias del lunes, 23 de marzo a las 10:00 queda cancelada. Tu agente lo sabe.',
      'Hecho: tu visita a Piso en Delicias del lunes, 23 de marzo a las 11:00 queda confirmada. ¡Te esperamos!',
      'Esta visita ya estaba cancelada. Si quieres otra fecha, contesta a nuestro mensaje.',
    ]);
  });

  it('moving and cancelling (the console’s changes) tell the lead; a hidden address says the agent sends the meeting point, in English', async () => {
    await whatsapp();
    const { id } = await book({ preferred_language: 'gb' }, 'PISO-2');
    await drain();
    const params = (name: string) => sent(name)[0].body.template.components[0].parameters.map((p: { text: string }) => p.text);
    expect(sent('visita_programada')[0].body.template.language).toEqual({ code: 'en' });
    expect(params('visita_programada')).toEqual([
      'Monday, March 23',
      '10:00',
      'Ático escondido',
      'Your agent will send you the meeting point.',
    ]);

    await changeViewing(t.db, t.businessId, id, { action: 'reschedule', startsAt: Date.parse('2026-03-24T12:00:00+01:00') });
    await drain();
    expect(params('visita_cambiada').slice(0, 2)).toEqual(['Tuesday, March 24', '12:00']);
    await changeViewing(t.db, t.businessId, id, { action: 'cancel' });
    await drain();
    expect(params('visita_cancelada').slice(0, 2)).toEqual(['Tuesday, March 24', '12:00']);
    // A cancellation asks nothing: no buttons.
    expect(sent('visita_cancelada')[0].body.template.components).toHaveLength(1);
    expect((await t.db.selectFrom('viewing_notices').select('purpose').orderBy('id').execute()).map((n) => n.purpose)).toEqual([
      'scheduled',
      'rescheduled',
      'cancelled',
    ]);
  });

  it('reminds once when due by a fixed clock, again after a move, never a cancelled viewing', async () => {
    await whatsapp();
    const { id } = await book();
    const other = await book({ name: 'Mario Ruiz' }, 'PISO-1', '2026-03-23T12:00:00+01:00');
    await drain();
    expect(sent('visita_recordatorio')).toHaveLength(0);
    await changeViewing(t.db, t.businessId, other.id, { action: 'cancel' });
    // 25 hours before: not yet; 23 hours before: due, once however often the worker looks.
    clock.set('2026-03-22T08:00:00Z');
    await drain();
    expect(sent('visita_recordatorio')).toHaveLength(0);
    clock.set('2026-03-22T10:00:00Z');
    await drain();
    await drain();
    expect(sent('visita_recordatorio')).toHaveLength(1);
    expect(sent('visita_recordatorio')[0].body.template.components[0].parameters[1].text).toBe('10:00');
    expect(sent('visita_recordatorio')[0].body.template.components).toHaveLength(3);

    // Moved to the next day: a new reminder, due by the new time.
    await changeViewing(
      t.db,
      t.businessId,
      id,
      { action: 'reschedule', startsAt: Date.parse('2026-03-24T17:00:00+01:00') },
      { now: Date.parse('2026-03-22T10:00:00Z') },
    );
    await drain();
    expect(sent('visita_cambiada')).toHaveLength(1);
    clock.set('2026-03-23T17:00:00Z');
    await drain();
    await drain();
    expect(sent('visita_recordatorio')).toHaveLength(2);
    expect(sent('visita_recordatorio')[1].body.template.components[0].parameters[1].text).toBe('17:00');
    const reminders = await t.db.selectFrom('viewing_notices').selectAll().where('purpose', '=', 'reminder').orderBy('id').execute();
    expect(reminders.map((r) => [r.viewing_id, r.starts_at])).toEqual([
      [id, '2026-03-23T09:00:00.000+00:00'],
      [id, '2026-03-24T16:00:00.000+00:00'],
    ]);
  });

  it('a viewing booked within the reminder hours is not reminded again of what the lead was just told', async () => {
    await whatsapp();
    clock.set('2026-03-22T10:00:00Z');
    vi.setSystemTime(new Date('2026-03-22T10:00:00Z'));
    await book();
    await drain();
    await drain();
    expect(sent('visita_programada')).toHaveLength(1);
    expect(sent('visita_recordatorio')).toHaveLength(0);
  });
});

/** The links of an e-mail's text part, by their label. */
function links(mail: ParsedMail): { confirm: string; cancel: string } {
  const confirm = /Confirmar: (\S+)/.exec(mail.text ?? '')?.[1];
  const cancel = /Cancelar: (\S+)/.exec(mail.text ?? '')?.[1];
  expect(confirm && cancel, mail.text).toBeTruthy();
  return { confirm: new URL(confirm!).pathname, cancel: new URL(cancel!).pathname };
}

const page = (method: 'GET' | 'POST', path: string) => t.app.inject({ method, url: path });

describe('by e-mail', () => {
  it('a lead without a channel gets an e-mail whose link shows the viewing and confirms it with its button', async () => {
    await email();
    const { id, leadId } = await book();
    await drain();
    const mails = servers.smtp.received.filter((r) => r.mail.subject?.includes('visita'));
    expect(mails).toHaveLength(1);
    const mail = mails[0].mail;
    expect(mail.subject).toBe('Tu visita del lunes, 23 de marzo a las 10:00');
    expect(mail.text).toContain('Hemos reservado tu visita a Piso en Delicias el lunes, 23 de marzo a las 10:00.');
    expect(mail.text).toContain('Dirección: Calle Mayor 1, Madrid');
    expect(mail.html).toContain('Confirmar</a>');
    expect(mails[0].raw.replace(/\r?\n[ \t]+/g, ' ')).toMatch(/^List-Unsubscribe: <http:\/\/[^>]+\/u\/[A-Za-z0-9_-]{43}>/m);
    const { confirm, cancel } = links(mail);
    // Only the hashes are kept.
    const stored = await t.db.selectFrom('viewing_links').selectAll().execute();
    expect(stored.map((l) => l.action).sort()).toEqual(['cancel', 'confirm']);
    expect(stored.some((l) => confirm.includes(l.token_hash))).toBe(false);

    const shown = await page('GET', confirm);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('¿Confirmas tu visita a Piso en Delicias el lunes, 23 de marzo a las 10:00?');
    expect(shown.body).toContain(`<form method="post" action="${confirm}">`);
    expect(await status(id)).toBe('scheduled');

    const done = await page('POST', confirm);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Hecho: tu visita a Piso en Delicias del lunes, 23 de marzo a las 10:00 queda confirmada.');
    expect(await status(id)).toBe('confirmed');
    expect(await updates(id)).toEqual(['confirmed']);
    expect((await page('POST', confirm)).body).toContain('queda confirmada');
    expect(await updates(id)).toEqual(['confirmed']);

    // The lead changes their mind: the other link cancels; the first then says so.
    expect((await page('POST', cancel)).body).toContain('queda cancelada');
    expect(await status(id)).toBe('cancelled');
    expect((await page('GET', confirm)).body).toContain('Esta visita ya estaba cancelada.');
    expect((await page('GET', '/v/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).statusCode).toBe(404);
    // The e-mail is in the lead's conversation.
    const thread = await t.db.selectFrom('messages').selectAll().where('lead_id', '=', leadId).where('author', '=', 'viewing').execute();
    expect(thread.map((m) => [m.kind, m.state])).toEqual([['email', 'sent']]);
    // Kept without the links' tokens (capabilities: only their hashes are stored).
    expect(thread[0].body).toContain('/v/…');
    expect(await snapshot(t.db)).not.toContain(confirm.slice(3));
  });

  it('a purpose the channel names no template for goes by e-mail, in the lead’s language', async () => {
    await whatsapp({ viewing_scheduled: 'visita_programada' });
    await email();
    const { id } = await book({ preferred_language: 'fr' });
    await drain();
    expect(sent('visita_programada')).toHaveLength(1);
    await changeViewing(t.db, t.businessId, id, { action: 'cancel' });
    await drain();
    const cancelled = servers.smtp.received.filter((r) => r.mail.subject?.startsWith('Visite annulée'));
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].mail.text).toContain('Votre visite de Piso en Delicias du lundi 23 mars à 10:00 est annulée.');
    expect(cancelled[0].mail.text).not.toContain('/v/');
  });

  it('a template WhatsApp refuses for good is replaced by one e-mail', async () => {
    await whatsapp();
    await email();
    const inquiry = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Lucía Gómez',
      phone_number_1: '+34612809998',
      personal_email: 'lucia@example.com',
      type: 'demandante',
    });
    expect(inquiry.status).toBe(200);
    await drain(); // its welcome template
    servers.graph.script.push({
      status: 400,
      body: { error: { message: 'Template name does not exist in the translation', code: 132001 } },
    });
    const booked = await post(t.app, '/viewings', t.key, {
      property_id: await propertyId(t.db, 'PISO-1'),
      starts_at: MONDAY_10,
      lead_id: inquiry.body.lead_id,
    });
    expect(booked.status).toBe(201);
    await drain();
    await drain();
    expect(sent('visita_programada')).toHaveLength(1);
    const mails = servers.smtp.received.filter((r) => r.mail.subject?.includes('visita'));
    expect(mails.map((m) => m.to)).toEqual([['lucia@example.com']]);
    expect(mails[0].mail.text).toContain('Confirmar: ');
    const thread = await t.db.selectFrom('messages').selectAll().where('author', '=', 'viewing').orderBy('id').execute();
    expect(thread.map((m) => [m.kind, m.state])).toEqual([
      ['template', 'failed'],
      ['email', 'sent'],
    ]);
    expect(thread[0].last_error).toContain('132001');
  });

  it('a crash between handing the e-mail over and recording it never sends it twice', async () => {
    vi.useRealTimers();
    await email();
    // A real "now": the worker in its own process keeps the real time.
    const monday = new Date(Date.now() + 7 * 86_400_000);
    const response = await t.app.inject({
      method: 'GET',
      url: `/v1/ext/viewings/availability?property_id=${await propertyId(t.db, 'PISO-1')}&from=${monday.toISOString().slice(0, 10)}&days=7`,
      headers: { 'x-api-key': t.key },
    });
    const slot = JSON.parse(response.body).data[0].starts_at as string;
    // The lead and its welcome first, so that the notice is the only send of the crashing worker.
    const inquiry = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Lucía Gómez',
      phone_number_1: '+34612809999',
      personal_email: 'lucia@example.com',
      type: 'demandante',
    });
    expect(inquiry.status, JSON.stringify(inquiry.body)).toBe(200);
    clock = new ManualClock(new Date(Date.now() + 60_000));
    await drain();
    const booked = await post(t.app, '/viewings', t.key, {
      property_id: await propertyId(t.db, 'PISO-1'),
      starts_at: slot,
      lead_id: inquiry.body.lead_id,
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect(await runCrashableWorker(t.db, t.url, 'message:called')).toBe('SIGKILL');
    expect(await runCrashableWorker(t.db, t.url, null)).toBeNull();
    // Handed to the SMTP server once; its outcome unknown to inmo, so never sent again.
    expect(servers.smtp.received.filter((r) => r.mail.subject?.includes('visita'))).toHaveLength(1);
    const message = await t.db.selectFrom('messages').selectAll().where('author', '=', 'viewing').executeTakeFirstOrThrow();
    expect(message.state).toBe('needs_reconciliation');
  }, 120_000);
});

describe('the channel’s templates', () => {
  it('are set by `inmo channel connect --template-for`, checked, kept on a reconnect without them, and shown', async () => {
    const args = (...more: string[]) => [
      'channel',
      'connect',
      '--business',
      String(t.businessId),
      '--provider',
      'whatsapp-cloud',
      '--phone-number-id',
      PHONE_NUMBER_ID,
      '--token-env',
      'WA_TOKEN',
      '--template',
      'bienvenida',
      '--base-url',
      servers.graph.baseUrl,
      '--json',
      ...more,
    ];
    const env = { DATABASE_URL: t.url, WA_TOKEN: 'EAAG-token', INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const first = await inmo(env, ...args('--template-for', 'viewing_reminder=recordatorio', '--template-for', 'property_alert=alerta'));
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).templates).toEqual({ viewing_reminder: 'recordatorio', property_alert: 'alerta' });
    const again = await inmo(env, ...args());
    expect(JSON.parse(again.stdout).templates).toEqual({ viewing_reminder: 'recordatorio', property_alert: 'alerta' });
    const bad = await inmo(env, ...args('--template-for', 'viewing_party=fiesta'));
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toContain('unknown template purpose \\"viewing_party\\"');
    const badName = await inmo(env, ...args('--template-for', 'viewing_reminder=Recordatorio Visita'));
    expect(badName.stdout + badName.stderr).toContain('lower-case letters, digits and underscores');
    const stored = await t.db.selectFrom('channels').select('templates').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.templates)).toEqual({ viewing_reminder: 'recordatorio', property_alert: 'alerta' });
  });

  it('are set on the console’s channel form, shown on its page, and a name WhatsApp would not take is refused with nothing stored', async () => {
    await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
    const owner = await loggedIn(t.app, 'ana@inmo.example');
    const form = {
      phone_number_id: PHONE_NUMBER_ID,
      template: 'bienvenida',
      languages: '',
      listing_url: '',
      base_url: servers.graph.baseUrl,
      access_token: 'EAAG-token',
      app_secret: '',
      template_viewing_scheduled: 'visita_programada',
      template_viewing_rescheduled: '',
      template_viewing_cancelled: '',
      template_viewing_reminder: 'visita_recordatorio',
      template_property_alert: 'alerta_inmuebles',
    };
    const saved = await owner.submit('/console/channel', '/console/channel', form);
    expect(saved.statusCode).toBe(303);
    const page = (await owner.get('/console/channel')).body;
    expect(page).toContain('<dt>Recordatorio de visita</dt><dd>visita_recordatorio</dd>');
    expect(page).toContain('<dt>Visita cancelada</dt><dd>ninguna: va por correo electrónico</dd>');
    expect(page).toContain('name="template_viewing_scheduled" value="visita_programada"');
    const before = await snapshot(t.db);
    const refused = await owner.submit('/console/channel', '/console/channel', { ...form, template_viewing_reminder: 'Recordatorio!' });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('Los nombres de plantilla solo pueden llevar minúsculas, números y guiones bajos.');
    expect(await snapshot(t.db)).toBe(before);
    const stored = await t.db.selectFrom('channels').select('templates').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.templates)).toEqual({
      viewing_scheduled: 'visita_programada',
      viewing_reminder: 'visita_recordatorio',
      property_alert: 'alerta_inmuebles',
    });
  });
});
