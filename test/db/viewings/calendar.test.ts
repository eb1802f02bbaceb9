/**
 * Agents' calendars (issue 44, CONTRACT §20 "Agents' calendars"), on this process's engine: a
 * user's private URL `/calendar/<token>.ics` (only its hash kept, a new one revokes the one
 * before, revocable, made by the CLI and the console's CSRF-protected forms), and the document it
 * serves, read back by an independent parser (ical.js, Mozilla's) with the document's own
 * VTIMEZONE: local times and instants right on both sides of Madrid's changes of summer time
 * (28 March and 31 October 2027), statuses, SEQUENCE raised by a change, privacy of the address,
 * ETag and 304, and 404 for a token that opens nothing, with the token in no log line.
 */
import ICAL from 'ical.js';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { insertViewing } from '../../../src/db/repositories/viewings.ts';
import { hashToken, mintToken } from '../../../src/domain/capability-token.ts';
import type { ViewingStatus } from '../../../src/domain/viewings/status.ts';
import { calendarHost } from '../../../src/http/calendar.ts';
import { disableUser } from '../../../src/services/access/console-users.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { calendarWindowStart, makeCalendarUrl } from '../../../src/services/viewings/calendar.ts';
import { changeViewing } from '../../../src/services/viewings/transitions.ts';
import { inmo } from '../../helpers/cli.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      listing('pub', { title: 'Ático, con terraza; luminoso', address: 'Calle Mayor 1, 3ºB', city: 'Madrid', address_privacy: 'public' }),
      listing('approx', { address_privacy: 'approximate', address_approximate: 'Chamberí, Madrid', city: 'Madrid' }),
      listing('hidden', { address_privacy: 'hidden', address: 'Calle Secreta 9', city: 'Zaragoza' }),
    ]);
    await userWithPassword(db, businessId, 'ana@agencia.example', 'agent');
    await userWithPassword(db, businessId, 'bea@agencia.example', 'agent');
  },
});

afterEach(() => {
  ICAL.TimezoneService.reset();
});

const userId = async (email: string) =>
  (await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;

let phoneSeq = 0;
/** A lead of the test business. @returns its id and phone. */
const lead = async (name: string | null = 'Lucía Gómez') => {
  const phone = `+3461280${String(++phoneSeq).padStart(4, '0')}`;
  return { id: (await createLeadByHand(t.db, { businessId: t.businessId, phone, name })).id, phone };
};

/** A viewing stored as the services store one. @returns its id. */
const viewing = async (v: { user: number; ref?: string; lead?: number; starts: string; minutes?: number; status?: ViewingStatus }) => {
  const start = Date.parse(v.starts);
  const row = await insertViewing(t.db, {
    business_id: t.businessId,
    lead_id: v.lead ?? (await lead()).id,
    property_id: await propertyId(t.db, v.ref ?? 'pub'),
    user_id: v.user,
    starts_at: new Date(start).toISOString().replace('Z', '+00:00'),
    ends_at: new Date(start + (v.minutes ?? 30) * 60_000).toISOString().replace('Z', '+00:00'),
    status: v.status ?? 'scheduled',
    source: 'console',
    feedback: null,
    created_at: '2027-01-04T09:00:00.000+00:00',
    updated_at: '2027-01-04T09:00:00.000+00:00',
  });
  return row.id;
};

const fetchCalendar = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });

/** A new calendar URL of the user (its path). */
const urlOf = async (user: number) => (await makeCalendarUrl(t.db, user, t.businessId)).path;

/** The document read by ical.js, with its own VTIMEZONE registered (and no other). */
function parse(text: string) {
  ICAL.TimezoneService.reset();
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const events = calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      tzid: component.getFirstProperty('dtstart')!.getParameter('tzid'),
      start: event.startDate.toString(),
      end: event.endDate.toString(),
      startUtc: event.startDate.toJSDate().toISOString(),
      endUtc: event.endDate.toJSDate().toISOString(),
      sequence: event.sequence,
      status: component.getFirstPropertyValue('status'),
      stamp: String(component.getFirstPropertyValue('dtstamp')),
      summary: event.summary,
      location: event.location,
      description: event.description,
    };
  });
  return { calendar, events };
}

describe('the document', () => {
  it('gives local times with the business’s TZID and VTIMEZONE, right on both sides of each change of summer time', async () => {
    const ana = await userId('ana@agencia.example');
    const ids = [
      await viewing({ user: ana, starts: '2027-03-27T09:00:00Z' }), // Saturday 10:00, winter (+01:00)
      await viewing({ user: ana, starts: '2027-03-28T00:30:00Z', minutes: 60 }), // 01:30 to 03:30: across the jump
      await viewing({ user: ana, starts: '2027-03-28T08:00:00Z' }), // Sunday 10:00, summer (+02:00)
      await viewing({ user: ana, starts: '2027-10-30T08:00:00Z' }), // Saturday 10:00, summer
      await viewing({ user: ana, starts: '2027-10-31T09:00:00Z' }), // Sunday 10:00, winter again
    ];
    const answer = await fetchCalendar(await urlOf(ana));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(answer.body).toMatch(/^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\n/);
    expect(answer.body).toContain('DTSTART;TZID=Europe/Madrid:20270328T100000\r\n');
    const { calendar, events } = parse(answer.body);
    const zone = calendar.getFirstSubcomponent('vtimezone')!;
    expect(zone.getFirstPropertyValue('tzid')).toBe('Europe/Madrid');
    expect(events.map((e) => e.uid)).toEqual(ids.map((id) => `viewing-${id}@inmo`));
    expect(events.map((e) => e.tzid)).toEqual(Array(5).fill('Europe/Madrid'));
    expect(events.map((e) => [e.start, e.end])).toEqual([
      ['2027-03-27T10:00:00', '2027-03-27T10:30:00'],
      ['2027-03-28T01:30:00', '2027-03-28T03:30:00'],
      ['2027-03-28T10:00:00', '2027-03-28T10:30:00'],
      ['2027-10-30T10:00:00', '2027-10-30T10:30:00'],
      ['2027-10-31T10:00:00', '2027-10-31T10:30:00'],
    ]);
    // The parser turns them into the instants stored, with the document's VTIMEZONE alone.
    expect(events.map((e) => [e.startUtc, e.endUtc])).toEqual([
      ['2027-03-27T09:00:00.000Z', '2027-03-27T09:30:00.000Z'],
      ['2027-03-28T00:30:00.000Z', '2027-03-28T01:30:00.000Z'],
      ['2027-03-28T08:00:00.000Z', '2027-03-28T08:30:00.000Z'],
      ['2027-10-30T08:00:00.000Z', '2027-10-30T08:30:00.000Z'],
      ['2027-10-31T09:00:00.000Z', '2027-10-31T09:30:00.000Z'],
    ]);
    // DTSTAMP is UTC, as RFC 5545 §3.8.7.2 requires: the viewing's last change.
    expect(answer.body).toContain('DTSTAMP:20270104T090000Z\r\n');
  });

  it('follows the business’s own zone', async () => {
    await t.db.updateTable('businesses').set({ timezone: 'America/New_York' }).where('id', '=', t.businessId).execute();
    const ana = await userId('ana@agencia.example');
    await viewing({ user: ana, starts: '2027-03-15T13:00:00Z' }); // New York is on summer time from 14 March 2027
    const { events } = parse((await fetchCalendar(await urlOf(ana))).body);
    expect(events.map((e) => [e.tzid, e.start, e.startUtc])).toEqual([
      ['America/New_York', '2027-03-15T09:00:00', '2027-03-15T13:00:00.000Z'],
    ]);
  });

  it('holds that agent’s viewings alone, from the start of the local day 90 days back onwards', async () => {
    const [ana, bea] = [await userId('ana@agencia.example'), await userId('bea@agencia.example')];
    const from = calendarWindowStart(Date.now(), 'Europe/Madrid');
    const kept = await viewing({ user: ana, starts: from });
    await viewing({ user: ana, starts: new Date(Date.parse(from) - 60_000).toISOString() });
    await viewing({ user: bea, starts: '2099-01-05T10:00:00Z' });
    const later = await viewing({ user: ana, starts: '2099-01-05T10:00:00Z' });
    expect(parse((await fetchCalendar(await urlOf(ana))).body).events.map((e) => e.uid)).toEqual([
      `viewing-${kept}@inmo`,
      `viewing-${later}@inmo`,
    ]);
    // Midnight in Madrid 90 days before.
    expect(new Date(from).toLocaleString('en-GB', { timeZone: 'Europe/Madrid', hour: '2-digit', minute: '2-digit' })).toBe('00:00');
    expect((Date.now() - Date.parse(from)) / 86_400_000).toBeGreaterThan(90 - 1 / 24);
    expect((Date.now() - Date.parse(from)) / 86_400_000).toBeLessThan(91 + 1 / 24);
  });

  it('says each status, and a cancelled or moved viewing comes with a higher SEQUENCE', async () => {
    const ana = await userId('ana@agencia.example');
    const statuses: ViewingStatus[] = ['requested', 'scheduled', 'confirmed', 'done', 'no_show', 'cancelled'];
    const ids: number[] = [];
    for (const [i, status] of statuses.entries()) ids.push(await viewing({ user: ana, starts: `2027-04-0${i + 1}T15:00:00Z`, status }));
    const toCancel = await viewing({ user: ana, starts: '2027-04-12T08:00:00Z' }); // Monday 10:00
    const toMove = await viewing({ user: ana, starts: '2027-04-13T08:00:00Z' }); // Tuesday 10:00
    const url = await urlOf(ana);
    const before = parse((await fetchCalendar(url)).body).events;
    expect(before.slice(0, 6).map((e) => e.status)).toEqual(['TENTATIVE', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CANCELLED']);
    expect(before.map((e) => e.sequence)).toEqual(Array(8).fill(0));

    const now = Date.parse('2027-04-05T10:00:00Z');
    await changeViewing(t.db, t.businessId, toCancel, { action: 'cancel' }, { now });
    await changeViewing(t.db, t.businessId, toMove, { action: 'reschedule', startsAt: Date.parse('2027-04-13T15:00:00Z') }, { now });
    const after = parse((await fetchCalendar(url)).body).events;
    const cancelled = after.find((e) => e.uid === `viewing-${toCancel}@inmo`)!;
    const moved = after.find((e) => e.uid === `viewing-${toMove}@inmo`)!;
    expect([cancelled.status, cancelled.sequence]).toEqual(['CANCELLED', 1]);
    expect([moved.status, moved.sequence, moved.start, moved.end]).toEqual(['CONFIRMED', 1, '2027-04-13T17:00:00', '2027-04-13T17:30:00']);
    expect(moved.stamp).toBe('2027-04-05T10:00:00Z');
    expect(after.filter((e) => e.uid !== cancelled.uid && e.uid !== moved.uid).map((e) => e.sequence)).toEqual(Array(6).fill(0));
  });

  it('tells viewings apart by the lead’s first name (the time for a nameless lead), places them as privacy allows, and carries no phone or surname', async () => {
    const ana = await userId('ana@agencia.example');
    const lucia = await lead('Lucía Gómez');
    const pedro = await lead('Pedro Ruiz Soler');
    const nameless = await lead(null);
    const ids = [
      await viewing({ user: ana, ref: 'pub', lead: lucia.id, starts: '2027-05-03T08:00:00Z' }),
      // The same listing an hour later, for another lead.
      await viewing({ user: ana, ref: 'pub', lead: pedro.id, starts: '2027-05-03T09:00:00Z' }),
      await viewing({ user: ana, ref: 'approx', lead: nameless.id, starts: '2027-05-04T08:00:00Z' }),
      await viewing({ user: ana, ref: 'hidden', lead: lucia.id, starts: '2027-05-05T08:00:00Z' }),
    ];
    const answer = await fetchCalendar(await urlOf(ana));
    const { calendar, events } = parse(answer.body);
    const page = (id: number) => `http://localhost/console/viewings/${id}`;
    expect(events.map((e) => [e.summary, e.location, e.description])).toEqual([
      ['Lucía · Ático, con terraza; luminoso', 'Calle Mayor 1, 3ºB, Madrid', `Ref. pub\n${page(ids[0])}`],
      ['Pedro · Ático, con terraza; luminoso', 'Calle Mayor 1, 3ºB, Madrid', `Ref. pub\n${page(ids[1])}`],
      ['10:00 · Piso approx', 'Chamberí, Madrid', `Ref. approx\n${page(ids[2])}`],
      ['Lucía · Piso hidden', 'Zaragoza', `Ref. hidden\n${page(ids[3])}`],
    ]);
    expect(calendar.getAllSubcomponents('vevent').map((e) => e.getFirstPropertyValue('url'))).toEqual(ids.map(page));
    // The hidden listing's street is nowhere, nor an exact address of the approximate one.
    expect(answer.body).not.toContain('Secreta');
    expect(answer.body).not.toContain('Calle Mayor 1, Madrid');
    // The URL may be shared: no phone, no surname (docs/console.md).
    const unfolded = answer.body.replace(/\r\n[ \t]/g, '');
    for (const kept of [lucia.phone, pedro.phone, nameless.phone, 'Gómez', 'Ruiz']) expect(unfolded).not.toContain(kept);
    // The only location a reader meets is the place: never the time zone's name.
    const locations = unfolded.split('\r\n').filter((line) => /LOCATION/.test(line.split(':')[0]));
    expect(locations).toEqual([
      'LOCATION:Calle Mayor 1\\, 3ºB\\, Madrid',
      'LOCATION:Calle Mayor 1\\, 3ºB\\, Madrid',
      'LOCATION:Chamberí\\, Madrid',
      'LOCATION:Zaragoza',
    ]);
  });

  it('writes UIDs under the host of INMO_PUBLIC_URL, never a request’s Host', () => {
    expect(calendarHost('https://crm.agencia.example:8443/base')).toBe('crm.agencia.example');
    expect(calendarHost(null)).toBe('inmo');
  });
});

describe('conditional reads', () => {
  it('carries a strong ETag, answers 304 to it, compresses, and changes its ETag when a viewing changes', async () => {
    const ana = await userId('ana@agencia.example');
    const id = await viewing({ user: ana, starts: '2099-04-06T08:00:00Z' });
    for (let i = 0; i < 20; i++) await viewing({ user: ana, starts: `2099-05-${String(i + 1).padStart(2, '0')}T08:00:00Z` });
    const url = await urlOf(ana);
    const first = await fetchCalendar(url);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const unchanged = await fetchCalendar(url, { 'if-none-match': etag });
    expect([unchanged.statusCode, unchanged.body, unchanged.headers.etag]).toEqual([304, '', etag]);
    const gzipped = await fetchCalendar(url, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.etag).toBe(etag.replace(/"$/, '-gzip"'));
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(first.body);
    expect((await fetchCalendar(url, { 'if-none-match': gzipped.headers.etag as string })).statusCode).toBe(304);
    // Another process (app) on the same database gives the same bytes and tag.
    const other = await buildApp({ db: t.db });
    try {
      expect((await other.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    } finally {
      await other.close();
    }
    await changeViewing(t.db, t.businessId, id, { action: 'confirm' });
    const changed = await fetchCalendar(url, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    // A listing's new title (written as every listing write is, by an import here) is a new document too.
    const again = changed.headers.etag as string;
    expect((await fetchCalendar(url, { 'if-none-match': again })).statusCode).toBe(304);
    await importRecords(t.db, t.businessId, [listing('pub', { title: 'Ático reformado' })]);
    const retitled = await fetchCalendar(url, { 'if-none-match': again });
    expect(retitled.statusCode).toBe(200);
    expect(parse(retitled.body).events[0].summary).toBe('Lucía · Ático reformado');
    // And a lead's new name (every write of a lead sets its updated_at).
    const third = retitled.headers.etag as string;
    await t.db.updateTable('leads').set({ name: 'Otra Persona', updated_at: '2099-01-01T00:00:00.000+00:00' }).execute();
    const renamed = await fetchCalendar(url, { 'if-none-match': third });
    expect(renamed.statusCode).toBe(200);
    expect(parse(renamed.body).events[0].summary).toMatch(/^Otra · /);
  });
});

describe('the URL', () => {
  const cli = (...args: string[]) => inmo({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' }, 'viewings', 'calendar', ...args);

  it('is made by the CLI, shown once, replaced by a new one, revoked; only its hash is kept', async () => {
    const ana = await userId('ana@agencia.example');
    await viewing({ user: ana, starts: '2099-04-06T08:00:00Z' });
    const made = await cli('--user', String(ana), '--json');
    expect(made.code).toBe(0);
    expect(made.json).toEqual({ url: expect.stringMatching(/^\/calendar\/[A-Za-z0-9_-]{43}\.ics$/) });
    const url = made.json.url as string;
    const token = url.slice('/calendar/'.length, -'.ics'.length);
    expect(JSON.stringify(await t.db.selectFrom('calendar_urls').selectAll().execute())).not.toContain(token);
    expect((await fetchCalendar(url)).statusCode).toBe(200);

    const withOrigin = await inmo(
      { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_PUBLIC_URL: 'https://crm.agencia.example/' },
      'viewings',
      'calendar',
      '--user',
      String(ana),
      '--json',
    );
    const next = withOrigin.json.url as string;
    expect(next).toMatch(/^https:\/\/crm\.agencia\.example\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    expect((await fetchCalendar(url)).statusCode).toBe(404);
    const nextPath = new URL(next).pathname;
    expect((await fetchCalendar(nextPath)).statusCode).toBe(200);

    expect((await cli('--user', String(ana), '--revoke', '--json')).json).toEqual({ revoked: true });
    expect((await fetchCalendar(nextPath)).statusCode).toBe(404);
    expect((await cli('--user', String(ana), '--revoke', '--json')).json).toEqual({ revoked: false });
    const audit = await t.db.selectFrom('audit_log').select(['actor_type', 'action', 'target_type', 'target_id']).orderBy('id').execute();
    expect(audit.filter((a) => a.action.startsWith('calendar.'))).toEqual([
      { actor_type: 'cli', action: 'calendar.create', target_type: 'user', target_id: String(ana) },
      { actor_type: 'cli', action: 'calendar.create', target_type: 'user', target_id: String(ana) },
      { actor_type: 'cli', action: 'calendar.revoke', target_type: 'user', target_id: String(ana) },
    ]);
  });

  it('refuses an unknown or disabled user and changes nothing', async () => {
    const before = await snapshot(t.db);
    const unknown = await cli('--user', '999999', '--json');
    expect([unknown.code, unknown.json]).toEqual([1, { error: 'No user with id 999999' }]);
    expect(await snapshot(t.db)).toBe(before);
    const bea = await userId('bea@agencia.example');
    await disableUser(t.db, bea, null);
    const disabledAt = await snapshot(t.db);
    const disabled = await cli('--user', String(bea), '--json');
    expect([disabled.code, disabled.json]).toEqual([
      1,
      { error: `User ${bea} is disabled: a calendar URL is made only for an active user` },
    ]);
    expect(await snapshot(t.db)).toBe(disabledAt);
  });

  it('answers 404 as any unknown path to a token that opens nothing, a disabled user’s included', async () => {
    const ana = await userId('ana@agencia.example');
    const url = await urlOf(ana);
    const nowhere = await fetchCalendar('/nothing-here');
    const refusals = [
      url.replace(/[A-Za-z0-9_-]{43}/, 'A'.repeat(43)),
      url.replace('.ics', '.txt'),
      url.replace(/[A-Za-z0-9_-]{43}/, 'short'),
      '/calendar/',
    ];
    for (const path of refusals) {
      const answer = await fetchCalendar(path);
      expect([path, answer.statusCode, answer.body, answer.headers['content-type']]).toEqual([
        path,
        404,
        nowhere.body,
        nowhere.headers['content-type'],
      ]);
    }
    expect((await fetchCalendar(url)).statusCode).toBe(200);
    await disableUser(t.db, ana, null);
    expect((await fetchCalendar(url)).statusCode).toBe(404);
  });

  it('still opens with a token made before issue 56 (43 base62 characters), kept by the same hash', async () => {
    const ana = await userId('ana@agencia.example');
    const url = await urlOf(ana);
    const old = mintToken('base62').token;
    const { numUpdatedRows } = await t.db
      .updateTable('calendar_urls')
      .set({ token_hash: hashToken(old) })
      .where('token_hash', '=', hashToken(url.slice('/calendar/'.length, -'.ics'.length)))
      .executeTakeFirst();
    expect(numUpdatedRows).toBe(1n);
    expect((await fetchCalendar(`/calendar/${old}.ics`)).statusCode).toBe(200);
    expect((await fetchCalendar(url)).statusCode).toBe(404);
  });

  it('is never logged: the request line names the route’s pattern', async () => {
    const ana = await userId('ana@agencia.example');
    const url = await urlOf(ana);
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logged = await buildApp({ db: t.db, logger: { level: 'debug', stream } });
    try {
      expect((await logged.inject({ method: 'GET', url })).statusCode).toBe(200);
      await makeCalendarUrl(t.db, ana, t.businessId);
      expect((await logged.inject({ method: 'GET', url })).statusCode).toBe(404);
    } finally {
      await logged.close();
    }
    const token = url.slice('/calendar/'.length, -'.ics'.length);
    expect(lines.join('')).toContain('"route":"/calendar/:file"');
    expect(lines.join('')).not.toContain(token);
  });
});

describe('the console', () => {
  const tokenIn = (body: string) => /id="calendar-url" readonly value="(http:\/\/[^"]+)"/.exec(body)?.[1];

  it('makes the user’s URL, shows it once, replaces and revokes it, each form behind its CSRF check', async () => {
    const ana = await userId('ana@agencia.example');
    await viewing({ user: ana, starts: '2099-04-06T08:00:00Z' });
    const browser = await loggedIn(t.app, 'ana@agencia.example');
    const empty = await browser.get('/console/calendar');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('Aún no tienes dirección de calendario.');

    const before = await snapshot(t.db);
    expect((await browser.request('POST', '/console/calendar', {})).statusCode).toBe(403);
    expect((await browser.request('POST', '/console/calendar', { _csrf: 'forged' })).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);

    const made = await browser.submit('/console/calendar', '/console/calendar', {});
    expect(made.statusCode).toBe(201);
    const url = tokenIn(made.body)!;
    expect(url).toMatch(/^http:\/\/[^/]+\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    expect(made.body).toContain(`href="${url.replace(/^http:/, 'webcal:')}"`);
    const path = new URL(url).pathname;
    expect((await fetchCalendar(path)).statusCode).toBe(200);

    const page = await browser.get('/console/calendar');
    expect(page.body).not.toContain(path);
    expect(page.body).toContain('Tienes una dirección activa desde el');

    const replaced = tokenIn((await browser.submit('/console/calendar', '/console/calendar', {})).body)!;
    expect((await fetchCalendar(path)).statusCode).toBe(404);
    const newPath = new URL(replaced).pathname;
    expect((await fetchCalendar(newPath)).statusCode).toBe(200);

    const unrevoked = await snapshot(t.db);
    expect((await browser.request('POST', '/console/calendar/revoke', {})).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(unrevoked);
    const revoked = await browser.submit('/console/calendar', '/console/calendar/revoke', {});
    expect([revoked.statusCode, revoked.headers.location]).toEqual([303, '/console/calendar?revoked=1']);
    expect((await fetchCalendar(newPath)).statusCode).toBe(404);
    expect((await browser.get('/console/calendar?revoked=1')).body).toContain('Dirección revocada');
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_id', 'action'])
      .where('action', 'like', 'calendar.%')
      .execute();
    expect(audit).toEqual([
      { actor_type: 'user', actor_id: String(ana), action: 'calendar.create' },
      { actor_type: 'user', actor_id: String(ana), action: 'calendar.create' },
      { actor_type: 'user', actor_id: String(ana), action: 'calendar.revoke' },
    ]);
  });

  it('speaks English, and each user sees and changes only their own URL', async () => {
    const bea = await userId('bea@agencia.example');
    await makeCalendarUrl(t.db, bea, t.businessId);
    const english = new Browser(t.app, { 'accept-language': 'en' });
    await english.login('ana@agencia.example');
    const page = await english.get('/console/calendar');
    expect(page.body).toContain('Your calendar on your phone');
    expect(page.body).toContain('You have no calendar address yet.');
    await english.submit('/console/calendar', '/console/calendar/revoke', {});
    const beas = await t.db.selectFrom('calendar_urls').select('revoked_at').where('user_id', '=', bea).execute();
    expect(beas).toEqual([{ revoked_at: null }]);
  });

  it('needs a session', async () => {
    const anonymous = await new Browser(t.app).get('/console/calendar');
    expect([anonymous.statusCode, anonymous.headers.location]).toEqual([303, '/console/login?next=%2Fconsole%2Fcalendar']);
  });
});
