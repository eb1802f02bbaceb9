/**
 * Listings sent by hand (CONTRACT §21 "By hand", issue 45): on the lead page an agent ticks
 * matches (or types a reference) and sends them by e-mail, read back from a real SMTP server on
 * loopback (test/helpers/smtp.ts), or by WhatsApp through the fake Graph API
 * (test/helpers/fake-graph.ts) only inside the lead's 24-hour window. Each send is recorded as
 * alerts are, with the agent as its origin: the lead page lists it (when, in the business's time
 * zone; how; by whom; "No me interesa"), `GET /leads/{id}/matches` marks it `sent_at`, and an
 * alert never sends it again. Every refusal is a 422 beside its field that stores nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { DateTime } from 'luxon';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { runAlertsNow } from '../../../src/services/leads/alerts.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { loggedIn, userWithPassword, type Browser } from '../../helpers/console.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.ts';
import { APP_SECRET, PHONE_NUMBER_ID, deliver, inbound, status } from '../../helpers/whatsapp.ts';

const t = withApp({ each: true });
let smtp: TestSmtp;
let graph: FakeGraph;
let phones = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  graph = await startFakeGraph();
});
afterAll(async () => {
  await smtp.close();
  await graph.close();
});
beforeEach(async () => {
  smtp.received.length = 0;
  graph.requests.length = 0;
  await connectEmail(t.db, { businessId: t.businessId, url: smtp.url, from: 'hola@agency.example', replyTo: null });
});

const OUTBOUND = { allowPrivateNetwork: true, channelHosts: [] };

/** Runs every queued job (matching, welcomes, sends) by a clock a minute ahead. */
const drain = () =>
  new Worker({
    db: t.db,
    clock: new ManualClock(new Date(Date.now() + 60_000)),
    settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3, alertHour: 24 },
  }).drain();

/** A searching buyer of a flat in Madrid up to 200,000 €; @returns its id and WhatsApp id. */
async function lead(fields: Record<string, unknown> = {}): Promise<{ id: number; waId: string }> {
  const phone = `+34611700${String(++phones).padStart(3, '0')}`;
  const response = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Marta Ruiz',
    type: 'buyer',
    phone_number_1: phone,
    search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000 } }],
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { id: response.body.lead_id as number, waId: phone.slice(1) };
}

/** Three matching listings and one that is not public, a lead matched to them, and an agent called Lucía logged in. */
async function scene(fields: Record<string, unknown> = { personal_email: 'marta@example.com' }) {
  await importRecords(t.db, t.businessId, [
    listing('H-1', { title: 'Piso luminoso', price: 180_000, size_total: 90, bedrooms: 3 }),
    listing('H-2', { title: 'Piso exterior', price: 170_000 }),
    listing('H-3', { title: 'Ático', price: 190_000 }),
    listing('H-PRIV', { title: 'Privado', price: 150_000, public: false }),
  ]);
  const found = await lead(fields);
  await drain();
  smtp.received.length = 0; // the welcome
  const user = await userWithPassword(t.db, t.businessId, 'lucia@agency.example', 'agent');
  await t.db.updateTable('users').set({ display_name: 'Lucía Gil' }).where('id', '=', user.id).execute();
  const browser = await loggedIn(t.app, 'lucia@agency.example');
  const ids = {
    one: await propertyId(t.db, 'H-1'),
    two: await propertyId(t.db, 'H-2'),
    three: await propertyId(t.db, 'H-3'),
    hidden: await propertyId(t.db, 'H-PRIV'),
  };
  return { lead: found, browser, ids, userId: user.id };
}

/** Posts the lead page's send form with the page's CSRF token. */
const send = (browser: Browser, leadId: number, form: Record<string, string | string[]>) =>
  browser.submit(`/console/leads/${leadId}`, `/console/leads/${leadId}/send`, form);

const mailTo = (address: string): ParsedMail[] => smtp.received.filter((r) => r.to.includes(address)).map((r) => r.mail);
const marksOf = async (leadId: number) => {
  const matches = await get(t.app, `/leads/${leadId}/matches`, t.key);
  expect(matches.status).toBe(200);
  return Object.fromEntries((matches.body.data as Array<{ id: number; sent_at: string | null; dismissed: boolean }>).map((m) => [m.id, m]));
};

/** Connects the fake WhatsApp channel. */
const connectWhatsApp = () =>
  connectChannel(
    t.db,
    {
      businessId: t.businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: PHONE_NUMBER_ID,
      tokenEnv: 'WA_TOKEN',
      appSecretEnv: 'WA_APP_SECRET',
      template: 'bienvenida',
      baseUrl: graph.baseUrl,
    },
    { WA_TOKEN: 'token-de-prueba', WA_APP_SECRET: APP_SECRET },
    OUTBOUND,
  );

describe('listings sent by hand', () => {
  it('by e-mail: two ticked matches reach the lead once, as alert cards with "No me interesa", recorded with the agent as origin', async () => {
    const { lead: marta, browser, ids } = await scene();
    const response = await send(browser, marta.id, { property_id: [String(ids.one), String(ids.two)], property_ref: '', channel: 'email' });
    expect(response.statusCode, response.body).toBe(303);
    expect(response.headers.location).toBe(`/console/leads/${marta.id}#h-alerts`);
    // The same form posted again at once (a double click) is the same send.
    const twice = await send(browser, marta.id, { property_id: [String(ids.two), String(ids.one)], property_ref: '', channel: 'email' });
    expect(twice.statusCode).toBe(303);
    expect(await t.db.selectFrom('alert_digests').select('id').where('origin', '=', 'agent').execute()).toHaveLength(1);
    await drain();
    await drain();
    const [mail, ...more] = mailTo('marta@example.com');
    expect(more).toHaveLength(0);
    expect(mail.subject).toBe('Inmuebles de Inmobiliaria Test seleccionados para ti');
    expect(mail.text).toContain('Hola, Marta Ruiz:');
    expect(mail.text).toContain('Lucía Gil, de Inmobiliaria Test, ha seleccionado para ti estos inmuebles:');
    expect(mail.text).toContain('Piso luminoso');
    expect(mail.text).toContain('Piso exterior');
    expect(mail.text).not.toContain('Ático');
    expect(mail.text).toMatch(/180\.000\s€ · 90 m² · 3 hab\./);
    const page = await listingPageToken(t.db, t.businessId, ids.one);
    expect(mail.text).toContain(`Ver el inmueble: http://127.0.0.1:8080/l/${page}`);
    expect(mail.text!.match(/No me interesa: http:\/\/127\.0\.0\.1:8080\/a\/[A-Za-z0-9_-]{43}/g)).toHaveLength(2);
    expect(mail.html).toContain('No me interesa');
    expect(smtp.received[0].raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);

    // Recorded as alerts are, with the agent as its origin; the message is in the conversation.
    const message = await t.db
      .selectFrom('messages')
      .selectAll()
      .where('lead_id', '=', marta.id)
      .where('author', '=', 'agent')
      .executeTakeFirstOrThrow();
    expect(message).toMatchObject({ kind: 'email', state: 'sent', recipient: 'marta@example.com' });
    const digest = await t.db.selectFrom('alert_digests').selectAll().where('message_id', '=', message.id).executeTakeFirstOrThrow();
    expect(digest.origin).toBe('agent');
    const items = await t.db.selectFrom('alert_items').selectAll().where('digest_id', '=', digest.id).orderBy('property_id').execute();
    expect(items.map((i) => [i.property_id, i.price, i.reason])).toEqual([
      [ids.one, 180_000, 'chosen'],
      [ids.two, 170_000, 'chosen'],
    ]);

    // "No me interesa" from the e-mail works as an alert's.
    const dismiss = new URL(/No me interesa: (http:\/\/\S+)/.exec(mail.text!.split('Piso exterior')[1])![1]).pathname;
    expect((await t.app.inject({ method: 'POST', url: dismiss, payload: '' })).statusCode).toBe(200);
    const marks = await marksOf(marta.id);
    expect(marks[ids.one]).toMatchObject({ sent_at: message.sent_at, dismissed: false });
    expect(marks[ids.two]).toMatchObject({ sent_at: message.sent_at, dismissed: true });
    expect(marks[ids.three]).toMatchObject({ sent_at: null, dismissed: false });

    // An alert never sends them again, even to a lead that takes alerts.
    await t.db.updateTable('leads').set({ wants_alerts: 1 }).where('id', '=', marta.id).execute();
    await importRecords(t.db, t.businessId, [listing('H-1', { title: 'Piso luminoso', price: 179_000, size_total: 90, bedrooms: 3 })]);
    await drain();
    smtp.received.length = 0;
    expect(await runAlertsNow(t.db, { businessId: t.businessId, alertHour: 10, outbound: OUTBOUND })).toEqual({ sent: 0, leads: 0 });
  });

  it('a listing found by its reference goes too; the lead page lists every listing sent, in words and the business’s time zone', async () => {
    await t.db.updateTable('businesses').set({ timezone: 'America/New_York' }).where('id', '=', t.businessId).execute();
    const { lead: marta, browser, ids } = await scene();
    expect((await send(browser, marta.id, { property_id: [String(ids.one)], property_ref: 'H-3', channel: 'email' })).statusCode).toBe(303);
    await drain();
    await drain();
    const sentAt = (
      await t.db
        .selectFrom('messages')
        .select('sent_at')
        .where('lead_id', '=', marta.id)
        .where('author', '=', 'agent')
        .executeTakeFirstOrThrow()
    ).sent_at!;
    expect(mailTo('marta@example.com')[0].text).toContain('Ático');

    const page = (await browser.get(`/console/leads/${marta.id}`)).body;
    const sentList = page.slice(page.indexOf('Inmuebles enviados'));
    const local = DateTime.fromISO(sentAt, { zone: 'America/New_York' });
    expect(sentList).toContain(`${local.toFormat('HH:mm')}</time>`);
    expect(sentList).toMatch(/Ático<\/a>\s*· enviado a mano por Lucía Gil · por correo · enviado/);
    expect(sentList).toMatch(/Piso luminoso<\/a>\s*· enviado a mano por Lucía Gil · por correo · enviado/);
    // The form says beside each match when it was sent.
    const form = page.slice(page.indexOf('id="h-send"'));
    expect(form).toMatch(/H-1 · Piso luminoso <span class="meta">\(ya enviado el /);
  });

  it('by WhatsApp only inside the 24-hour window: one text with each listing’s page, through the agents’ send path', async () => {
    await connectWhatsApp();
    const { lead: marta, browser, ids } = await scene();
    // Before the lead writes, WhatsApp is offered disabled, with the reason in words.
    const before = (await browser.get(`/console/leads/${marta.id}`)).body;
    expect(before).toMatch(/<input type="radio" name="channel" value="whatsapp" disabled aria-describedby="s-whatsapp-why">/);
    expect(before).toContain('Por WhatsApp solo se le puede escribir en las 24 horas siguientes a su último mensaje');
    const untouched = await snapshot(t.db);
    const closed = await send(browser, marta.id, { property_id: [String(ids.one)], property_ref: '', channel: 'whatsapp' });
    expect(closed.statusCode).toBe(422);
    expect(closed.body).toMatch(/id="s-channel-problem">Por WhatsApp solo se le puede escribir/);
    expect(await snapshot(t.db, ['sessions'])).toBe(untouched);

    // A message written 25 hours ago opened a window that has closed since.
    const old = String(Math.floor(Date.now() / 1000) - 25 * 3600);
    expect((await deliver(t.app, inbound({ from: marta.waId, text: 'Hola', timestamp: old }))).statusCode).toBe(200);
    await drain();
    expect((await send(browser, marta.id, { property_id: [String(ids.one)], property_ref: '', channel: 'whatsapp' })).statusCode).toBe(422);

    // Written now: the window is open.
    expect((await deliver(t.app, inbound({ from: marta.waId, text: '¿Tenéis algo más?' }))).statusCode).toBe(200);
    await drain();
    graph.requests.length = 0;
    const open = (await browser.get(`/console/leads/${marta.id}`)).body;
    expect(open).toMatch(/<input type="radio" name="channel" value="whatsapp">/);
    const sent = await send(browser, marta.id, { property_id: [String(ids.one), String(ids.two)], property_ref: '', channel: 'whatsapp' });
    expect(sent.statusCode, sent.body).toBe(303);
    await drain();
    await drain();
    const texts = graph.requests.filter((r) => r.body?.type === 'text' && String(r.body.text?.body).includes('/l/'));
    expect(texts).toHaveLength(1);
    const body = String(texts[0].body.text.body);
    expect(texts[0].body.to).toBe(`+${marta.waId}`);
    const [pageOne, pageTwo] = [await listingPageToken(t.db, t.businessId, ids.one), await listingPageToken(t.db, t.businessId, ids.two)];
    expect(body).toContain('Lucía Gil, de Inmobiliaria Test, ha seleccionado para ti estos inmuebles:');
    expect(body).toMatch(
      new RegExp(`Piso luminoso\\n180\\.000\\s€ · 90 m² · 3 hab\\. · [^\\n]+\\nVer el inmueble: http://[^\\s]+/l/${pageOne}`),
    );
    expect(body).toContain(`/l/${pageTwo}`);
    expect(body.match(/No me interesa: http:\/\/\S+\/a\/[A-Za-z0-9_-]{43}/g)).toHaveLength(2);
    expect(mailTo('marta@example.com')).toHaveLength(0);

    const message = await t.db
      .selectFrom('messages')
      .selectAll()
      .where('lead_id', '=', marta.id)
      .where('author', '=', 'agent')
      .executeTakeFirstOrThrow();
    expect(message).toMatchObject({ kind: 'text', state: 'sent', body });
    // WhatsApp's later statuses keep it sent for the matches API.
    await deliver(
      t.app,
      status({ id: message.provider_message_id!, status: 'delivered', recipient: marta.waId, callbackData: String(message.id) }),
    );
    await drain();
    const marks = await marksOf(marta.id);
    expect(marks[ids.one]).toMatchObject({ sent_at: message.sent_at, dismissed: false });
    expect(marks[ids.two].sent_at).toBe(message.sent_at);
    const page = (await browser.get(`/console/leads/${marta.id}`)).body;
    expect(page.slice(page.indexOf('Inmuebles enviados'))).toMatch(
      /Piso exterior<\/a>\s*· enviado a mano por Lucía Gil · por WhatsApp · entregado/,
    );
  });

  it('refuses nothing ticked, an unknown reference, a listing not published or dismissed, a lead without e-mail: 422 beside the field, nothing stored', async () => {
    const { lead: marta, browser, ids } = await scene();
    const cases: Array<[Record<string, string | string[]>, string, string]> = [
      [{ property_ref: '', channel: 'email' }, 'property_id', 'Marca al menos un inmueble o escribe una referencia.'],
      [{ property_ref: 'NO-EXISTE', channel: 'email' }, 'property_ref', 'No hay ningún inmueble de la agencia con esa referencia.'],
      [{ property_ref: 'H-PRIV', channel: 'email' }, 'property_ref', 'Ese inmueble no está publicado'],
      [{ property_id: [String(ids.hidden)], property_ref: '', channel: 'email' }, 'property_id', 'Ese inmueble no está publicado'],
      [{ property_id: ['abc'], property_ref: '', channel: 'email' }, 'property_id', 'Ese inmueble no está publicado'],
      [{ property_id: [String(ids.one)], property_ref: '', channel: '' }, 'channel', 'Elige cómo enviarlos'],
      [{ property_id: [String(ids.one)], property_ref: '', channel: 'fax' }, 'channel', 'Elige cómo enviarlos'],
      [{ property_id: [String(ids.one)], property_ref: '', channel: 'whatsapp' }, 'channel', 'No hay ningún número de WhatsApp conectado.'],
    ];
    const before = await snapshot(t.db, ['sessions']);
    for (const [form, field, words] of cases) {
      const response = await send(browser, marta.id, form);
      expect(response.statusCode, JSON.stringify(form)).toBe(422);
      expect(response.body).toContain(`<p class="field-problem" id="s-${field}-problem">${words}`);
      expect(response.body).toContain('No se ha enviado nada');
    }
    expect(await snapshot(t.db, ['sessions'])).toBe(before);

    // Dismissed: sent once, "No me interesa", then refused.
    expect((await send(browser, marta.id, { property_id: [String(ids.three)], property_ref: '', channel: 'email' })).statusCode).toBe(303);
    await drain();
    const dismiss = new URL(/No me interesa: (http:\/\/\S+)/.exec(mailTo('marta@example.com')[0].text!)![1]).pathname;
    await t.app.inject({ method: 'POST', url: dismiss, payload: '' });
    const dismissed = await send(browser, marta.id, { property_id: [String(ids.three)], property_ref: '', channel: 'email' });
    expect(dismissed.statusCode).toBe(422);
    expect(dismissed.body).toContain('Dijo «No me interesa» a ese inmueble.');

    // A lead without an address: e-mail is disabled with the reason, and refused.
    const other = await lead();
    await drain();
    const page = (await browser.get(`/console/leads/${other.id}`)).body;
    expect(page).toMatch(/value="email" disabled aria-describedby="s-email-why">/);
    expect(page).toContain('No tiene dirección de correo.');
    const noEmail = await send(browser, other.id, { property_id: [String(ids.one)], property_ref: '', channel: 'email' });
    expect(noEmail.statusCode).toBe(422);
    expect(noEmail.body).toContain('id="s-channel-problem">No tiene dirección de correo.');

    // Without its CSRF token, nothing.
    const forged = await browser.request('POST', `/console/leads/${marta.id}/send`, { property_id: String(ids.one), channel: 'email' });
    expect(forged.statusCode).toBe(403);
    // Another business's lead is not found.
    const token = await browser.token(`/console/leads/${marta.id}`);
    expect(
      (await browser.request('POST', '/console/leads/999999/send', { _csrf: token, property_id: String(ids.one), channel: 'email' }))
        .statusCode,
    ).toBe(404);
  });
});
