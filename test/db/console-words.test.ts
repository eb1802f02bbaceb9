/**
 * Words everywhere (issue 47, CONTRACT §23): every page of the console, in Spanish and in English,
 * shows no code of a vocabulary raw and no time outside the business's time zone.
 *
 * - **Every page**: the console's GET routes are read from the app itself (Fastify's route tree),
 *   so a page added later is walked too, or this test fails naming the route it has no example of.
 * - **A code shown raw**: a word of the visible text (html-to-text: no markup, scripts, styles,
 *   link targets or images) that is a value of one of the console's vocabularies (labels.ts, the
 *   `*_LABEL` maps) and is not a word of that language's own messages (messages/es.json,
 *   en.json). So `searching_property`, `no_show`, `agencia-inmobiliaria`, `property.withdraw` or
 *   `buyer` fail in both languages; `disponible` fails on an English page, `scheduled` on a Spanish one.
 * - **Times**: the business keeps `America/Mexico_City`, neither UTC nor Madrid, so a time written
 *   in either is caught: each `<time datetime>` shows the date (and, when it shows one, the hour
 *   and minute) its instant has in that zone. No visible text holds an RFC 3339 instant or an ISO date.
 */
import { readFileSync } from 'node:fs';
import { convert } from 'html-to-text';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import * as labels from '../../src/http/console/labels.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { createUser } from '../../src/services/access/console-users.ts';
import { createInboundAddress } from '../../src/services/leads/email-intake.ts';
import { Browser, loggedIn, userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, propertyId, REPO_ROOT } from '../helpers/db.ts';
import { post, withApp } from '../helpers/http.ts';
import { seedDay } from '../helpers/today.ts';

const ZONE = 'America/Mexico_City';
const LANGUAGES = { es: 'es-ES,es;q=0.9', en: 'en-GB,en;q=0.9' } as const;
type Language = keyof typeof LANGUAGES;

/**
 * Every value of every vocabulary the console has words for, but the listings' languages (`es`,
 * `en`, `de`…): `en` and `de` are also Spanish words of the listings' own titles.
 */
const CODES = new Set(
  Object.entries(labels)
    .filter(([name, value]) => name.endsWith('_LABEL') && name !== 'LISTING_LANGUAGE_LABEL' && typeof value === 'object' && value !== null)
    .flatMap(([, value]) => Object.keys(value as object)),
);

/** The words of a language's messages, lower-cased. */
function wordsOf(language: Language): Set<string> {
  const messages = JSON.parse(readFileSync(`${REPO_ROOT}/src/http/console/messages/${language}.json`, 'utf8')) as Record<string, string>;
  return new Set(
    Object.values(messages)
      .flatMap((text) => text.toLowerCase().split(/[^\p{L}\p{N}_.:-]+/u))
      .map((word) => word.replace(/^[.:-]+|[.:-]+$/g, '')),
  );
}
const WORDS = { es: wordsOf('es'), en: wordsOf('en') };

/** The codes a page's visible text shows raw (see the module's comment). */
function rawCodes(text: string, language: Language): string[] {
  return [
    ...new Set(
      text
        .split(/[^\p{L}\p{N}_.:-]+/u)
        .map((word) => word.replace(/^[.:-]+|[.:-]+$/g, ''))
        .filter((word) => CODES.has(word) && !WORDS[language].has(word)),
    ),
  ];
}

/** What a person sees of a page: its text, without markup, scripts, link targets or images. */
const visible = (html: string) =>
  // A space before each tag, so that the words of adjacent elements (a select's options) stay apart.
  convert(html.replace(/</g, ' <'), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      // A code the page shows as one on purpose (a key's scope beside its words, for integrators).
      { selector: 'code', format: 'skip' },
      // What people wrote (a lead's notes), marked as text not to translate.
      { selector: '[translate="no"]', format: 'skip' },
    ],
  });

/** Each `<time datetime>` whose text does not read as its instant does in {@link ZONE}. */
function timesOutOfZone(html: string, language: Language): string[] {
  const wrong: string[] = [];
  for (const [, datetime, text] of html.matchAll(/<time[^>]*datetime="([^"]+)"[^>]*>([^<]*)<\/time>/g)) {
    // A local date (a viewing's day) is the business's already.
    if (!datetime.includes('T')) continue;
    const local = DateTime.fromISO(datetime, { zone: ZONE }).setLocale(language === 'es' ? 'es-ES' : 'en-GB');
    const shown = text.replace(/\s+/g, ' ');
    // A time shows its hour and minute (the day may be the page's heading); a date, its day.
    const hour = /\b(\d{1,2}):(\d{2})\b/.exec(shown);
    const right = hour
      ? `${Number(hour[1])}:${hour[2]}` === `${local.hour}:${local.toFormat('mm')}`
      : new RegExp(`\\b0?${local.day}\\b`).test(shown);
    if (!right) wrong.push(`${datetime} shown as "${shown}" (in ${ZONE}: ${local.toFormat('d LLL HH:mm')})`);
  }
  return wrong;
}

/** The console's GET routes, from Fastify's route tree: `/console/leads/:lead_id`… */
function consoleRoutes(tree: string): string[] {
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

describe('words everywhere', () => {
  const t = withApp();
  let examples: Record<string, { url: string; as: 'owner' | 'nobody' } | 'not a page'>;

  beforeAll(async () => {
    await t.db.updateTable('businesses').set({ timezone: ZONE }).where('id', '=', t.businessId).execute();
    const owner = await userWithPassword(t.db, t.businessId, 'duena@words.example', 'owner');
    const agent = await userWithPassword(t.db, t.businessId, 'agente@words.example', 'agent');
    const { lucia, mario, beasViewing } = await seedDay(t.db, t.businessId, agent.id, owner.id);
    await importRecords(t.db, t.businessId, [
      listing('W-1', { title: 'Ático en Chamberí', city: 'Madrid' }),
      listing('W-2', { title: 'Local en Delicias', type: 'local', subtype: 'local', operation: 'alquiler', price: null, price_rent: 900 }),
      listing('W-3', { title: 'Casa en Utebo', type: 'casa', subtype: 'chalet', status: 'reservada' }),
    ]);
    // Leads of each kind, matched by the worker: their pages show criteria, near misses and statuses.
    const inquiry = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Carmen Buscadora',
      type: 'demandante',
      phone_number_1: '+34 611 22 33 44',
      source: 'web',
      search_preferences: [
        { operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }], apartamento: { price_max: 150000 } },
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
    const browser = await loggedIn(t.app, 'duena@words.example');
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
    examples = {
      '/console': { url: '/console', as: 'owner' },
      '/console/*': 'not a page',
      '/console/login': { url: '/console/login', as: 'nobody' },
      '/console/set-password/:token': { url: new URL(invited.set_password_url, 'http://x').pathname, as: 'nobody' },
      '/console/assistant': { url: '/console/assistant', as: 'owner' },
      '/console/agenda': { url: `/console/agenda?view=week&user=all&date=${DateTime.now().setZone(ZONE).toISODate()}`, as: 'owner' },
      '/console/audit': { url: '/console/audit', as: 'owner' },
      '/console/leads': { url: '/console/leads', as: 'owner' },
      '/console/leads/:lead_id': { url: `/console/leads/${carmen}`, as: 'owner' },
      '/console/leads/:lead_id/export': 'not a page',
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
      '/console/properties/:id/close': { url: `/console/properties/${listingId}/close?status=vendida`, as: 'owner' },
      '/console/settings': { url: '/console/settings', as: 'owner' },
      '/console/viewings/:id/sheet.pdf': 'not a page',
    };
    // The lead of the morning's seed too: its follow-ups, viewings and a request that came again.
    examples['/console/leads/:lead_id (a lead with a day)'] = { url: `/console/leads/${lucia}`, as: 'owner' };
    // And one with a WhatsApp thread: who wrote each message, and where it is.
    examples['/console/leads/:lead_id (a lead with a thread)'] = { url: `/console/leads/${mario}`, as: 'owner' };
  });

  it('walks every console page it has an example of, and has one of every page', () => {
    const routes = consoleRoutes(t.app.printRoutes({ commonPrefix: false, method: 'GET' }));
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((route) => !(route in examples))).toEqual([]);
  });

  for (const language of Object.keys(LANGUAGES) as Language[]) {
    it(`shows words, never codes, and the business's times, on every page in ${language}`, async () => {
      const as = (headers: Record<string, string>) => new Browser(t.app, headers);
      const browsers = { owner: as({ 'accept-language': LANGUAGES[language] }), nobody: as({ 'accept-language': LANGUAGES[language] }) };
      await browsers.owner.login('duena@words.example');
      const faults: string[] = [];
      let walked = 0;
      for (const [route, example] of Object.entries(examples)) {
        if (example === 'not a page') continue;
        const response = await browsers[example.as].get(example.url);
        expect(response.statusCode, `${route}: ${example.url}`).toBe(200);
        walked += 1;
        const text = visible(response.body);
        for (const code of rawCodes(text, language))
          faults.push(
            `${route}: the code "${code}" in "${text.slice(Math.max(0, text.indexOf(code) - 60), text.indexOf(code) + 40).replace(/\s+/g, ' ')}"`,
          );
        for (const time of timesOutOfZone(response.body, language)) faults.push(`${route}: ${time}`);
        for (const [instant] of text.matchAll(/\b\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}\S*)?/g))
          faults.push(`${route}: "${instant}" written as a code`);
      }
      expect(walked).toBeGreaterThan(20);
      expect(faults).toEqual([]);
    });
  }
});
