/**
 * Every page of the console, filled (issue 47, issue 57): the console's GET routes as the app
 * itself lists them (Fastify's route tree), and a workspace seeded so that each page has rows,
 * forms and words to show, with an example URL of each route. The words test
 * (test/db/console/console-words.test.ts) and the widths test (test/browser/every-page.browser.test.ts)
 * walk the same pages: a page added later has no example until one is written here, and both
 * fail naming it.
 *
 * The data is demo-like, and as long as real data gets: listings with the long titles and
 * addresses the demo catalogue writes, a lead with a long e-mail address, new leads of nobody
 * with a message, viewings of today and tomorrow, a WhatsApp thread, an e-mail not understood,
 * a catalogue upload's report.
 */
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { expect, vi } from 'vitest';
import { Worker } from '../../src/jobs/worker.ts';
import { createUser } from '../../src/services/access/console-users.ts';
import { createInboundAddress } from '../../src/services/leads/email-intake.ts';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { defaultTerms, termsForm } from '../../src/domain/owners/mandates.ts';
import { CLI } from '../../src/services/access/audit.ts';
import { saveMandateDraft, signMandate } from '../../src/services/owners/mandates.ts';
import { ComparableIndex, composeFigures } from '../../src/services/owners/owner-reports.ts';
import { insertOwnerReport, listComparableListings, listListingsUnderMandate } from '../../src/db/repositories/owner-reports.ts';
import { drawnSignature } from './signature.ts';
import { loggedIn, userWithPassword } from './console.ts';
import { importRecords, listing, propertyId, REPO_ROOT } from './db.ts';
import { post, type TestApp } from './http.ts';
import { seedDay } from './today.ts';

/** The console's GET routes, from Fastify's route tree (`app.printRoutes({commonPrefix: false, method: 'GET'})`): `/console/leads/:lead_id`… */
export function consoleRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = [...match[1]].length / 4;
    stack.length = depth;
    stack.push(match[2]);
    const route = stack.join('');
    if (route.startsWith('/console') && match[3].split(', ').includes('GET')) routes.push(route.replace(/\/$/, '') || '/');
  }
  return [...new Set(routes)];
}

/** An example of a route: a URL of it and who opens it (the owner, or nobody logged in), or why it has none. */
export type PageExample = { url: string; as: 'owner' | 'nobody' } | 'not a page';

/** The owner every example is opened as (password: test/helpers/console.ts `PASSWORD`). */
export const PAGES_OWNER = 'duena@words.example';

/** A title as long as the demo catalogue's (src/demo/catalogue-generator.ts). */
export const LONG_TITLE = 'Ático dúplex luminoso con terraza y plaza de garaje junto al parque de la Quinta, Ciudad Lineal, Madrid';

/**
 * Seeds `t`'s business with a day of work and a page's worth of everything, and returns an
 * example of each console route (keys: routes as {@link consoleRoutes} gives them; a few more
 * keys, `route (what)`, open a route again with other data).
 */
export async function seedConsolePages(t: TestApp): Promise<Record<string, PageExample>> {
  const owner = await userWithPassword(t.db, t.businessId, PAGES_OWNER, 'owner');
  const agent = await userWithPassword(t.db, t.businessId, 'agente@words.example', 'agent');
  const { lucia, mario, beasViewing } = await seedDay(t.db, t.businessId, agent.id, owner.id);
  await importRecords(t.db, t.businessId, [
    listing('W-1', { title: 'Ático en Chamberí', city: 'Madrid' }),
    listing('W-2', { title: 'Local en Delicias', type: 'local', subtype: 'local', operation: 'alquiler', price: null, price_rent: 900 }),
    listing('W-3', { title: 'Casa en Utebo', type: 'casa', subtype: 'chalet', status: 'reservada' }),
    listing('MAD-CIUDADLINEAL-000123', {
      title: LONG_TITLE,
      address: 'Calle de Arturo Soria 245, escalera izquierda, 7º B, Ciudad Lineal, Madrid',
      price: 1_250_000,
    }),
  ]);
  // Leads of each kind, matched by the worker: their pages show criteria, near misses and statuses.
  const inquiry = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Carmen Buscadora',
    type: 'demandante',
    phone_number_1: '+34 611 22 33 44',
    personal_email: 'carmen.buscadora.fernandez-villaverde@correo-muy-largo.example',
    source: 'web',
    message: 'Buenas tardes, me interesa el ático de Ciudad Lineal: ¿se puede visitar esta semana por la tarde?',
    search_preferences: [
      { operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }], apartamento: { price_max: 1_500_000 } },
    ],
  });
  expect(inquiry.status).toBe(200);
  // An e-mail not understood, to review.
  const { url } = await createInboundAddress(t.db, t.businessId);
  const raw = readFileSync(`${REPO_ROOT}/test/fixtures/email/no-contact.eml`);
  expect((await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'message/rfc822' }, payload: raw })).statusCode).toBe(202);
  await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
  const carmen = inquiry.body.lead_id as number;
  await t.db.updateTable('leads').set({ status: 'searching_property' }).where('id', '=', carmen).execute();

  // A catalogue upload, for its report.
  const browser = await loggedIn(t.app, PAGES_OWNER);
  const uploaded = await browser.upload(
    '/console/catalogue',
    { _csrf: await browser.token('/console/catalogue') },
    { field: 'file', name: 'zaragoza.ndjson', content: `${JSON.stringify(listing('W-9'))}\n{"external_ref": "W-10",\n` },
  );
  expect(uploaded.statusCode).toBe(303);
  const importPage = uploaded.headers.location as string;
  await vi.waitFor(async () => expect((await browser.get(importPage)).body).toMatch(/terminada|finished/), { timeout: 30_000 });

  const email = await t.db.selectFrom('inbound_emails').select(['id', 'state']).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const invited = await createUser(t.db, { businessId: t.businessId, email: 'nueva@words.example', role: 'agent' });
  const listingId = await propertyId(t.db, 'W-1');
  // An owner of W-1 with a long name, for the owner board.
  const rosario = (
    await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34611998877', name: 'María del Rosario Fernández-Villaverde' })
  ).id;
  await t.db.updateTable('leads').set({ type: 'propietario', owner_stage: 'valuation_scheduled' }).where('id', '=', rosario).execute();
  await t.db.updateTable('properties').set({ owner_lead_id: rosario }).where('id', '=', listingId).execute();
  // Its mandate: version 1 signed, version 2 drafted (the page then shows both, and the signing form).
  const first = await saveMandateDraft(
    t.db,
    t.businessId,
    listingId,
    termsForm(defaultTerms({ operation: 'venta', price: 250000 }, DateTime.now().setZone('Europe/Madrid').toISODate()!)),
    CLI,
  );
  await signMandate(
    t.db,
    t.businessId,
    first.id,
    {
      visitor_name: 'María del Rosario Fernández-Villaverde',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    },
    { by: 'link' },
  );
  await saveMandateDraft(
    t.db,
    t.businessId,
    listingId,
    termsForm(defaultTerms({ operation: 'venta', price: 240000 }, DateTime.now().setZone('Europe/Madrid').toISODate()!)),
    CLI,
  );
  const zone = (await t.db.selectFrom('businesses').select('timezone').where('id', '=', t.businessId).executeTakeFirstOrThrow()).timezone;
  // A report sent to it (CONTRACT §24), as composed now.
  const reportAt = new Date().toISOString().replace('Z', '+00:00');
  const figures = await composeFigures(
    t.db,
    await listListingsUnderMandate(t.db, [rosario]),
    new ComparableIndex(await listComparableListings(t.db, t.businessId)),
    { from: new Date(Date.now() - 7 * 86_400_000).toISOString().replace('Z', '+00:00'), to: reportAt },
    zone,
  );
  const report = await insertOwnerReport(t.db, {
    business_id: t.businessId,
    lead_id: rosario,
    period_from: figures.from,
    period_to: figures.to,
    figures: JSON.stringify(figures),
    language: 'es',
    message_id: null,
    page_token_hash: null,
    created_at: reportAt,
  });
  const examples: Record<string, PageExample> = {
    '/console': { url: '/console', as: 'owner' },
    '/console/*': 'not a page',
    '/console/login': { url: '/console/login', as: 'nobody' },
    '/console/set-password/:token': { url: new URL(invited.set_password_url, 'http://x').pathname, as: 'nobody' },
    '/console/assistant': { url: '/console/assistant', as: 'owner' },
    '/console/agenda': { url: `/console/agenda?view=week&user=all&date=${DateTime.now().setZone(zone).toISODate()}`, as: 'owner' },
    '/console/audit': { url: '/console/audit', as: 'owner' },
    '/console/leads': { url: '/console/leads', as: 'owner' },
    '/console/owners': { url: '/console/owners', as: 'owner' },
    '/console/leads/:lead_id': { url: `/console/leads/${carmen}`, as: 'owner' },
    '/console/leads/:lead_id/export': 'not a page',
    '/console/leads/:lead_id/valuation.pdf': 'not a page',
    '/console/leads/:lead_id/reports/:report_id': { url: `/console/leads/${rosario}/reports/${report}`, as: 'owner' },
    // An owner's page: its listings, mandates and reports.
    '/console/leads/:lead_id (an owner)': { url: `/console/leads/${rosario}`, as: 'owner' },
    '/console/leads/:lead_id/erase': { url: `/console/leads/${lucia}/erase`, as: 'owner' },
    '/console/viewings/:id': { url: `/console/viewings/${beasViewing}`, as: 'owner' },
    '/console/keys': { url: '/console/keys', as: 'owner' },
    '/console/keys/:key_id/revoke': { url: `/console/keys/${t.keyId}/revoke`, as: 'owner' },
    '/console/channel': { url: '/console/channel', as: 'owner' },
    '/console/catalogue': { url: '/console/catalogue', as: 'owner' },
    '/console/catalogue/imports/:import_id': { url: importPage, as: 'owner' },
    '/console/calendar': { url: '/console/calendar', as: 'owner' },
    '/console/email': { url: '/console/email', as: 'owner' },
    '/console/email/messages/:id': { url: `/console/email/messages/${email.id}`, as: 'owner' },
    '/console/users': { url: '/console/users', as: 'owner' },
    '/console/jobs': { url: '/console/jobs', as: 'owner' },
    '/console/inbox': { url: '/console/inbox', as: 'owner' },
    '/console/properties': { url: '/console/properties', as: 'owner' },
    '/console/properties/new': { url: '/console/properties/new', as: 'owner' },
    '/console/properties/:id': { url: `/console/properties/${listingId}`, as: 'owner' },
    '/console/properties/:id/sheet.pdf': 'not a page',
    '/console/properties/:id/mandate': { url: `/console/properties/${listingId}/mandate`, as: 'owner' },
    '/console/properties/:id/mandate.pdf': 'not a page',
    '/console/properties/:id/close': { url: `/console/properties/${listingId}/close?status=vendida`, as: 'owner' },
    '/console/settings': { url: '/console/settings', as: 'owner' },
    '/console/viewings/:id/sheet.pdf': 'not a page',
    // The lead of the morning's seed too: its follow-ups, viewings and a request that came again.
    '/console/leads/:lead_id (a lead with a day)': { url: `/console/leads/${lucia}`, as: 'owner' },
    // And one with a WhatsApp thread: who wrote each message, and where it is.
    '/console/leads/:lead_id (a lead with a thread)': { url: `/console/leads/${mario}`, as: 'owner' },
    // The listing with the demo's long title and address.
    '/console/properties/:id (a long title)': {
      url: `/console/properties/${await propertyId(t.db, 'MAD-CIUDADLINEAL-000123')}`,
      as: 'owner',
    },
  };
  return examples;
}
