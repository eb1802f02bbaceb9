/**
 * Alerts (CONTRACT §21, issue 45), against a real SMTP server on loopback (test/helpers/smtp.ts):
 * a listing that newly matches searching leads reaches, in the next digest, those who consented
 * to marketing (or whose agent ticked "wants alerts"), once; again after a price drop of 3 % or
 * more, not after a smaller one; never after "No me interesa", an opt-out, or once the lead is
 * closed; a crash between the send and its record sends nothing twice; the worker composes the
 * round at the alert hour, business time; `inmo alerts run` sends the next round now, once.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { composeDigests } from '../../../src/services/leads/alerts.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { alertsTest, CONSENT } from '../../helpers/alerts.ts';
import { runCrashableWorker } from '../../helpers/processes.ts';

const t = withApp({ each: true });
/** The SMTP server, the worker, and the alert runs, a day apart (test/helpers/alerts.ts). */
const alerting = alertsTest(t);
const { drain, runAlerts, recipients } = alerting;
let phones = 0;

/** A searching buyer of a flat in Madrid up to 200,000 €; @returns its id. */
async function lead(email: string, fields: Record<string, unknown> = {}): Promise<number> {
  const response = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Marta Ruiz',
    type: 'buyer',
    phone_number_1: `+34611800${String(++phones).padStart(3, '0')}`,
    personal_email: email,
    search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000 } }],
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.lead_id as number;
}

/** Three searching leads, matched once against a catalogue without what follows. */
async function threeLeads() {
  await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
  const ana = await lead('ana@example.com', { consent: CONSENT });
  const bea = await lead('bea@example.com', { consent: CONSENT, preferred_language: 'gb' });
  const carla = await lead('carla@example.com', { consent: { ...CONSENT, marketing: false } });
  await drain();
  alerting.smtp.received.length = 0; // their welcomes
  return { ana, bea, carla };
}

/** Imports (or re-imports) listings and lets matching run. */
async function catalogue(...records: Array<Record<string, unknown>>) {
  await importRecords(t.db, t.businessId, records);
  await drain();
}

/** A raw message with its folded header lines joined. */
const unfolded = (raw: string) => raw.replace(/\r?\n[ \t]+/g, ' ');
const mailTo = (address: string): ParsedMail[] => alerting.smtp.received.filter((r) => r.to.includes(address)).map((r) => r.mail);

describe('alerts', () => {
  it('send a newly matching listing to the consenting leads only, once, in their language, with both parts and the unsubscribe headers', async () => {
    await threeLeads();
    // The first matching of a lead is no alert: what matched then was already there.
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });

    await catalogue(
      listing('NEW-1', {
        title: 'Ático con terraza',
        titles: { es: 'Ático con terraza', en: 'Penthouse with a terrace' },
        price: 180_000,
        size_total: 95,
        bedrooms: 3,
      }),
    );
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(recipients()).toEqual(['ana@example.com', 'bea@example.com']);

    const [es] = mailTo('ana@example.com');
    expect(es.subject).toContain('Un inmueble que encaja');
    expect(es.text).toContain('Ático con terraza');
    expect(es.text).toMatch(/180\.000\s€/);
    expect(es.text).toContain('95 m²');
    expect(es.text).toContain('3 hab.');
    expect(es.text).toContain('Madrid');
    expect(es.text).toMatch(/No me interesa: http:\/\/127\.0\.0\.1:8080\/a\/[A-Za-z0-9_-]{43}/);
    // Without a listing_url template of the business's own, the listing links its page on inmo (CONTRACT §21).
    const page = await listingPageToken(t.db, t.businessId, await propertyId(t.db, 'NEW-1'));
    expect(es.text).toContain(`Ver el inmueble: http://127.0.0.1:8080/l/${page}`);
    expect(es.html).toContain(`href="http://127.0.0.1:8080/l/${page}"`);
    expect((await t.app.inject({ method: 'GET', url: `/l/${page}` })).statusCode).toBe(200);
    expect(es.html).toContain('Ático con terraza');
    expect(es.html).toContain('No me interesa');
    for (const { raw } of alerting.smtp.received) expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    for (const { raw } of alerting.smtp.received)
      expect(unfolded(raw)).toMatch(/List-Unsubscribe: <http:\/\/127\.0\.0\.1:8080\/u\/[A-Za-z0-9_-]{43}>/);
    const [en] = mailTo('bea@example.com');
    expect(en.subject).toContain('A property matching your search');
    expect(en.text).toContain('Not interested:');
    // The listing's own English title (issue 46), not the Spanish one.
    expect(en.text).toContain('Penthouse with a terrace');
    expect(en.text).not.toContain('Ático con terraza');

    // The listing is in the conversation, and the next digest does not carry it again.
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(alerting.smtp.received).toHaveLength(2);
  });

  it('send a listing again after its price fell by 5 %, not after 1 %', async () => {
    const { ana } = await threeLeads();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    expect(await runAlerts()).toMatchObject({ sent: 2 });

    await catalogue(listing('NEW-1', { price: 171_000, updated_at: '2026-02-01T10:00:00+00:00' }));
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    const again = mailTo('ana@example.com')[1];
    expect(again.text).toContain('[Ha bajado de precio]');
    expect(again.text).toMatch(/171\.000\s€/);

    await catalogue(listing('NEW-1', { price: 169_290, updated_at: '2026-02-02T10:00:00+00:00' }));
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(mailTo('ana@example.com')).toHaveLength(2);

    // Measured from the price last sent: a further 2 % (3.0 % in all since 171,000 €) sends it.
    await catalogue(listing('NEW-1', { price: 165_870, updated_at: '2026-02-03T10:00:00+00:00' }));
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(await t.db.selectFrom('alert_items').select(['reason', 'price']).where('lead_id', '=', ana).orderBy('id').execute()).toEqual([
      { reason: 'new', price: 180_000 },
      { reason: 'price_drop', price: 171_000 },
      { reason: 'price_drop', price: 165_870 },
    ]);
  });

  it('never send a listing again after "No me interesa", recorded as an interaction of the lead', async () => {
    const { ana, bea } = await threeLeads();
    await catalogue(listing('NEW-1', { title: 'Piso luminoso', price: 180_000 }));
    await runAlerts();
    const link = /No me interesa: (http:\/\/\S+)/.exec(mailTo('ana@example.com')[0].text!)![1];
    const path = new URL(link).pathname;

    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Piso luminoso');
    expect(page.body).toContain(`<form method="post" action="${path}">`);
    expect(await t.db.selectFrom('lead_dismissals').selectAll().execute()).toEqual([]);

    const done = await t.app.inject({ method: 'POST', url: path, payload: '' });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('no volveremos a enviarte');
    expect((await t.app.inject({ method: 'POST', url: path, payload: '' })).statusCode).toBe(200);
    const interactions = await t.db.selectFrom('lead_interactions').select(['lead_id', 'channel', 'note']).execute();
    expect(interactions).toEqual([{ lead_id: ana, channel: 'alert', note: expect.stringContaining('NEW-1') }]);
    expect((await t.app.inject({ method: 'GET', url: '/a/' + 'x'.repeat(43) })).statusCode).toBe(404);

    // A 10 % drop reaches the lead who did not dismiss it, not the one who did.
    await catalogue(listing('NEW-1', { price: 162_000, updated_at: '2026-02-01T10:00:00+00:00' }));
    alerting.smtp.received.length = 0;
    expect(await runAlerts()).toEqual({ sent: 1, leads: 1 });
    expect(recipients()).toEqual(['bea@example.com']);
    expect(
      (await t.db.selectFrom('alert_items').select('lead_id').where('reason', '=', 'price_drop').execute()).map((r) => r.lead_id),
    ).toEqual([bea]);
  });

  it('stop after an opt-out, and for a closed lead', async () => {
    const { ana, bea } = await threeLeads();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    await runAlerts();
    const raw = alerting.smtp.received.find((r) => r.to.includes('ana@example.com'))!.raw;
    const unsubscribe = /List-Unsubscribe: <([^>]+)>/.exec(unfolded(raw))![1];
    expect(
      (await t.app.inject({ method: 'POST', url: new URL(unsubscribe).pathname, payload: 'List-Unsubscribe=One-Click' })).statusCode,
    ).toBe(200);
    await t.db.updateTable('leads').set({ status: 'closed' }).where('id', '=', bea).execute();

    alerting.smtp.received.length = 0;
    await catalogue(listing('NEW-2', { price: 170_000 }));
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(alerting.smtp.received).toEqual([]);
    expect(await t.db.selectFrom('alert_candidates').selectAll().execute()).toEqual([]);
    expect(ana).toBeGreaterThan(0);
  });

  it('reach a lead without consent whose agent ticked "wants alerts"', async () => {
    const { carla } = await threeLeads();
    await t.db.updateTable('leads').set({ wants_alerts: 1 }).where('id', '=', carla).execute();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    expect(await runAlerts()).toEqual({ sent: 3, leads: 3 });
    expect(recipients()).toEqual(['ana@example.com', 'bea@example.com', 'carla@example.com']);
  });

  it('carry at most 5 listings, newest first; the rest wait for the next digest', async () => {
    await threeLeads();
    for (let i = 1; i <= 7; i++) await catalogue(listing(`NEW-${i}`, { title: `Piso número ${i}`, price: 150_000 + i }));
    await runAlerts();
    const [first] = mailTo('ana@example.com');
    expect(first.subject).toContain('5 inmuebles');
    const order = [...first.text!.matchAll(/Piso número (\d)/g)].map((m) => Number(m[1]));
    expect(order).toEqual([7, 6, 5, 4, 3]);
    await runAlerts();
    const second = mailTo('ana@example.com')[1];
    expect([...second.text!.matchAll(/Piso número (\d)/g)].map((m) => Number(m[1]))).toEqual([2, 1]);
  });

  it('are composed by the worker at the alert hour, business time, once a day', async () => {
    await threeLeads();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    const at = (iso: string) => new Worker({ db: t.db, clock: new ManualClock(iso), settings: { pollMs: 20, alertHour: 10 } }).drain();
    // 09:59 in Madrid (UTC+1 in March): not yet.
    await at('2030-03-05T08:59:00Z');
    expect(alerting.smtp.received).toHaveLength(0);
    await at('2030-03-05T09:00:00Z');
    expect(recipients()).toEqual(['ana@example.com', 'bea@example.com']);
    await at('2030-03-05T15:00:00Z');
    expect(alerting.smtp.received).toHaveLength(2);
    expect(await t.db.selectFrom('businesses').select('alerts_round').where('id', '=', t.businessId).executeTakeFirst()).toEqual({
      alerts_round: '2030-03-05',
    });
  });

  it('read the alert hour in the business’s own time zone', async () => {
    await t.db.updateTable('businesses').set({ timezone: 'America/New_York' }).where('id', '=', t.businessId).execute();
    await threeLeads();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    const at = (iso: string) => new Worker({ db: t.db, clock: new ManualClock(iso), settings: { pollMs: 20, alertHour: 10 } }).drain();
    // 10:00 in Madrid is 04:00 in New York: not yet; 10:00 there (UTC-5 in March) is 15:00 UTC.
    await at('2030-03-05T09:00:00Z');
    await at('2030-03-05T14:59:00Z');
    expect(alerting.smtp.received).toHaveLength(0);
    await at('2030-03-05T15:00:00Z');
    expect(recipients()).toEqual(['ana@example.com', 'bea@example.com']);
  });

  it('`inmo alerts run` sends the next digest now, and a second run right after sends nothing', async () => {
    await threeLeads();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    const env = { DATABASE_URL: t.url, INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const first = await inmo(env, 'alerts', 'run', '--business', String(t.businessId), '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({ sent: 2, leads: 2 });
    const second = await inmo(env, 'alerts', 'run', '--json');
    expect(second.json).toEqual({ sent: 0, leads: 0 });
    expect((await inmo(env, 'alerts', 'run')).stdout).toContain('no lead has listings it was not sent yet');
    expect(alerting.smtp.received).toHaveLength(2);
    // Its jobs, later, find the e-mails sent and send nothing.
    await new Worker({
      db: t.db,
      clock: new ManualClock(new Date(Date.now() + 3600_000)),
      settings: { pollMs: 20, alertHour: 24 },
    }).drain();
    expect(alerting.smtp.received).toHaveLength(2);
    expect((await inmo(env, 'alerts', 'run', '--business', '999', '--json')).code).not.toBe(0);
  });

  it('`inmo alerts run` from a shell without the SMTP settings says why, fails nothing, and leaves the round due', async () => {
    await threeLeads();
    await catalogue(listing('NEW-1', { price: 180_000 }));
    // The server sends through INMO_SMTP_URL; this shell has neither it nor a server of the business's own.
    await t.db.deleteFrom('email_settings').where('business_id', '=', t.businessId).execute();
    const env = { DATABASE_URL: t.url, INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const bare = await inmo(env, 'alerts', 'run', '--business', String(t.businessId), '--json');
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.json).toEqual({ sent: 0, leads: 0, reason: expect.stringContaining('INMO_SMTP_URL and INMO_SMTP_FROM are not set here') });
    expect(bare.json.reason).toContain('stay due');
    const text = await inmo(env, 'alerts', 'run', '--business', String(t.businessId));
    expect(text.stdout).toMatch(/0 alert digest\(s\) sent.*\n.*e-mail cannot be sent from this process/);
    expect(await t.db.selectFrom('messages').select('state').where('author', '=', 'alert').execute()).toEqual([]);
    // A run where the settings are set sends the same round now, not the next day.
    vi.stubEnv('INMO_SMTP_URL', alerting.smtp.url);
    vi.stubEnv('INMO_SMTP_FROM', 'Agencia Sol <hola@agency.example>');
    try {
      const set = await inmo(
        { ...env, INMO_SMTP_URL: alerting.smtp.url, INMO_SMTP_FROM: 'Agencia Sol <hola@agency.example>' },
        'alerts',
        'run',
        '--json',
      );
      expect(set.json).toEqual({ sent: 2, leads: 2 });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(recipients()).toEqual(['ana@example.com', 'bea@example.com']);
  });

  // Two worker processes: a generous safety net for a loaded machine.
  it('are left for reconciliation, never sent twice, when the worker dies between the send and its record', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    const ana = await lead('ana@example.com', { consent: CONSENT });
    await drain();
    alerting.smtp.received.length = 0; // its welcome
    await catalogue(listing('NEW-1', { price: 180_000 }));
    const [messageId] = await composeDigests(t.db, t.businessId, '2030-03-05', nowRfc3339());
    expect(await runCrashableWorker(t.db, t.url, 'message:called')).toBe('SIGKILL');
    expect(alerting.smtp.received).toHaveLength(1);
    expect(await runCrashableWorker(t.db, t.url, null)).toBeNull();
    expect(alerting.smtp.received).toHaveLength(1);
    const message = await t.db.selectFrom('messages').selectAll().where('id', '=', messageId).executeTakeFirstOrThrow();
    expect(message).toMatchObject({ lead_id: ana, author: 'alert', state: 'needs_reconciliation' });
    expect(await propertyId(t.db, 'NEW-1')).toBeGreaterThan(0);
  }, 120_000);

  it('a digest the SMTP server refuses for now is retried by its job', async () => {
    await importRecords(t.db, t.businessId, [listing('OLD-1', { price: 150_000 })]);
    await lead('ana@example.com', { consent: CONSENT });
    await drain();
    alerting.smtp.received.length = 0; // its welcome
    await catalogue(listing('NEW-1', { price: 180_000 }));
    await alerting.smtp.close();
    expect(await runAlerts()).toMatchObject({
      sent: 0,
      leads: 1,
      reason: expect.stringMatching(/^1 digest\(s\) not sent now \(.*\); their jobs retry them$/),
    });
    const [message] = await t.db.selectFrom('messages').selectAll().where('author', '=', 'alert').execute();
    expect(message.state).toBe('pending');
    await alerting.startSmtpAgain();
    await alerting.connectEmail();
    await new Worker({
      db: t.db,
      clock: new ManualClock(new Date(alerting.day.getTime() + 3600_000)),
      settings: { pollMs: 20, alertHour: 24 },
    }).drain();
    expect(recipients()).toEqual(['ana@example.com']);
    expect((await t.db.selectFrom('messages').select('state').where('id', '=', message.id).executeTakeFirstOrThrow()).state).toBe('sent');
  });
  it('are shown on GET /leads/{id}/matches (`sent_at`, `dismissed`) and on the lead page, where an agent ticks "wants alerts"', async () => {
    const { ana, carla } = await threeLeads();
    await catalogue(
      listing('NEW-1', { title: 'Piso luminoso', price: 180_000 }),
      listing('NEW-2', { title: 'Piso exterior', price: 170_000 }),
    );
    await runAlerts();
    const sent = (
      await t.db.selectFrom('messages').select('sent_at').where('lead_id', '=', ana).where('author', '=', 'alert').executeTakeFirstOrThrow()
    ).sent_at;
    const path = new URL(/No me interesa: (http:\/\/\S+)/.exec(mailTo('ana@example.com')[0].text!.split('Piso exterior')[1])![1]).pathname;
    await t.app.inject({ method: 'POST', url: path, payload: '' });

    const matches = await get(t.app, `/leads/${ana}/matches`, t.key);
    expect(matches.status).toBe(200);
    const marks = Object.fromEntries(
      (matches.body.data as Array<{ external_ref?: string; id: number; sent_at: string | null; dismissed: boolean }>).map((m) => [m.id, m]),
    );
    const [one, two, old] = [await propertyId(t.db, 'NEW-1'), await propertyId(t.db, 'NEW-2'), await propertyId(t.db, 'OLD-1')];
    expect(marks[one]).toMatchObject({ sent_at: sent, dismissed: false });
    expect(marks[two]).toMatchObject({ sent_at: sent, dismissed: true });
    expect(marks[old]).toMatchObject({ sent_at: null, dismissed: false });
    expect(sent).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);

    await userWithPassword(t.db, t.businessId, 'agente@agency.example', 'agent');
    const browser = await loggedIn(t.app, 'agente@agency.example');
    const page = await browser.request('GET', `/console/leads/${ana}`);
    expect(page.body).toContain('Inmuebles enviados');
    expect(page.body).toContain('Piso luminoso');
    expect(page.body).toMatch(/Piso exterior<\/a>[^<]*<strong>no le interesa<\/strong>/);
    expect(page.body).toContain('por correo');

    expect((await browser.submit(`/console/leads/${carla}`, `/console/leads/${carla}/alerts`, { wants_alerts: '1' })).statusCode).toBe(303);
    expect((await t.db.selectFrom('leads').select('wants_alerts').where('id', '=', carla).executeTakeFirstOrThrow()).wants_alerts).toBe(1);
    expect((await browser.request('GET', `/console/leads/${carla}`)).body).toMatch(/name="wants_alerts" type="checkbox" value="1" checked/);
    expect((await browser.submit(`/console/leads/${carla}`, `/console/leads/${carla}/alerts`, {})).statusCode).toBe(303);
    expect((await t.db.selectFrom('leads').select('wants_alerts').where('id', '=', carla).executeTakeFirstOrThrow()).wants_alerts).toBe(0);
  });
});
