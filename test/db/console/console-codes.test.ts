/**
 * Codes as words in the console (issue 57 item 8, CONTRACT §23): a lead's source in the leads
 * list and on its page (`web`, `email`, `manual`, and a lead made through the API without a
 * source, which is not "entered by hand"); "1 vez", not "1 veces", on Hoy; the listing page's
 * preview says what it shows without naming an endpoint; the audit names a saved outgoing mail
 * server as such, not as the WhatsApp channel.
 */
import { convert } from 'html-to-text';
import { describe, expect, it } from 'vitest';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { addLeadNote, changeLeadStatus } from '../../../src/services/leads/pipeline.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { calendarDocument, makeCalendarUrl } from '../../../src/services/viewings/calendar.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { post, withApp } from '../../helpers/http.ts';

const t = withApp();
const text = (html: string) => convert(html, { wordwrap: false });

async function inquiry(phone: string, name: string, fields: Record<string, unknown> = {}) {
  const response = await post(t.app, '/leads/inquiries', t.key, { name, type: 'buyer', phone_number_1: phone, ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.lead_id as number;
}

describe('the console says codes in words', () => {
  it('a lead’s source: words in the list and on its page; an API lead without a source is not "Introducido a mano"', async () => {
    const owner = await userWithPassword(t.db, t.businessId, 'duena@agency.example', 'owner');
    const browser = await loggedIn(t.app, owner.email);
    const web = await inquiry('+34611900001', 'Web Uno', { source: 'web' });
    await inquiry('+34611900002', 'Correo Dos', { source: 'email' });
    const api = await inquiry('+34611900003', 'Api Tres');
    const byHand = await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34611900004', name: 'Mano Cuatro' });
    const list = await browser.get('/console/leads');
    expect(list.statusCode).toBe(200);
    const rows = text(list.body);
    const row = (name: string) =>
      rows
        .split(name)[1]
        ?.split(' 2 ')[0]
        ?.split(/ \d{1,2} \w{3} \d{4}/)[0] ?? '';
    expect(row('Web Uno')).toContain('Web');
    expect(row('Web Uno')).not.toMatch(/\bweb\b/);
    expect(row('Correo Dos')).toContain('Otro correo');
    expect(row('Correo Dos')).not.toMatch(/\bemail\b/);
    expect(row('Api Tres')).toContain('Por la API, sin origen indicado');
    expect(row('Mano Cuatro')).toContain('Introducido a mano');
    expect(rows).not.toMatch(/\bmanual\b/);
    expect(text((await browser.get(`/console/leads/${web}`)).body)).toMatch(/Demandante Nuevo Web\b/);
    const apiPage = text((await browser.get(`/console/leads/${api}`)).body);
    expect(apiPage).toContain('Por la API, sin origen indicado');
    expect(apiPage).not.toContain('Introducido a mano');
    expect(text((await browser.get(`/console/leads/${byHand.id}`)).body)).toContain('Introducido a mano');
  });

  it('Hoy says "1 vez" for a lead that wrote again once, "2 veces" for twice', async () => {
    const browser = await loggedIn(t.app, 'duena@agency.example');
    const once = await inquiry('+34611900011', 'Repite Una');
    const twice = await inquiry('+34611900012', 'Repite Dos');
    const at = new Date().toISOString();
    const again = (leadId: number) =>
      t.db
        .insertInto('lead_interactions')
        .values({ business_id: t.businessId, lead_id: leadId, channel: 'inquiry', note: '', created_at: at } as never)
        .execute();
    await again(once);
    await again(twice);
    await again(twice);
    const today = text((await browser.get('/console')).body);
    expect(today).toMatch(/Repite Una[^\n]*?1 vez\b/);
    expect(today).toMatch(/Repite Dos[^\n]*?2 veces\b/);
    expect(today).not.toContain('1 veces');
  });

  it('the listing page names no endpoint', async () => {
    const browser = await loggedIn(t.app, 'duena@agency.example');
    await importRecords(t.db, t.businessId, [listing('WORDS-1')]);
    const page = await browser.get(`/console/properties/${await propertyId(t.db, 'WORDS-1')}`);
    expect(page.statusCode).toBe(200);
    expect(text(page.body)).not.toMatch(/GET \/properties/);
    expect(text(page.body)).toContain('con los datos que se publican de este inmueble');
  });

  it('the audit says an outgoing mail server was saved, not that the WhatsApp channel was connected', async () => {
    const browser = await loggedIn(t.app, 'duena@agency.example');
    const owner = await t.db.selectFrom('users').select('id').where('email', '=', 'duena@agency.example').executeTakeFirstOrThrow();
    await connectEmail(
      t.db,
      { businessId: t.businessId, url: 'smtps://u:p@mail.example.com', from: 'hola@agency.example', replyTo: null },
      { allowPrivateNetwork: true, channelHosts: [] },
      { type: 'user', id: owner.id },
    );
    const audit = text((await browser.get('/console/audit')).body);
    expect(audit).toContain('Guardó el servidor de correo saliente');
    expect(audit).toContain('el correo saliente');
    expect(audit).not.toContain('el canal de WhatsApp');
  });

  it('a user with a display name is named by it, not by e-mail, in the lead’s history, its notes and the calendar (CONTRACT §23)', async () => {
    const lucia = await createUser(t.db, {
      businessId: t.businessId,
      email: 'lucia.agente@agency.example',
      role: 'owner',
      name: 'Lucía Gómez',
    });
    const lead = await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34611900021', name: 'Historia Uno' });
    const actor = { userId: lucia.id, role: 'owner' as const, businessId: t.businessId };
    await changeLeadStatus(t.db, actor, lead.id, 'active_negotiation');
    await addLeadNote(t.db, actor, lead.id, 'Llamada hecha');
    await userWithPassword(t.db, t.businessId, 'jefa@agency.example', 'owner');
    const browser = await loggedIn(t.app, 'jefa@agency.example');
    const page = text((await browser.get(`/console/leads/${lead.id}`)).body);
    expect(page).toContain('Lucía Gómez');
    expect(page).not.toContain('lucia.agente@agency.example');
    const { path } = await makeCalendarUrl(t.db, lucia.id, t.businessId);
    const ics = (await calendarDocument(
      t.db,
      path
        .split('/')
        .pop()!
        .replace(/\.ics$/, ''),
      { host: 'inmo.test', origin: 'https://inmo.test' },
    ))!.toString('utf8');
    expect(ics.replace(/\r\n[ \t]/g, '')).toMatch(/X-WR-CALNAME:.*Lucía Gómez/);
    expect(ics).not.toContain('lucia.agente@agency.example');
  });
});
