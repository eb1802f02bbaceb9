/**
 * The viewing form of a listing's public page (CONTRACT §21, §20), on this process's engine:
 * `/l/<token>` offers the free slots of the next 7 days in the business's time zone; a choice
 * with a name, phone and consent books a `requested` viewing with source `website`, then a
 * thank-you page in the page's language; a known phone keeps the request as an interaction of
 * its lead (§22); a slot taken meanwhile is 409, books nobody twice and shows the slots again;
 * every refusal stores nothing; posts are limited per client IP as the inquiry form's are.
 */
import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { post as apiPost, withApp } from '../../helpers/http.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ZONE = 'Europe/Madrid';

/** The slots a page offers, in order: `[value, day label, time label]`. */
function offered(html: string): Array<{ value: string; day: string; time: string }> {
  const select = /<select id="v-slot"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '';
  const slots: Array<{ value: string; day: string; time: string }> = [];
  for (const group of select.matchAll(/<optgroup label="([^"]+)">([\s\S]*?)<\/optgroup>/g)) {
    for (const option of group[2].matchAll(/<option value="([^"]+)"[^>]*>([^<]+)<\/option>/g)) {
      slots.push({ value: option[1], day: group[1], time: option[2] });
    }
  }
  return slots;
}

describe('the viewing form of a listing page', () => {
  let token = '';
  let listingId = 0;
  let phones = 0;
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@uno.example', 'agent');
      await importRecords(db, businessId, [listing('VISITA', { title: 'Piso para visitar', price: 200_000 })]);
      listingId = await propertyId(db, 'VISITA');
      token = (await listingPageToken(db, businessId, listingId))!;
    },
  });

  const page = async (lang = 'es') => t.app.inject({ method: 'GET', url: `/l/${token}?lang=${lang}` });
  const ask = (fields: Record<string, string>, lang = 'es', remoteAddress = '10.9.0.1') =>
    t.app.inject({
      method: 'POST',
      url: `/l/${token}?lang=${lang}`,
      headers: FORM,
      payload: new URLSearchParams({ form: 'viewing', ...fields }).toString(),
      remoteAddress,
    });
  const person = (slot: string, extra: Record<string, string> = {}) => ({
    slot,
    name: 'Irene Soler',
    phone: `61255${String(++phones).padStart(4, '0')}`,
    consent: '1',
    ...extra,
  });

  it('offers the free slots of the next 7 days in the business’s time zone, and books a requested website viewing', async () => {
    const html = (await page()).body;
    const slots = offered(html);
    expect(slots.length).toBeGreaterThan(10);
    const first = Date.parse(slots[0].value);
    expect(first).toBeGreaterThan(Date.now());
    expect(first).toBeLessThan(Date.now() + 8 * 24 * 3600_000);
    const local = DateTime.fromMillis(first, { zone: ZONE }).setLocale('es');
    expect(slots[0].time).toBe(local.toFormat('HH:mm'));
    expect(slots[0].day).toBe(local.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long' }));
    expect(html).toContain('<h2 id="h-visit">Pide una visita</h2>');

    const response = await ask(person(slots[1].value, { email: 'irene@example.com' }));
    expect(response.statusCode, response.body).toBe(303);
    expect(response.headers.location).toBe(`/l/${token}?lang=es&visit=${Date.parse(slots[1].value)}`);
    const viewing = await t.db.selectFrom('viewings').selectAll().executeTakeFirstOrThrow();
    expect(viewing).toMatchObject({ status: 'requested', source: 'website', property_id: listingId });
    expect(Date.parse(viewing.starts_at)).toBe(Date.parse(slots[1].value));
    const lead = await t.db.selectFrom('leads').selectAll().where('id', '=', viewing.lead_id).executeTakeFirstOrThrow();
    expect(lead).toMatchObject({
      name: 'Irene Soler',
      personal_email: 'irene@example.com',
      source: 'listing_page',
      preferred_language: 'es',
    });

    // The thank-you page says the day and time in words, in the page's language.
    const thanks = await t.app.inject({ method: 'GET', url: response.headers.location as string });
    expect(thanks.statusCode).toBe(200);
    expect(thanks.body).toContain('¡Gracias! Hemos recibido tu petición de visita');
    const at = DateTime.fromMillis(Date.parse(slots[1].value), { zone: ZONE }).setLocale('es');
    expect(thanks.body).toContain(`el ${at.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long' })}, ${at.toFormat('HH:mm')}`);
    const english = await t.app.inject({ method: 'GET', url: `/l/${token}?lang=en&visit=${Date.parse(slots[1].value)}` });
    expect(english.body).toContain('Thank you! We have received your viewing request');
    expect(english.body).toContain('<html lang="en">');

    // The slot taken is offered no more.
    expect(offered((await page()).body).map((s) => s.value)).not.toContain(slots[1].value);
  });

  it('a slot just taken says so (409), books nobody twice, stores nothing and shows the slots again', async () => {
    const slots = offered((await page()).body);
    expect((await ask(person(slots[0].value))).statusCode).toBe(303);
    const before = await snapshot(t.db);
    // A second person on a page loaded before the first booked.
    const late = await ask(person(slots[0].value, { name: 'Óscar Vidal' }));
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('<p class="field-problem" id="ve-slot">Esa hora se acaba de ocupar: elige otra.</p>');
    expect(late.body).toContain('value="Óscar Vidal"');
    const again = offered(late.body).map((s) => s.value);
    expect(again).not.toContain(slots[0].value);
    expect(again).toContain(slots[1].value);
    expect(await snapshot(t.db)).toBe(before);
    expect(await t.db.selectFrom('viewings').select('id').execute()).toHaveLength(1);
  });

  it('keeps the request of a known phone as an interaction of its lead, whose viewing it is', async () => {
    const known = await apiPost(t.app, '/leads/inquiries', t.key, { name: 'Nuria Sanz', type: 'buyer', phone_number_1: '+34612559999' });
    expect(known.status).toBe(200);
    const leads = (await t.db.selectFrom('leads').select('id').execute()).length;
    const slots = offered((await page()).body);
    expect((await ask({ slot: slots[0].value, name: 'Nuria', phone: '612 55 99 99', consent: '1' })).statusCode).toBe(303);
    expect(await t.db.selectFrom('leads').select('id').execute()).toHaveLength(leads);
    const viewing = await t.db.selectFrom('viewings').selectAll().executeTakeFirstOrThrow();
    expect(viewing).toMatchObject({ lead_id: known.body.lead_id, status: 'requested', source: 'website' });
    const interactions = await t.db.selectFrom('lead_interactions').selectAll().where('lead_id', '=', known.body.lead_id).execute();
    expect(interactions).toHaveLength(1);
    expect((await t.db.selectFrom('leads').select('name').where('id', '=', known.body.lead_id).executeTakeFirstOrThrow()).name).toBe(
      'Nuria Sanz',
    );
  });

  it('refuses faults beside their fields (422) and a slot not offered, storing nothing; a trap field is answered as if sent', async () => {
    const slots = offered((await page('en')).body);
    const before = await snapshot(t.db);
    const faulty = await ask({ slot: '', name: ' ', phone: '12', email: 'x', submission: 'c'.repeat(32) }, 'en');
    expect(faulty.statusCode).toBe(422);
    for (const [field, words] of [
      ['slot', 'Choose a day and time.'],
      ['name', 'This field is required.'],
      ['phone', 'Enter a valid phone number'],
      ['email', 'Enter a valid email address.'],
      ['consent', 'Tick the box so that we may contact you.'],
    ]) {
      expect(faulty.body).toContain(`<p class="field-problem" id="ve-${field}">${words}`);
      expect(faulty.body).toContain(`aria-describedby="ve-${field}" aria-invalid="true"`);
    }
    // A time in the past, or outside the viewing hours (a Sunday at 03:00), is no slot.
    for (const slot of [
      '2020-01-06T10:00:00+01:00',
      DateTime.now().setZone(ZONE).plus({ weeks: 1 }).set({ weekday: 7, hour: 3, minute: 0, second: 0, millisecond: 0 }).toISO()!,
    ]) {
      const refused = await ask(person(slot), 'en');
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('<p class="field-problem" id="ve-slot">That time can no longer be asked for: choose another.</p>');
    }
    const trapped = await ask(person(slots[0].value, { website: 'http://spam.example' }));
    expect(trapped.statusCode).toBe(303);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('answers 410 for a listing that left the catalogue, storing nothing', async () => {
    const slots = offered((await page()).body);
    await t.db.updateTable('properties').set({ listed: 0 }).where('id', '=', listingId).execute();
    const before = await snapshot(t.db);
    const gone = await ask(person(slots[0].value));
    expect(gone.statusCode).toBe(410);
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('the viewing form of a listing page, per client IP', () => {
  let token = '';
  const t = withApp({
    app: { rateLimits: { perKeyPerMinute: 0, postPerIpPerMinute: 0, publishablePostPerIpPerMinute: 2 } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@uno.example', 'agent');
      await importRecords(db, businessId, [listing('UNO')]);
      token = (await listingPageToken(db, businessId, await propertyId(db, 'UNO')))!;
    },
  });

  it('shares the inquiry form’s limit: a third post is 429 with a page in words, storing nothing', async () => {
    const html = (await t.app.inject({ method: 'GET', url: `/l/${token}` })).body;
    const slots = offered(html);
    const send = (n: number, form: 'viewing' | 'inquiry') =>
      t.app.inject({
        method: 'POST',
        url: `/l/${token}`,
        headers: FORM,
        payload: new URLSearchParams({ form, slot: slots[n].value, name: `P${n}`, phone: `61234580${n}`, consent: '1' }).toString(),
        remoteAddress: '10.8.1.1',
      });
    expect((await send(0, 'inquiry')).statusCode).toBe(303);
    expect((await send(1, 'viewing')).statusCode).toBe(303);
    const before = await snapshot(t.db);
    const third = await send(2, 'viewing');
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(third.body).toContain('Se han enviado demasiadas consultas desde tu conexión');
    expect(await snapshot(t.db)).toBe(before);
  });
});
