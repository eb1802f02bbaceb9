/**
 * Alerts by WhatsApp (CONTRACT §21, issue 45) on both engines: a consenting lead the business
 * cannot e-mail, with a phone, gets its digest as the channel's `property_alert` template (the
 * fake Graph API, test/helpers/fake-graph.ts) whose link opens the digest's page `/d/<token>`:
 * the listings, each with its "No me interesa" button, which works; a listing gone since says so;
 * a lead with an e-mail address still gets an e-mail (a real SMTP server); never after an opt-out
 * or a consent that refuses WhatsApp; a crash between the send and its record never sends twice.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { composeDigests } from '../../../src/services/leads/alerts.ts';
import { newUnsubscribeLink, unsubscribe } from '../../../src/services/messaging/unsubscribe.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { post, withApp } from '../../helpers/http.ts';
import { alertsTest, CONSENT } from '../../helpers/alerts.ts';
import { runCrashableWorker } from '../../helpers/processes.ts';
import { connectFakeChannel } from '../../helpers/whatsapp.ts';

const t = withApp({ each: true });
/** The SMTP server, the worker, and the alert runs, a day apart (test/helpers/alerts.ts). */
const alerting = alertsTest(t, { email: false });
const { drain, runAlerts } = alerting;
let graph: FakeGraph;
let phones = 0;

beforeEach(async () => {
  graph = await startFakeGraph();
  await connectFakeChannel(t.db, t.businessId, graph.baseUrl, { templates: { property_alert: 'alerta_inmuebles' } });
});
afterEach(async () => {
  await graph.close();
});

/** A searching buyer of a flat in Madrid up to 200,000 €; @returns its id and phone. */
async function lead(fields: Record<string, unknown> = {}): Promise<{ id: number; phone: string }> {
  const phone = `+34611900${String(++phones).padStart(3, '0')}`;
  const response = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Marta Ruiz López',
    type: 'buyer',
    phone_number_1: phone,
    consent: CONSENT,
    search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000 } }],
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { id: response.body.lead_id as number, phone };
}

/** Imports listings and lets matching run. */
async function catalogue(...records: Array<Record<string, unknown>>) {
  await importRecords(t.db, t.businessId, records);
  await drain();
}

/** The alert templates sent, in order. */
const alerts = () => graph.requests.filter((r) => r.body?.type === 'template' && r.body.template.name === 'alerta_inmuebles');
/** A template's body parameters as plain strings. */
const parametersOf = (request: { body: any }) =>
  (request.body.template.components[0].parameters as Array<{ text: string }>).map((p) => p.text);
const linkOf = (request: { body: any }) => parametersOf(request)[3];

/** Two listings that newly match after the leads' first matching. */
async function newListings() {
  await catalogue(
    listing('NEW-1', {
      title: 'Ático con terraza',
      titles: { es: 'Ático con terraza', en: 'Penthouse with a terrace' },
      price: 180_000,
      size_total: 95,
      bedrooms: 3,
      images: [{ url: 'https://img.example/atico.jpg', public: true, is_primary: true }],
    }),
    listing('NEW-2', { title: 'Piso exterior', price: 170_000 }),
  );
}

describe('alerts by WhatsApp', () => {
  it('a lead with only a phone gets the template with its link; a lead with an e-mail address still gets an e-mail', async () => {
    await alerting.connectEmail();
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    const marta = await lead();
    await lead({ name: 'Ana', personal_email: 'ana@example.com' });
    await drain();
    alerting.smtp.received.length = 0; // the welcome
    await newListings();
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });

    expect(alerting.smtp.received.map((r) => r.to)).toEqual([['ana@example.com']]);
    const [sent] = alerts();
    expect(alerts()).toHaveLength(1);
    expect(sent.body.to).toBe(marta.phone);
    expect(sent.body.template.language).toEqual({ code: 'es' });
    const parameters = parametersOf(sent);
    expect(parameters.slice(0, 3)).toEqual(['Marta', '2', 'Inmobiliaria Test']);
    expect(parameters[3]).toMatch(/^http:\/\/127\.0\.0\.1:8080\/d\/[A-Za-z0-9_-]{43}$/);
    const message = await t.db
      .selectFrom('messages')
      .selectAll()
      .where('lead_id', '=', marta.id)
      .where('author', '=', 'alert')
      .executeTakeFirstOrThrow();
    expect(message).toMatchObject({ kind: 'template', template: 'alerta_inmuebles', state: 'sent', recipient: marta.phone });
    expect(message.body).toContain('alerta_inmuebles: Marta · 2 · Inmobiliaria Test · http://127.0.0.1:8080/d/');
    // The lead page lists the listings sent, by WhatsApp.
    await userWithPassword(t.db, t.businessId, 'agente@agency.example', 'agent');
    const agent = await loggedIn(t.app, 'agente@agency.example');
    const leadPage = (await agent.request('GET', `/console/leads/${marta.id}`)).body;
    expect(leadPage).toContain('Inmuebles enviados');
    expect(leadPage).toMatch(/Ático con terraza<\/a>[^<]*por WhatsApp/);
    // Only the token's hash is kept.
    const token = new URL(parameters[3]).pathname.slice(3);
    expect(JSON.stringify(await t.db.selectFrom('alert_digests').selectAll().execute())).not.toContain(token);

    // The next run sends neither again.
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(alerts()).toHaveLength(1);

    // The token is never logged: the request line names the route's pattern.
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logged = await buildApp({ db: t.db, logger: { level: 'debug', stream } });
    try {
      expect((await logged.inject({ method: 'GET', url: `/d/${token}` })).statusCode).toBe(200);
    } finally {
      await logged.close();
    }
    expect(lines.join('')).toContain('"route":"/d/:token"');
    expect(lines.join('')).not.toContain(token);
  });

  it('the link opens the digest’s page: its listings with photo, facts, links and a working “No me interesa”', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    const marta = await lead({ preferred_language: 'gb' });
    await drain();
    await newListings();
    // The business sends no e-mail here.
    expect(await runAlerts()).toEqual({ sent: 1, leads: 1 });
    const sent = alerts()[0];
    expect(sent.body.template.language).toEqual({ code: 'en' });
    const path = new URL(linkOf(sent)).pathname;

    const before = await snapshot(t.db);
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(await snapshot(t.db)).toBe(before); // a link preview's GET changes nothing
    const html = page.body;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('Inmobiliaria Test');
    expect(html).toContain('Penthouse with a terrace');
    expect(html).not.toContain('Ático con terraza');
    expect(html).toMatch(/180\.000\s€ · 95 m² · 3 bedrooms · Madrid/);
    expect(html).toContain('<img src="https://img.example/atico.jpg" alt="Penthouse with a terrace"');
    const listingPage = await listingPageToken(t.db, t.businessId, await propertyId(t.db, 'NEW-1'));
    expect(html).toContain(`href="/l/${listingPage}?lang=en"`);
    expect(html).not.toMatch(/NEW-1|Marta|611900/); // no codes, nothing about the lead
    const actions = [...html.matchAll(/<form method="post" action="(\/a\/[A-Za-z0-9_-]{43})">/g)].map((m) => m[1]);
    expect(actions).toHaveLength(2);
    // The card of "Piso exterior" and its button.
    const exterior = /<article><h2><a [^>]*>Piso exterior<\/a>.*?action="(\/a\/[A-Za-z0-9_-]{43})"/.exec(html)![1];
    // The page shows the same links every time it is opened.
    expect((await t.app.inject({ method: 'GET', url: path })).body).toBe(html);

    // "No me interesa" on the second listing: the e-mails' one-click link.
    const asked = await t.app.inject({ method: 'GET', url: exterior });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Piso exterior');
    const done = await t.app.inject({ method: 'POST', url: exterior, payload: '' });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('we will not send you');
    expect(await t.db.selectFrom('lead_dismissals').select(['lead_id', 'property_id']).execute()).toEqual([
      { lead_id: marta.id, property_id: await propertyId(t.db, 'NEW-2') },
    ]);
    const interactions = await t.db.selectFrom('lead_interactions').select(['channel', 'note']).where('lead_id', '=', marta.id).execute();
    expect(interactions).toEqual([{ channel: 'alert', note: expect.stringContaining('NEW-2') }]);
    const again = (await t.app.inject({ method: 'GET', url: path })).body;
    expect(again).toContain('You told us you are not interested');
    expect([...again.matchAll(/<form method="post"/g)]).toHaveLength(1);

    // A listing that left the public catalogue since is shown as no longer available, without its facts or links.
    await t.db
      .updateTable('properties')
      .set({ listed: 0 })
      .where('id', '=', await propertyId(t.db, 'NEW-1'))
      .execute();
    const later = (await t.app.inject({ method: 'GET', url: path })).body;
    expect(later).toContain('Penthouse with a terrace');
    expect(later).toContain('No longer available.');
    expect(later).not.toContain('img.example');
    expect(later).not.toContain(`/l/${listingPage}`);
    expect([...later.matchAll(/<form method="post"/g)]).toHaveLength(0);

    // Unknown tokens are 404, as any unknown path.
    expect((await t.app.inject({ method: 'GET', url: '/d/' + 'x'.repeat(43) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/d/short' })).statusCode).toBe(404);
  });

  it('nothing by WhatsApp after an opt-out, to a consent that refuses WhatsApp, or without a property_alert template', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    const optedOut = await lead();
    await lead({ consent: { ...CONSENT, whatsapp: false } });
    await drain();
    // An opt-out (the conversation's `opted_out`, as "baja" on WhatsApp or the e-mails' link leave it).
    const link = await newUnsubscribeLink(t.db, t.businessId, optedOut.id, 'http://127.0.0.1:8080', nowRfc3339());
    expect(await unsubscribe(t.db, new URL(link).pathname.slice(3))).not.toBeNull();
    expect(
      (await t.db.selectFrom('conversations').select('state').where('lead_id', '=', optedOut.id).executeTakeFirstOrThrow()).state,
    ).toBe('opted_out');
    await newListings();
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });

    await connectFakeChannel(t.db, t.businessId, graph.baseUrl, { templates: {} });
    await lead();
    await drain();
    await catalogue(listing('NEW-3', { price: 160_000 }));
    expect(await runAlerts()).toMatchObject({ sent: 0, leads: 0, reason: expect.stringContaining('nor the WhatsApp alert template') });
    expect(alerts()).toEqual([]);
  });

  it('a digest whose lead opted out after it was composed is not sent', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    const marta = await lead();
    await drain();
    await newListings();
    const [messageId] = await composeDigests(t.db, t.businessId, '2030-03-05', nowRfc3339());
    await t.db.updateTable('leads').set({ status: 'closed' }).where('id', '=', marta.id).execute();
    await drain();
    expect(alerts()).toEqual([]);
    expect(await t.db.selectFrom('messages').select(['state', 'last_error']).where('id', '=', messageId).executeTakeFirstOrThrow()).toEqual(
      {
        state: 'failed',
        last_error: 'the lead no longer takes alerts',
      },
    );
  });

  it('`inmo alerts run` counts WhatsApp digests', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    await lead();
    await drain();
    await newListings();
    const env = { DATABASE_URL: t.url, INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const first = await inmo(env, 'alerts', 'run', '--business', String(t.businessId), '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({ sent: 1, leads: 1 });
    expect((await inmo(env, 'alerts', 'run', '--json')).json).toEqual({ sent: 0, leads: 0 });
    expect(alerts()).toHaveLength(1);
  });

  it('a template the provider refuses for now is retried by its job', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    await lead();
    await drain();
    await newListings();
    graph.script.push({ status: 503 });
    expect(await runAlerts()).toMatchObject({ sent: 0, leads: 1, reason: expect.stringContaining('their jobs retry them') });
    const [message] = await t.db.selectFrom('messages').selectAll().where('author', '=', 'alert').execute();
    expect(message.state).toBe('pending');
    await new Worker({
      db: t.db,
      clock: new ManualClock(new Date(alerting.day.getTime() + 3600_000)),
      settings: { pollMs: 20, alertHour: 24 },
    }).drain();
    expect(alerts()).toHaveLength(2);
    expect((await t.db.selectFrom('messages').select('state').where('id', '=', message.id).executeTakeFirstOrThrow()).state).toBe('sent');
    // The link of the send that did not go out no longer opens the page; the one sent does.
    expect((await t.app.inject({ method: 'GET', url: new URL(linkOf(alerts()[0])).pathname })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: new URL(linkOf(alerts()[1])).pathname })).statusCode).toBe(200);
  });

  // Two worker processes: a generous safety net for a loaded machine.
  it('are left for reconciliation, never sent twice, when the worker dies between the send and its record', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    const marta = await lead();
    await drain();
    await newListings();
    const [messageId] = await composeDigests(t.db, t.businessId, '2030-03-05', nowRfc3339());
    expect(await runCrashableWorker(t.db, t.url, 'message:called')).toBe('SIGKILL');
    expect(alerts()).toHaveLength(1);
    expect(await runCrashableWorker(t.db, t.url, null)).toBeNull();
    expect(alerts()).toHaveLength(1);
    const message = await t.db.selectFrom('messages').selectAll().where('id', '=', messageId).executeTakeFirstOrThrow();
    expect(message).toMatchObject({ lead_id: marta.id, author: 'alert', kind: 'template', state: 'needs_reconciliation' });
  }, 120_000);
});
