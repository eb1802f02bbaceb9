/**
 * Portal e-mails in (issue 43, CONTRACT §19): `POST /webhooks/email/<token>` keeps a message
 * once with its `process_email` job (202), refuses an unknown or revoked token (404), another
 * content type (415) and a message over 10 MiB (413) without writing anything; the job makes
 * the lead as an inquiry would (source, search from the listing the reference names, the same
 * jobs), adds the request to a known person instead (CONTRACT §22), or keeps the message as not
 * understood. The messages go with the lead's erasure, come with its export, and are purged
 * after 30 days.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { eraseLead } from '../../../src/services/leads/erasure.ts';
import {
  createInboundAddress,
  EMAIL_MAX_BYTES,
  purgeOldInboundEmails,
  revokeInboundAddress,
} from '../../../src/services/leads/email-intake.ts';
import { importRecords, listing, propertyId, REPO_ROOT, snapshot, businessWithKey } from '../../helpers/db.ts';
import { inmo } from '../../helpers/cli.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';

const t = withApp({ each: true });
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'email');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

/** Posts `raw` to `url` as a mail server's pipe does. */
async function postEmail(url: string, raw: Buffer | string | Readable, headers: Record<string, string> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'message/rfc822', ...headers },
    payload: raw,
  });
  let body: any = response.body;
  try {
    body = response.json();
  } catch {
    // not JSON
  }
  return { status: response.statusCode, body };
}

const drain = () => new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();

const emails = (db: Db) => db.selectFrom('inbound_emails').selectAll().orderBy('id').execute();
const jobsOf = async (db: Db, leadId: number) =>
  (await db.selectFrom('jobs').select('kind').where('lead_id', '=', leadId).orderBy('id').execute()).map((j) => j.kind);
const leadRow = (db: Db, id: number) => db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const leadCount = async (db: Db) => (await db.selectFrom('leads').select('id').execute()).length;

/** The listings the fixtures name, in the test's business. */
async function seedListings(): Promise<void> {
  await importRecords(t.db, t.businessId, [
    listing('PISO-0042', { operation: 'venta', type: 'apartamento', city: 'Madrid', price: 240000 }),
    listing('BCN-ALQ-7', {
      operation: 'alquiler',
      type: 'apartamento',
      city: 'Barcelona',
      province: 'Barcelona',
      price: null,
      price_rent: 1250,
      address: 'Carrer de Mallorca 1, Barcelona',
      address_approximate: 'Eixample, Barcelona',
    }),
    listing('M-1'),
  ]);
}

describe('POST /webhooks/email/<token>', () => {
  it('keeps the message with its job and answers 202; posted again, answers 202 and keeps nothing new', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    expect(url).toMatch(/^\/webhooks\/email\/[A-Za-z0-9]{43}$/);
    const first = await postEmail(url, fixture('idealista.eml'));
    expect(first).toEqual({ status: 202, body: { status: 'accepted' } });
    const kept = await emails(t.db);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      business_id: t.businessId,
      message_key: '<20260302091500.4f3a9c1e@mail-out.idealista.com>',
      state: 'pending',
      lead_id: null,
    });
    expect(Buffer.from(kept[0].raw).equals(fixture('idealista.eml'))).toBe(true);
    const jobs = await t.db.selectFrom('jobs').select(['kind', 'payload']).execute();
    expect(jobs).toEqual([{ kind: 'process_email', payload: JSON.stringify({ email_id: kept[0].id }) }]);

    const before = await snapshot(t.db);
    expect(await postEmail(url, fixture('idealista.eml'))).toEqual({ status: 202, body: { status: 'accepted' } });
    expect(await snapshot(t.db)).toBe(before);
  });

  it('messages posted together (one commit on SQLite) are each kept once with one job, a repeat among them too', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    const names = ['idealista.eml', 'fotocasa.eml', 'habitaclia.eml', 'pisos-com.eml', 'unseen-format.eml', 'idealista.eml'];
    const answers = await Promise.all(names.map((name) => postEmail(url, fixture(name))));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const kept = await emails(t.db);
    expect(kept).toHaveLength(5);
    const jobs = await t.db.selectFrom('jobs').select(['kind', 'payload']).orderBy('id').execute();
    expect(jobs.map((j) => j.payload).sort()).toEqual(kept.map((e) => JSON.stringify({ email_id: e.id })).sort());
  });

  it('keys a message without Message-ID by its bytes: the same bytes once, other bytes again', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    const raw = fixture('unseen-format.eml');
    expect((await postEmail(url, raw)).status).toBe(202);
    expect((await postEmail(url, raw)).status).toBe(202);
    expect(await emails(t.db)).toHaveLength(1);
    expect((await postEmail(url, Buffer.concat([raw, Buffer.from('\r\n')]))).status).toBe(202);
    expect((await emails(t.db)).map((e) => e.message_key)).toEqual([expect.stringMatching(/^sha256:/), expect.stringMatching(/^sha256:/)]);
  });

  it('one message forwarded to two businesses is kept once for each', async () => {
    const other = await businessWithKey(t.db, 'Otra agencia');
    const mine = await createInboundAddress(t.db, t.businessId);
    const theirs = await createInboundAddress(t.db, other.businessId);
    expect((await postEmail(mine.url, fixture('fotocasa.eml'))).status).toBe(202);
    expect((await postEmail(theirs.url, fixture('fotocasa.eml'))).status).toBe(202);
    expect((await emails(t.db)).map((e) => e.business_id)).toEqual([t.businessId, other.businessId]);
  });

  it('an unknown, malformed or revoked token is 404 and writes nothing, checked before the content type', async () => {
    const { id, url } = await createInboundAddress(t.db, t.businessId);
    const before = await snapshot(t.db);
    const unknown = `/webhooks/email/${'A'.repeat(43)}`;
    expect(await postEmail(unknown, fixture('idealista.eml'))).toEqual({ status: 404, body: { detail: 'Not Found' } });
    expect((await postEmail('/webhooks/email/short', fixture('idealista.eml'))).status).toBe(404);
    expect((await postEmail(unknown, fixture('idealista.eml'), { 'content-type': 'application/json' })).status).toBe(404);
    expect((await postEmail(unknown, Buffer.alloc(EMAIL_MAX_BYTES + 1, 0x61))).status).toBe(404);
    expect(await snapshot(t.db)).toBe(before);

    await revokeInboundAddress(t.db, id, t.businessId);
    const revoked = await snapshot(t.db);
    expect(await postEmail(url, fixture('idealista.eml'))).toEqual({ status: 404, body: { detail: 'Not Found' } });
    expect(await snapshot(t.db)).toBe(revoked);
  });

  it('another content type is 415, an empty body 400, and neither writes anything', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    const before = await snapshot(t.db);
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x', 'message/rfc822x']) {
      const refused = await postEmail(url, fixture('idealista.eml'), { 'content-type': type });
      expect(refused, type).toEqual({
        status: 415,
        body: { detail: 'Send the e-mail as it was received, with Content-Type: message/rfc822' },
      });
    }
    const noType = await t.app.inject({ method: 'POST', url, payload: fixture('idealista.eml') });
    expect(noType.statusCode).toBe(415);
    expect(await postEmail(url, Buffer.alloc(0))).toEqual({
      status: 400,
      body: { detail: 'The body is empty: send the e-mail as it was received (RFC 5322)' },
    });
    expect(await snapshot(t.db)).toBe(before);
    // Parameters and case of the type are no fault.
    expect((await postEmail(url, fixture('idealista.eml'), { 'content-type': 'Message/RFC822; charset=utf-8' })).status).toBe(202);
  });

  it('a message over 10 MiB is 413, declared or streamed, and writes nothing; 10 MiB exactly is kept', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    const before = await snapshot(t.db);
    const tooLarge = { status: 413, body: { detail: 'An e-mail may be at most 10 MiB (10,485,760 bytes)' } };
    expect(await postEmail(url, Buffer.alloc(EMAIL_MAX_BYTES + 1, 0x61))).toEqual(tooLarge);
    // Without a declared length (chunked), cut at the limit.
    const chunks = Readable.from(
      (function* () {
        for (let i = 0; i < 11; i++) yield Buffer.alloc(1024 * 1024, 0x62);
      })(),
    );
    expect(await postEmail(url, chunks)).toEqual(tooLarge);
    expect(await snapshot(t.db)).toBe(before);
    const exactly = Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), Buffer.alloc(EMAIL_MAX_BYTES - 16, 0x63)]);
    expect(exactly.length).toBe(EMAIL_MAX_BYTES);
    expect((await postEmail(url, exactly)).status).toBe(202);
  });
});

describe('the process_email job', () => {
  it('makes the lead as an inquiry does: source, name, contact, notes, a search from the listing, and the same jobs', async () => {
    await seedListings();
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('idealista.eml'));
    await drain();
    const [email] = await emails(t.db);
    expect(email).toMatchObject({ state: 'lead', parser: 'idealista', sender: 'noreply.pro.es@idealista.com', reason: null });
    const lead = await leadRow(t.db, email.lead_id!);
    expect(lead).toMatchObject({
      business_id: t.businessId,
      name: 'María López Fernández',
      type: 'demandante',
      source: 'idealista',
      phone_number_1: '+34612345678',
      personal_email: 'maria.lopez@example.com',
      status: 'searching_property',
    });
    expect(JSON.parse(lead.search_preferences!)).toEqual([
      {
        operations: ['venta'],
        property_types: ['apartamento'],
        apartamento: { price_min: 204000, price_max: 276000 },
        locations: [{ name: 'Madrid' }],
      },
    ]);
    const notes = await t.db.selectFrom('lead_notes').select('text').where('lead_id', '=', lead.id).execute();
    expect(notes).toHaveLength(1);
    expect(notes[0].text).toContain('Consulta recibida por correo de idealista.');
    expect(notes[0].text).toContain('Referencia del anuncio: PISO-0042');
    expect(notes[0].text).toContain('Mensaje: Hola, me interesa mucho este piso.');
    // The same background effects as an inquiry: matching (which finds the listing asked about), the welcome, follow-ups.
    const kinds = await jobsOf(t.db, lead.id);
    expect(kinds.slice(0, 3)).toEqual(['match_lead', 'send_welcome', 'schedule_follow_ups']);
    const matched = await t.db.selectFrom('lead_matches').select(['property_id', 'failed']).where('lead_id', '=', lead.id).execute();
    expect(matched).toContainEqual({ property_id: await propertyId(t.db, 'PISO-0042'), failed: null });
    expect((await t.db.selectFrom('follow_ups').select('id').where('lead_id', '=', lead.id).execute()).length).toBe(1);
    // lead.created carries the source, as GET /leads/{id} shows the lead.
    const events = await get(t.app, '/events', t.key);
    const created = events.body.data.find((e: { type: string }) => e.type === 'lead.created');
    expect(created.data.lead).toMatchObject({ id: lead.id, source: 'idealista' });
  });

  it('a rent: the band is on the monthly rent; a forward through Gmail from the agency\u2019s own address is read as idealista\u2019s', async () => {
    await seedListings();
    // The forwarding mailbox is one of the agency's own addresses (a console user's): its forward is believed.
    await userWithPassword(t.db, t.businessId, 'agencia.sol@gmail.com', 'agent');
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('fotocasa.eml'));
    await postEmail(url, fixture('gmail-forward-idealista.eml'));
    await drain();
    const [rent, forwarded] = await emails(t.db);
    const rentLead = await leadRow(t.db, rent.lead_id!);
    expect(rentLead).toMatchObject({ source: 'fotocasa', name: 'Jordi Puig i Serra', phone_number_1: '+34931234567' });
    expect(JSON.parse(rentLead.search_preferences!)).toEqual([
      {
        operations: ['alquiler'],
        property_types: ['apartamento'],
        apartamento: { price_rent_min: 1062, price_rent_max: 1438 },
        locations: [{ name: 'Barcelona' }],
      },
    ]);
    expect(rent).toMatchObject({ trust: 'portal' });
    expect(forwarded).toMatchObject({ state: 'lead', parser: 'idealista', sender: 'noreply.pro.es@idealista.com', trust: 'agency' });
    const forwardedLead = await leadRow(t.db, forwarded.lead_id!);
    expect(forwardedLead).toMatchObject({ source: 'idealista', name: 'Pablo Ortega Díaz', phone_number_1: '+34622112233' });
    expect(JSON.parse(forwardedLead.search_preferences!)[0]).toMatchObject({
      apartamento: { price_min: 85000, price_max: 115000 },
      locations: [{ name: 'Madrid' }],
    });
  });

  it("a reference that is no listing's external_ref names it by inmo id; one that names nothing gives no search", async () => {
    await seedListings();
    const id = await propertyId(t.db, 'BCN-ALQ-7');
    const { url } = await createInboundAddress(t.db, t.businessId);
    const generic = (ref: string, phone: string) =>
      Buffer.from(`From: avisos@otro.example\r\nSubject: Contacto\r\n\r\nNombre: Ana\r\nTeléfono: ${phone}\r\nReferencia: ${ref}\r\n`);
    await postEmail(url, generic(String(id), '611000001'));
    await postEmail(url, generic('NO-SUCH-REF', '611000002'));
    await postEmail(url, generic('99999999999', '611000003'));
    await drain();
    const [byId, missing, tooBig] = await emails(t.db);
    expect((await leadRow(t.db, byId.lead_id!)).source).toBe('email');
    expect(JSON.parse((await leadRow(t.db, byId.lead_id!)).search_preferences!)[0]).toMatchObject({ operations: ['alquiler'] });
    expect((await leadRow(t.db, missing.lead_id!)).search_preferences).toBeNull();
    expect((await leadRow(t.db, tooBig.lead_id!)).search_preferences).toBeNull();
  });

  it('a known phone adds an interaction (channel email) to that lead, which does not change; lead.contacted_again is sent', async () => {
    await seedListings();
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'María', type: 'buyer', phone_number_1: '+34612345678' });
    const leadId = created.body.lead_id as number;
    await drain();
    const leadBefore = await leadRow(t.db, leadId);
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('idealista.eml'));
    await drain();
    expect(await leadCount(t.db)).toBe(1);
    expect(await leadRow(t.db, leadId)).toEqual(leadBefore);
    const [email] = await emails(t.db);
    expect(email).toMatchObject({ state: 'interaction', lead_id: leadId, parser: 'idealista' });
    const interactions = await t.db.selectFrom('lead_interactions').selectAll().where('lead_id', '=', leadId).execute();
    expect(interactions).toEqual([expect.objectContaining({ channel: 'email', source: 'idealista' })]);
    expect(interactions[0].note).toContain('Hola, me interesa mucho este piso.');
    const events = (await get(t.app, '/events', t.key)).body.data as Array<{ type: string; data: unknown }>;
    expect(events.filter((e) => e.type === 'lead.contacted_again').map((e) => e.data)).toEqual([{ id: leadId, source: 'idealista' }]);
    // No second set of jobs for the lead.
    const kinds = await jobsOf(t.db, leadId);
    for (const kind of ['match_lead', 'send_welcome', 'schedule_follow_ups']) expect(kinds.filter((k) => k === kind)).toHaveLength(1);
  });

  it('a known e-mail address with a new phone, and a known address without any phone, add interactions too', async () => {
    const created = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Laura',
      type: 'buyer',
      phone_number_1: '+34600000001',
      professional_email: 'Laura.Gomez@example.org',
    });
    const leadId = created.body.lead_id as number;
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('habitaclia.eml'));
    const noPhone =
      'From: avisos@otro.example\r\nSubject: Contacto\r\nMessage-ID: <np-1@otro.example>\r\n\r\nNombre: Laura\r\nEmail: laura.gomez@example.org\r\nMensaje: Otra vez yo\r\n';
    await postEmail(url, Buffer.from(noPhone));
    await drain();
    expect(await leadCount(t.db)).toBe(1);
    expect((await emails(t.db)).map((e) => [e.state, e.lead_id, e.parser])).toEqual([
      ['interaction', leadId, 'habitaclia'],
      ['interaction', leadId, 'generic'],
    ]);
    const interactions = await t.db.selectFrom('lead_interactions').select(['channel', 'source']).where('lead_id', '=', leadId).execute();
    expect(interactions).toEqual([
      { channel: 'email', source: 'habitaclia' },
      { channel: 'email', source: 'email' },
    ]);
  });

  it('a message without a name for a known phone is added to that lead, not left as not understood', async () => {
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Ana', type: 'buyer', phone_number_1: '+34611222333' });
    const leadId = created.body.lead_id as number;
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, Buffer.from('From: x@otro.example\r\nSubject: Sin nombre\r\n\r\nTeléfono: 611 222 333\r\nMensaje: Llámame\r\n'));
    await drain();
    expect((await emails(t.db)).map((e) => [e.state, e.lead_id, e.reason])).toEqual([['interaction', leadId, null]]);
    const interactions = await t.db.selectFrom('lead_interactions').select(['channel', 'note']).where('lead_id', '=', leadId).execute();
    expect(interactions).toEqual([{ channel: 'email', note: expect.stringContaining('Mensaje: Llámame') }]);
  });

  it('keeps what it cannot make a lead of as not understood, with its sender, subject and reason, and no lead', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('no-contact.eml'));
    await postEmail(url, Buffer.from('From: x@otro.example\r\nSubject: Sin tel\r\n\r\nNombre: Ana\r\nEmail: ana@nadie.example\r\n'));
    await postEmail(url, Buffer.from('From: x@otro.example\r\nSubject: Sin nombre\r\n\r\nTeléfono: 611222333\r\n'));
    await drain();
    expect(await leadCount(t.db)).toBe(0);
    expect(
      (await emails(t.db)).map(({ state, parser, sender, subject, reason, lead_id }) => ({
        state,
        parser,
        sender,
        subject,
        reason,
        lead_id,
      })),
    ).toEqual([
      {
        state: 'not_understood',
        parser: 'idealista',
        sender: 'noticias@idealista.com',
        subject: 'Novedades de idealista para profesionales',
        reason: 'no phone number or e-mail address found',
        lead_id: null,
      },
      {
        state: 'not_understood',
        parser: 'generic',
        sender: 'x@otro.example',
        subject: 'Sin tel',
        reason: 'no phone number found: a lead needs one',
        lead_id: null,
      },
      {
        state: 'not_understood',
        parser: 'generic',
        sender: 'x@otro.example',
        subject: 'Sin nombre',
        reason: 'no name found',
        lead_id: null,
      },
    ]);
  });

  it('reads each message once: a job run again changes nothing', async () => {
    await seedListings();
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('pisos-com.eml'));
    await drain();
    const [email] = await emails(t.db);
    // The job again, as a worker that lost its lease would run it.
    const before = await snapshot(t.db, ['jobs']);
    await t.db
      .insertInto('jobs')
      .values({
        business_id: t.businessId,
        lead_id: null,
        kind: 'process_email',
        payload: JSON.stringify({ email_id: email.id }),
        state: 'pending',
        run_at: '2000-01-01T00:00:00.000+00:00',
        created_at: '2000-01-01T00:00:00.000+00:00',
        updated_at: '2000-01-01T00:00:00.000+00:00',
      })
      .execute();
    await drain();
    expect(await snapshot(t.db, ['jobs'])).toBe(before);
    expect(await leadCount(t.db)).toBe(1);
  });
});

describe('personal data (CONTRACT §18)', () => {
  it('the lead\u2019s erasure removes the messages that made it or were added to it; its export holds them', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('idealista.eml'));
    await drain();
    // The same person again, from another portal's message naming her phone.
    const again = readFileSync(join(FIXTURES, 'unseen-format.eml'), 'utf8').replace('644 55 66 77', '612 34 56 78');
    await postEmail(url, Buffer.from(again));
    await drain();
    const leadId = (await emails(t.db))[0].lead_id!;
    expect((await emails(t.db)).map((e) => [e.state, e.lead_id])).toEqual([
      ['lead', leadId],
      ['interaction', leadId],
    ]);

    const exported = await get(t.app, `/leads/${leadId}/export`, t.key);
    expect(exported.status).toBe(200);
    expect(exported.body.emails).toHaveLength(2);
    expect(exported.body.emails[0]).toMatchObject({
      state: 'lead',
      parser: 'idealista',
      sender: 'noreply.pro.es@idealista.com',
      raw_base64: null,
    });
    expect(exported.body.emails[0].raw).toBe(fixture('idealista.eml').toString('utf8'));
    expect(exported.body.emails[1].raw).toContain('Oliver Bennett');
    expect(JSON.stringify(exported.body.emails)).not.toContain('business_id');
    await expectDocumented(t.app, 'get', '/leads/{lead_id}/export', 200, exported.body);

    // Another lead's message stays.
    await postEmail(url, fixture('habitaclia.eml'));
    await drain();
    await eraseLead(t.db, leadId, { actor: CLI });
    const left = await emails(t.db);
    expect(left.map((e) => e.parser)).toEqual(['habitaclia']);
    const bytes = Buffer.concat(left.map((e) => Buffer.from(e.raw)));
    for (const piece of ['maria.lopez@example.com', '612 34 56 78', 'Oliver Bennett']) expect(bytes.includes(piece)).toBe(false);
  });

  it('an export of a message that is not UTF-8 gives its bytes in base64', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    // 8-bit ISO-8859-1, as some servers still send it: `ó` is the byte 0xF3.
    const latin = Buffer.from(
      'From: avisos@otro.example\r\nSubject: Contacto\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\nNombre: Ramón\r\nTeléfono: 611 000 009\r\n',
      'latin1',
    );
    await postEmail(url, latin);
    await drain();
    const leadId = (await emails(t.db))[0].lead_id!;
    expect((await leadRow(t.db, leadId)).name).toBe('Ramón');
    const exported = (await get(t.app, `/leads/${leadId}/export`, t.key)).body;
    await expectDocumented(t.app, 'get', '/leads/{lead_id}/export', 200, exported);
    const [email] = exported.emails;
    expect(email.raw).toBeNull();
    expect(Buffer.from(email.raw_base64, 'base64').equals(latin)).toBe(true);
  });

  it('messages are kept 30 days: the purge deletes older ones, and the worker runs it', async () => {
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('no-contact.eml'));
    await postEmail(url, fixture('unseen-format.eml'));
    await drain();
    const [old] = await emails(t.db);
    const day = 24 * 60 * 60 * 1000;
    await t.db
      .updateTable('inbound_emails')
      .set({ received_at: new Date(Date.now() - 31 * day).toISOString().replace('Z', '+00:00') })
      .where('id', '=', old.id)
      .execute();
    expect(await purgeOldInboundEmails(t.db, new Date())).toBe(1);
    expect(await emails(t.db)).toHaveLength(1);
    // The worker purges by its own clock, hourly.
    const later = new ManualClock(new Date(Date.now() + 31 * day));
    await new Worker({ db: t.db, clock: later, settings: { pollMs: 20 } }).drain();
    expect(await emails(t.db)).toHaveLength(0);
  });
});

describe('inmo email inbound', () => {
  it('makes an address, lists it without its URL, and revokes it for good', async () => {
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' };
    const made = await inmo(env, 'email', 'inbound', '--business', String(t.businessId), '--json');
    expect(made.code).toBe(0);
    expect(made.json).toEqual({ url: expect.stringMatching(/^\/webhooks\/email\/[A-Za-z0-9]{43}$/) });
    expect((await postEmail(made.json.url, fixture('idealista.eml'))).status).toBe(202);

    const listed = await inmo(env, 'email', 'inbound', 'list', '--business', String(t.businessId), '--json');
    expect(listed.json).toEqual([{ id: expect.any(Number), created_at: expect.any(String), revoked_at: null }]);
    expect(listed.stdout).not.toContain(made.json.url.split('/').pop());
    const id = listed.json[0].id as number;

    expect((await inmo(env, 'email', 'inbound', 'revoke', String(id), '--json')).json).toEqual({ id, revoked: true });
    expect((await postEmail(made.json.url, fixture('fotocasa.eml'))).status).toBe(404);
    expect((await inmo(env, 'email', 'inbound', 'list', '--business', String(t.businessId), '--json')).json[0].revoked_at).toEqual(
      expect.any(String),
    );

    const unknown = await inmo(env, 'email', 'inbound', 'revoke', '99999', '--json');
    expect([unknown.code, unknown.json]).toEqual([1, { error: 'No inbound e-mail address with id 99999' }]);
    const noBusiness = await inmo(env, 'email', 'inbound', '--business', '99999', '--json');
    expect([noBusiness.code, noBusiness.json]).toEqual([1, { error: 'Business 99999 does not exist' }]);
    const human = await inmo(env, 'email', 'inbound', '--business', String(t.businessId));
    expect(human.stdout).toMatch(/^address #\d+, also shown on the console's e-mail page; .*\n {2}\/webhooks\/email\/[A-Za-z0-9]{43}\n$/);
  });
});

describe("the lead's page (issue 57)", () => {
  it('says which listing the e-mail was about, with a link to it, or that none was found', async () => {
    await importRecords(t.db, t.businessId, [
      listing('demo:37', { operation: 'venta', type: 'apartamento', city: 'Sabadell', price: 185000 }),
    ]);
    const { url } = await createInboundAddress(t.db, t.businessId);
    await postEmail(url, fixture('habitaclia-sentence-ref.eml'));
    await postEmail(
      url,
      Buffer.from(
        'From: avisos@otro.example\r\nSubject: Contacto\r\nMessage-ID: <none@otro.example>\r\n\r\nNombre: Ana\r\nTel: 611000009\r\n',
      ),
    );
    await drain();
    const [named, unnamed] = await emails(t.db);
    const id = await propertyId(t.db, 'demo:37');
    expect(named).toMatchObject({ state: 'lead', property_id: id });
    expect(unnamed).toMatchObject({ state: 'lead', property_id: null });
    await userWithPassword(t.db, t.businessId, 'agente@inmobiliariasol.es', 'agent');
    const browser = await loggedIn(t.app, 'agente@inmobiliariasol.es');
    const page = (await browser.get(`/console/leads/${named.lead_id}`)).body as string;
    expect(page).toContain(`Consulta recibida por correo (habitaclia,`);
    expect(page).toContain(`sobre el inmueble <a href="/console/properties/${id}">demo:37</a>`);
    const none = (await browser.get(`/console/leads/${unnamed.lead_id}`)).body as string;
    expect(none).toContain('no se encontró el inmueble por el que pregunta');
  });
});
