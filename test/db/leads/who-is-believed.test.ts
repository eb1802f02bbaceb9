/**
 * Who is believed (issue 55, CONTRACT §18, §19, §22; docs/security.md), against a real SMTP
 * server on loopback (test/helpers/smtp.ts):
 *
 * - consent carried by a request that cannot prove it comes from the person (a publishable key)
 *   only tightens a known lead's: a refusal stands against a later "yes" (the issue's
 *   reproduction: no alert reaches her), a "no" applies, and the record is kept marked;
 * - whoever posts with a publishable key gets the same e-mails at the address they gave whether
 *   the phone is a client's or new: none;
 * - a portal's e-mail is believed only when the receiving server recorded that the portal's domain
 *   authenticated, or as a forward from the agency's own addresses: any other is read by the
 *   generic reader, marked unverified, and no welcome goes to the address it names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { createInboundAddress } from '../../../src/services/leads/email-intake.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { Browser, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, REPO_ROOT } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';
import { alertsTest } from '../../helpers/alerts.ts';

const SITE = 'https://agencia.example';
const t = withApp({ each: true });
/** The SMTP server, the worker, and the alert runs, a day apart (test/helpers/alerts.ts). */
const alerting = alertsTest(t);
const { drain, runAlerts, recipients } = alerting;

afterEach(() => {
  vi.useRealTimers();
});

const publishableKey = async () =>
  (await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [SITE] })).key;
const fromSite = { origin: SITE };

const SEARCH = [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000 } }];
const YES = { marketing: true, whatsapp: true, text: 'Acepto recibir ofertas', version: 'v1' };
const NO = { marketing: false, whatsapp: false, text: 'No acepto', version: 'v1' };

/** Consent records of the lead with `phone`, oldest first. */
async function consentsOf(phone: string) {
  return t.db
    .selectFrom('lead_consents')
    .innerJoin('leads', 'leads.id', 'lead_consents.lead_id')
    .select(['lead_consents.marketing', 'lead_consents.whatsapp', 'verified', 'carried_marketing', 'carried_whatsapp'])
    .where('leads.phone_number_1', '=', phone)
    .orderBy('lead_consents.id')
    .execute();
}

describe('consent from a request that cannot prove it comes from the person (issue 55 item 4)', () => {
  it('a publishable "yes" never lifts a refusal: the next alerts run e-mails her nothing, on both POSTs', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    // She refused marketing and WhatsApp when she gave her details to the agency.
    const marta = { name: 'Marta Ruiz', type: 'buyer', phone_number_1: '+34611810001', personal_email: 'marta@example.com' };
    expect((await post(t.app, '/leads/inquiries', t.key, { ...marta, search_preferences: SEARCH, consent: NO })).status).toBe(200);
    await drain();
    alerting.smtp.received.length = 0;

    // A stranger who knows her phone posts "yes" from the website's publishable key, by both POSTs.
    const key = await publishableKey();
    const lifted = await post(t.app, '/leads/inquiries', key, { ...marta, consent: YES }, fromSite);
    expect(lifted.status, JSON.stringify(lifted.body)).toBe(200);
    const ingested = await post(
      t.app,
      '/leads/ingest',
      key,
      {
        id: 'x',
        createdAt: '2030-03-04T10:00:00Z',
        source: 'web',
        sourcePage: 'https://agencia.example/alquiler',
        contact: { name: 'Marta', phone: '+34611810001' },
        search: { budget: '900' },
        consent: YES,
      },
      fromSite,
    );
    expect(ingested.status, JSON.stringify(ingested.body)).toBe(200);

    // Both requests are kept (CONTRACT §22), with what they said, as not verified: the refusal holds.
    expect(await t.db.selectFrom('lead_interactions').select('channel').orderBy('id').execute()).toEqual([
      { channel: 'inquiry' },
      { channel: 'ingest' },
    ]);
    expect(await consentsOf('+34611810001')).toEqual([
      { marketing: 0, whatsapp: 0, verified: 1, carried_marketing: null, carried_whatsapp: null },
      { marketing: 0, whatsapp: 0, verified: 0, carried_marketing: 1, carried_whatsapp: 1 },
      { marketing: 0, whatsapp: 0, verified: 0, carried_marketing: 1, carried_whatsapp: 1 },
    ]);

    // A listing that matches her arrives: `inmo alerts run` sends her nothing.
    await importRecords(t.db, t.businessId, [listing('NEW-1', { price: 180_000 })]);
    await drain();
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(recipients()).toEqual([]);

    // The agency's own system (a secret key) keeps today's rule: her "yes" through it holds.
    expect((await post(t.app, '/leads/inquiries', t.key, { ...marta, consent: YES })).status).toBe(409);
    expect((await consentsOf('+34611810001')).at(-1)).toEqual({
      marketing: 1,
      whatsapp: 1,
      verified: 1,
      carried_marketing: null,
      carried_whatsapp: null,
    });
    await importRecords(t.db, t.businessId, [listing('NEW-2', { price: 170_000 })]);
    await drain();
    expect(await runAlerts()).toEqual({ sent: 1, leads: 1 });
    expect(recipients()).toEqual(['marta@example.com']);
  });

  it('a publishable "no" always applies, and a new lead’s first consent is the person’s own', async () => {
    const key = await publishableKey();
    const ana = {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '+34611810002',
      personal_email: 'ana@example.com',
      search_preferences: SEARCH,
    };
    expect((await post(t.app, '/leads/inquiries', key, { ...ana, consent: YES }, fromSite)).status).toBe(200);
    expect(await consentsOf('+34611810002')).toEqual([
      { marketing: 1, whatsapp: 1, verified: 1, carried_marketing: null, carried_whatsapp: null },
    ]);
    expect((await post(t.app, '/leads/inquiries', key, { ...ana, consent: { ...YES, marketing: false } }, fromSite)).status).toBe(200);
    expect((await consentsOf('+34611810002')).at(-1)).toEqual({
      marketing: 0,
      whatsapp: 1,
      verified: 0,
      carried_marketing: 0,
      carried_whatsapp: 1,
    });
    // A "yes" after it lifts nothing either.
    expect((await post(t.app, '/leads/inquiries', key, { ...ana, consent: YES }, fromSite)).status).toBe(200);
    expect((await consentsOf('+34611810002')).at(-1)).toMatchObject({ marketing: 0, whatsapp: 1, verified: 0 });

    // The console's lead page says what the request said, and that it did not take effect.
    await userWithPassword(t.db, t.businessId, 'agente@uno.example', 'agent');
    const browser = new Browser(t.app);
    await browser.login('agente@uno.example');
    const { id } = await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', '+34611810002').executeTakeFirstOrThrow();
    const page = (await browser.get(`/console/leads/${id}`)).body;
    expect(page).toContain('no verificada');
  });
});

describe('consent carried by the listing page and a viewing request (issue 55 item 4)', () => {
  it('the listing page’s form (no key at all) lifts no refusal of WhatsApp', async () => {
    await importRecords(t.db, t.businessId, [listing('P-1')]);
    const token = (await listingPageToken(t.db, t.businessId, await propertyId(t.db, 'P-1')))!;
    const marta = { name: 'Marta Ruiz', type: 'buyer', phone_number_1: '+34611840001' };
    expect((await post(t.app, '/leads/inquiries', t.key, { ...marta, consent: NO })).status).toBe(200);
    const fields = { name: 'Marta', phone: '611 84 00 01', consent: '1', website: '', submission: 'c'.repeat(32) };
    const sent = await t.app.inject({
      method: 'POST',
      url: `/l/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: '10.9.0.7',
    });
    expect(sent.statusCode).toBe(303);
    expect(await consentsOf('+34611840001')).toEqual([
      { marketing: 0, whatsapp: 0, verified: 1, carried_marketing: null, carried_whatsapp: null },
      { marketing: 0, whatsapp: 0, verified: 0, carried_marketing: 0, carried_whatsapp: 1 },
    ]);
  });

  it('a publishable booking with a `lead` keeps the viewing request but lifts no refusal', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-20T09:00:00Z'));
    await createUser(t.db, { businessId: t.businessId, email: 'agente@uno.example', role: 'agent' });
    await importRecords(t.db, t.businessId, [listing('V-1')]);
    const marta = { name: 'Marta Ruiz', type: 'buyer', phone_number_1: '+34611830001', personal_email: 'marta@example.com' };
    expect((await post(t.app, '/leads/inquiries', t.key, { ...marta, consent: NO })).status).toBe(200);
    const key = (
      await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest', 'viewings:write'], origins: [SITE] })
    ).key;
    const property = await propertyId(t.db, 'V-1');
    const booked = await post(
      t.app,
      '/viewings',
      key,
      {
        property_id: property,
        starts_at: '2026-03-23T10:00:00+01:00',
        lead: { name: 'Marta', phone_number_1: '+34611830001', consent: YES },
      },
      fromSite,
    );
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect(await consentsOf('+34611830001')).toEqual([
      { marketing: 0, whatsapp: 0, verified: 1, carried_marketing: null, carried_whatsapp: null },
      { marketing: 0, whatsapp: 0, verified: 0, carried_marketing: 1, carried_whatsapp: 1 },
    ]);
  });
});

describe('the welcome tells nothing of who is a client (issue 55 item 7)', () => {
  it('an attacker’s address gets the same e-mails for a client’s phone and a new one: none', async () => {
    // A client, known by her phone.
    const victim = { name: 'Marta Ruiz', type: 'buyer', phone_number_1: '+34611820001', personal_email: 'marta@example.com' };
    expect((await post(t.app, '/leads/inquiries', t.key, victim)).status).toBe(200);
    await drain();
    // The agency's own system gets the welcome by e-mail to its lead, as before.
    expect(recipients()).toEqual(['marta@example.com']);
    alerting.smtp.received.length = 0;

    const key = await publishableKey();
    const probe = (phone: string) =>
      post(
        t.app,
        '/leads/inquiries',
        key,
        { name: 'X', type: 'buyer', phone_number_1: phone, personal_email: 'probe@attacker.example' },
        fromSite,
      );
    expect((await probe('+34611820001')).status).toBe(200);
    await drain();
    const afterKnown = alerting.smtp.received.filter((r) => r.to.includes('probe@attacker.example')).length;
    expect((await probe('+34611820002')).status).toBe(200);
    await drain();
    const afterNew = alerting.smtp.received.filter((r) => r.to.includes('probe@attacker.example')).length - afterKnown;
    expect({ afterKnown, afterNew }).toEqual({ afterKnown: 0, afterNew: 0 });
    expect(recipients()).toEqual([]);
    // The new lead is stored, its contact marked as not verified.
    const made = await t.db
      .selectFrom('leads')
      .select('contact_verified')
      .where('phone_number_1', '=', '+34611820002')
      .executeTakeFirstOrThrow();
    expect(made.contact_verified).toBe(0);
  });
  it('nor the e-mail that stands in for a failed template: a publishable lead’s welcome goes by WhatsApp or not at all', async () => {
    const graph = await startFakeGraph();
    try {
      await connectChannel(
        t.db,
        {
          businessId: t.businessId,
          provider: 'whatsapp-cloud',
          phoneNumberId: '555',
          tokenEnv: 'T',
          template: 'hola',
          baseUrl: graph.baseUrl,
        },
        { T: 'token' },
      );
      const key = await publishableKey();
      // Refused WhatsApp (a new lead's own consent), and a template that fails for good: neither falls back to the address.
      const body = (phone: string, consent?: object) => ({
        name: 'X',
        type: 'buyer',
        phone_number_1: phone,
        personal_email: 'probe@attacker.example',
        ...(consent ? { consent } : {}),
      });
      expect((await post(t.app, '/leads/inquiries', key, body('+34611850001', { ...YES, whatsapp: false }), fromSite)).status).toBe(200);
      graph.script.push({ status: 400, body: { error: { message: 'Template not approved', code: 132001 } } });
      expect((await post(t.app, '/leads/inquiries', key, body('+34611850002'), fromSite)).status).toBe(200);
      await drain();
      await drain();
      expect(recipients()).toEqual([]);
      const sent = await t.db.selectFrom('messages').select(['kind', 'author', 'state']).orderBy('id').execute();
      expect(sent.filter((m) => m.kind === 'email')).toEqual([]);
    } finally {
      await graph.close();
    }
  });
});

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'email');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const postEmail = (url: string, raw: Buffer) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'message/rfc822' }, payload: raw });
const emailRows = () => t.db.selectFrom('inbound_emails').select(['state', 'parser', 'trust', 'lead_id']).orderBy('id').execute();
const leadOf = (id: number) =>
  t.db.selectFrom('leads').select(['source', 'personal_email', 'contact_verified']).where('id', '=', id).executeTakeFirstOrThrow();

describe('portal e-mails are believed from their senders only (issue 55 item 6)', () => {
  it('a message from idealista’s domain without authentication results is read as anyone’s: marked, and no welcome to the address it names', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    // The same notification: as the agency's server received it (DKIM and DMARC passed), and forged.
    expect((await postEmail(url, fixture('idealista.eml'))).statusCode).toBe(202);
    expect((await postEmail(url, fixture('forged-idealista.eml'))).statusCode).toBe(202);
    await drain();
    const [real, forged] = await emailRows();
    expect(real).toMatchObject({ state: 'lead', parser: 'idealista', trust: 'portal' });
    expect(forged).toMatchObject({ state: 'lead', parser: 'generic', trust: 'unverified' });
    expect(await leadOf(real.lead_id!)).toEqual({ source: 'idealista', personal_email: 'maria.lopez@example.com', contact_verified: 1 });
    expect(await leadOf(forged.lead_id!)).toEqual({ source: 'email', personal_email: 'victima@example.net', contact_verified: 0 });
    // The welcome went to the verified portal's contact only.
    expect(recipients()).toEqual(['maria.lopez@example.com']);
    const welcomes = await t.db.selectFrom('messages').select(['lead_id', 'kind']).where('author', '=', 'welcome').execute();
    expect(welcomes).toEqual([{ lead_id: real.lead_id, kind: 'email' }]);

    // The lead page says it in words.
    await userWithPassword(t.db, t.businessId, 'agente@uno.example', 'agent');
    const browser = new Browser(t.app);
    await browser.login('agente@uno.example');
    const forgedPage = (await browser.get(`/console/leads/${forged.lead_id}`)).body;
    expect(forgedPage).toContain('no se pudo verificar');
    // Its notes (and a known person's history, for an interaction) say so too.
    expect(forgedPage).toContain('Consulta recibida por correo electrónico (remitente no verificado: puede no venir de quien dice).');
    expect((await browser.get(`/console/leads/${real.lead_id}`)).body).not.toContain('no se pudo verificar');
  });

  it('a forward block naming idealista is believed only from the agency’s own address; a message lacking results is not', async () => {
    await userWithPassword(t.db, t.businessId, 'agencia.sol@gmail.com', 'agent');
    const { url } = await createInboundAddress(t.db, t.businessId);
    const forward = fixture('gmail-forward-idealista.eml').toString('latin1');
    // A stranger's Gmail account forwards the same block (its own DKIM passes, for gmail.com).
    const stranger = forward
      .replaceAll('agencia.sol@gmail.com', 'cualquiera@gmail.com')
      .replace('<CAGm5x0Tq3Kp+Yw1=fwd7731@mail.gmail.com>', '<stranger-1@mail.gmail.com>');
    // idealista's own notification behind a server that recorded nothing: no Authentication-Results at all.
    const lacking = fixture('idealista.eml')
      .toString('latin1')
      .replace(/^Authentication-Results:.*\r\n(?:[ \t].*\r\n)*/, '')
      .replace('Message-ID: <', 'Message-ID: <lacking-');
    expect(lacking.startsWith('Return-Path:')).toBe(true);
    // One at a time: the first makes the lead, the second finds it.
    for (const raw of [forward, stranger, lacking]) {
      await postEmail(url, Buffer.from(raw, 'latin1'));
      await drain();
    }
    const [own, strange, unrecorded] = await emailRows();
    expect(own).toMatchObject({ parser: 'idealista', trust: 'agency' });
    expect(strange).toMatchObject({ parser: 'generic', trust: 'unverified' });
    expect(unrecorded).toMatchObject({ parser: 'generic', trust: 'unverified' });
    expect(await leadOf(own.lead_id!)).toMatchObject({ source: 'idealista', contact_verified: 1 });
    // The stranger's copy names the same person: kept as her interaction, as anyone's request is.
    expect(strange).toMatchObject({ state: 'interaction', lead_id: own.lead_id });
    expect(await leadOf(unrecorded.lead_id!)).toMatchObject({ source: 'email', contact_verified: 0 });
  });

  it('the page of a message not understood says whether inmo could verify its sender', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    const raw = Buffer.from(
      'From: idealista <noreply.pro.es@idealista.com>\r\nSubject: Un usuario\r\nMessage-ID: <nu-1@example.net>\r\n\r\nNombre: Ana\r\n',
    );
    await postEmail(url, raw);
    await drain();
    const [row] = await t.db.selectFrom('inbound_emails').select(['id', 'state', 'trust']).execute();
    expect(row).toMatchObject({ state: 'not_understood', trust: 'unverified' });
    await userWithPassword(t.db, t.businessId, 'agente@uno.example', 'agent');
    const browser = new Browser(t.app);
    await browser.login('agente@uno.example');
    expect((await browser.get(`/console/email/messages/${row.id}`)).body).toContain('no se pudo verificar');
  });
});
