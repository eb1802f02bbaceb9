/**
 * Alerts on price drops (issue 57 item 9, CONTRACT §21 "or drops its price by 3 % or more"),
 * through the real pipeline: the catalogue imported again at a new price, the worker's re-match,
 * `inmo alerts run` as its service, and a real SMTP server on loopback (test/helpers/smtp.ts).
 *
 * The reference a drop is measured from is the price the lead last saw the listing at (sent in
 * an alert or by hand), else the price it had when it started matching the lead: so a listing
 * that matched a lead and was never sent to it is news once its price falls 3 % below that,
 * small drops adding up; never after "No me interesa"; and once sent, not again at that price.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { setLeadWantsAlerts } from '../../../src/services/leads/alerts.ts';
import { insertDismissal } from '../../../src/db/repositories/alerts.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';
import { alertsTest, CONSENT } from '../../helpers/alerts.ts';

const t = withApp({ surfaces: API_ONLY, each: true });
/** The SMTP server, the worker, and the alert runs, a day apart (test/helpers/alerts.ts). */
const alerting = alertsTest(t);
const { drain, runAlerts } = alerting;
let phones = 0;
/** The catalogue's edits, each written a day after the one before. */
let edits = 0;

beforeEach(() => {
  edits = 0;
});

/** A searching buyer of a flat up to 200,000 € who takes alerts; @returns its id. */
async function lead(email: string, fields: Record<string, unknown> = {}): Promise<number> {
  const response = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Marta Ruiz',
    type: 'buyer',
    phone_number_1: `+34611900${String(++phones).padStart(3, '0')}`,
    personal_email: email,
    consent: CONSENT,
    search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000 } }],
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.lead_id as number;
}

/**
 * Two leads (one Spanish, one English) whose first matching finds FLAT-1 at 150,000 €: it
 * matches them, and is never sent (what a first matching finds is no alert).
 */
async function matchedNeverSent() {
  await importRecords(t.db, t.businessId, [listing('FLAT-1', { title: 'Piso con balcón', price: 150_000 })]);
  const ana = await lead('ana@example.com');
  const ben = await lead('ben@example.com', { preferred_language: 'gb' });
  await drain();
  alerting.smtp.received.length = 0; // their welcomes
  expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
  return { ana, ben };
}

/** FLAT-1 imported again at a new price (a day later), and the worker's re-match run. */
async function priceIs(price: number) {
  edits++;
  await importRecords(t.db, t.businessId, [
    listing('FLAT-1', { title: 'Piso con balcón', price, updated_at: `2026-02-${String(edits).padStart(2, '0')}T10:00:00+00:00` }),
  ]);
  await drain();
}

const recipients = () => alerting.smtp.received.flatMap((r) => r.to).sort();
const mailTo = (address: string): ParsedMail[] => alerting.smtp.received.filter((r) => r.to.includes(address)).map((r) => r.mail);

describe('alerts on price drops', () => {
  it('send a matched listing never sent once it drops 3 %, saying the price it dropped from, and not again at that price', async () => {
    const { ana } = await matchedNeverSent();
    await priceIs(145_500);
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(recipients()).toEqual(['ana@example.com', 'ben@example.com']);

    const [es] = mailTo('ana@example.com');
    expect(es.text).toContain('[Ha bajado de precio] Piso con balcón');
    expect(es.text).toMatch(/145\.500\s€ \(antes 150\.000\s€\)/);
    expect(es.html).toMatch(/Ha bajado de precio · <s>150\.000\s€<\/s>/);
    const [en] = mailTo('ben@example.com');
    expect(en.text).toContain('[Price reduced]');
    expect(en.text).toMatch(/145\.500\s€ \(was 150\.000\s€\)/);
    expect(await t.db.selectFrom('alert_items').select(['reason', 'price', 'price_before']).where('lead_id', '=', ana).execute()).toEqual([
      { reason: 'price_drop', price: 145_500, price_before: 150_000 },
    ]);

    // Sent at 145,500 €: neither the next run nor the same price written again sends it.
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    await priceIs(145_500);
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(alerting.smtp.received).toHaveLength(2);
  });

  it('a drop of 2.9 % is not news; one of 3 % from the same reference is', async () => {
    await matchedNeverSent();
    await priceIs(145_650);
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    expect(alerting.smtp.received).toEqual([]);

    await priceIs(145_500);
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(mailTo('ana@example.com')[0].text).toMatch(/145\.500\s€ \(antes 150\.000\s€\)/);
  });

  it('two drops of 2 % add up to news, measured from the price when the listing started matching', async () => {
    await matchedNeverSent();
    await priceIs(147_000);
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    await priceIs(144_060);
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(mailTo('ana@example.com')[0].text).toMatch(/144\.060\s€ \(antes 150\.000\s€\)/);
  });

  it('never reach a lead who said "No me interesa" to the listing', async () => {
    const { ana } = await matchedNeverSent();
    await insertDismissal(t.db, {
      lead_id: ana,
      property_id: await propertyId(t.db, 'FLAT-1'),
      business_id: t.businessId,
      created_at: new Date().toISOString(),
    });
    await priceIs(135_000);
    expect(await runAlerts()).toEqual({ sent: 1, leads: 1 });
    expect(recipients()).toEqual(['ben@example.com']);
  });

  it('a listing sent before is measured from the price sent, and a rise does not move the reference', async () => {
    const { ana } = await matchedNeverSent();
    await priceIs(140_000);
    expect(await runAlerts()).toMatchObject({ sent: 2 });
    await priceIs(150_000);
    await priceIs(137_000);
    expect(await runAlerts()).toEqual({ sent: 0, leads: 0 });
    await priceIs(135_800);
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(
      await t.db.selectFrom('alert_items').select(['reason', 'price', 'price_before']).where('lead_id', '=', ana).orderBy('id').execute(),
    ).toEqual([
      { reason: 'price_drop', price: 140_000, price_before: 150_000 },
      { reason: 'price_drop', price: 135_800, price_before: 140_000 },
    ]);
  });

  it('measure a listing that entered the catalogue after the first matching from its price then (the re-match records it)', async () => {
    await importRecords(t.db, t.businessId, [listing('FLAT-1', { price: 150_000 })]);
    const ana = await lead('ana@example.com', { consent: { ...CONSENT, marketing: false } });
    await lead('bea@example.com');
    await drain();
    alerting.smtp.received.length = 0;
    // NEW-1 enters while Ana takes no alerts: it matches her, and is not sent to her.
    await importRecords(t.db, t.businessId, [listing('NEW-1', { title: 'Ático', price: 190_000 })]);
    await drain();
    expect(await runAlerts()).toEqual({ sent: 1, leads: 1 });
    expect(recipients()).toEqual(['bea@example.com']);
    alerting.smtp.received.length = 0;
    // Her agent ticks "wants alerts"; a drop of 3 % from 190,000 € is news to her.
    await setLeadWantsAlerts(t.db, t.businessId, ana, true);
    await importRecords(t.db, t.businessId, [
      listing('NEW-1', { title: 'Ático', price: 184_300, updated_at: '2026-03-01T10:00:00+00:00' }),
    ]);
    await drain();
    expect(await runAlerts()).toEqual({ sent: 2, leads: 2 });
    expect(recipients()).toEqual(['ana@example.com', 'bea@example.com']);
    expect(mailTo('ana@example.com')[0].text).toMatch(/184\.300\s€ \(antes 190\.000\s€\)/);
  });
});
