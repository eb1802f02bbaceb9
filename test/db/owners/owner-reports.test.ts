/**
 * The owner's report (issue 58 item 4, CONTRACT §24), on both engines: figures checked against
 * what the test made happen (views of the listing's page and of the kit's detail, 3 leads from
 * two portals through their real e-mails, 2 viewings done with feedback, 5 searching leads that
 * match it of which 2 were sent it, one price change, comparables); the report kept as composed
 * after more activity; nothing about a visitor or a lead's contact in it; the e-mail in the
 * owner's language linking `/o/<token>` (only the token's hash stored); due again only after the
 * owner's days; `inmo owners report run` through the CLI's service.
 *
 * "Now" is vitest's fake `Date` (only `Date`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../../src/db/group-commit.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { acceptInboundEmail } from '../../../src/services/leads/email-intake.ts';
import { createInquiryLead } from '../../../src/services/leads/intake.ts';
import { sendListingsByHand } from '../../../src/services/leads/hand-sends.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { saveMandateDraft, signMandate } from '../../../src/services/owners/mandates.ts';
import { composeDueReports, runOwnerReportsNow } from '../../../src/services/owners/owner-reports.ts';
import { changeViewing } from '../../../src/services/viewings/transitions.ts';
import type { OwnerReportFigures } from '../../../src/domain/owners/owner-report.ts';
import { importRecords, listing, propertyId, REPO_ROOT } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';
import { mandateTerms } from '../../helpers/mandates.ts';
import { drawnSignature } from '../../helpers/signature.ts';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.ts';
import { CONSENT, OUTBOUND } from '../../helpers/alerts.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { connectFakeChannel } from '../../helpers/whatsapp.ts';

const SITE = 'https://www.agencia.example';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36';
const EMAILS = join(REPO_ROOT, 'test', 'fixtures', 'email');

/** The owner's home: 100 m² at 250,000 €, with four comparables around it and one of another type. */
const HOME = { title: 'Piso en Chamberí', price: 250000, size_total: 100, postal_code: '28010', created_at: '2030-02-01T10:00:00+00:00' };

const t = withApp({
  each: true,
  surfaces: ['api', 'pages'],
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      listing('CASA-1', HOME),
      listing('C-1', { price: 230000, size_total: 95, postal_code: '28010' }),
      listing('C-2', { price: 270000, size_total: 105, postal_code: '28010' }),
      listing('C-3', { price: 240000, size_total: 90, postal_code: '28010' }),
      listing('C-4', { price: 300000, size_total: 110, postal_code: '28010' }),
      listing('LOCAL-1', { type: 'local', price: 90000, size_total: 100, postal_code: '28010' }),
    ]);
  },
});

let smtp: TestSmtp | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await smtp?.close();
  smtp = null;
});

const now = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};

const drain = () =>
  new Worker({ db: t.db, clock: new ManualClock(new Date(Date.now() + 60_000)), settings: { pollMs: 20, alertHour: 24 } }).drain();

/** A portal's real e-mail about CASA-1, from another person: `fixture` with its reference, Message-ID, name, phone and address replaced. */
function portalEmail(fixture: string, from: { ref: string; id: string; name: string; phone: string; email: string }, i: number): Buffer {
  const text = readFileSync(join(EMAILS, fixture), 'latin1')
    .replace(from.ref, 'CASA-1')
    .replace(from.id, `report-test-${i}`)
    .replace(from.name, `Persona Interesada ${i}`)
    .replace(from.phone, `622 40 40 0${i}`)
    .replace(from.email, `persona${i}@example.com`);
  return Buffer.from(text, 'latin1');
}

/** The owner of CASA-1, with an e-mail address, its mandate signed at `at`. @returns its id. */
async function ownerWithMandate(at: string, language = 'es'): Promise<number> {
  const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612400001', 'Rosa Propietaria');
  await t.db
    .updateTable('leads')
    .set({ personal_email: 'rosa@example.com', preferred_language: language })
    .where('id', '=', owner)
    .execute();
  await linkOwner(t.db, owner, ['CASA-1']);
  now(at);
  const house = await propertyId(t.db, 'CASA-1');
  const draft = await saveMandateDraft(t.db, t.businessId, house, mandateTerms(), CLI);
  await signMandate(
    t.db,
    t.businessId,
    draft.id,
    { visitor_name: 'Rosa Propietaria', document_type: 'dni', document_number: '12345678Z', signature: await drawnSignature() },
    { by: 'link' },
  );
  return owner;
}

describe('the owner report', () => {
  it('counts what happened to the listing, keeps the report as composed, and names no visitor', async () => {
    smtp = await startSmtp();
    await connectEmail(t.db, { businessId: t.businessId, url: smtp.url, from: 'hola@agency.example', replyTo: null });
    const house = await propertyId(t.db, 'CASA-1');
    const agent = await createUser(t.db, { businessId: t.businessId, email: 'bea@inmo.example', role: 'agent' });
    const owner = await ownerWithMandate('2030-03-01T09:00:00Z', 'gb');

    // The period: 1 to 9 March. Views: 3 of the page by people (a crawler and a preview not counted), 2 of the kit's detail.
    now('2030-03-03T11:00:00Z');
    const page = await listingPageToken(t.db, t.businessId, house);
    for (const agentString of [BROWSER, BROWSER, BROWSER, 'Googlebot/2.1 (+http://www.google.com/bot.html)', 'WhatsApp/2.23.20.0']) {
      const r = await t.app.inject({ method: 'GET', url: `/l/${page}`, headers: { 'user-agent': agentString } });
      expect(r.statusCode).toBe(200);
    }
    const { key: kitKey } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read'], origins: [SITE] });
    for (let i = 0; i < 2; i++) {
      const r = await t.app.inject({
        method: 'GET',
        url: `/v1/ext/properties/${house}`,
        headers: { 'x-api-key': kitKey, origin: SITE, 'user-agent': BROWSER },
      });
      expect(r.statusCode).toBe(200);
    }
    // A secret key's read is an integrator's, not a visitor's.
    await t.app.inject({ method: 'GET', url: `/v1/ext/properties/${house}`, headers: { 'x-api-key': t.key, 'user-agent': BROWSER } });
    await t.app.listingViews.flush();

    // 3 leads from two portals, through their real e-mails and the worker.
    const idealista = {
      ref: 'demo:23',
      id: '20261201101300.demo23',
      name: 'Álvaro Ruiz Medina',
      phone: '622 23 23 23',
      email: 'alvaro.ruiz@example.com',
    };
    await acceptInboundEmail(t.db, t.businessId, portalEmail('idealista-ref-brackets.eml', idealista, 1));
    await acceptInboundEmail(t.db, t.businessId, portalEmail('idealista-ref-brackets.eml', idealista, 2));
    const fotocasa = {
      ref: 'BCN-ALQ-7',
      id: '0102018e3a7b.fotocasa-lead-55512',
      name: 'Jordi Puig i Serra',
      phone: '93 123 45 67',
      email: 'jordi.puig@example.cat',
    };
    await acceptInboundEmail(t.db, t.businessId, portalEmail('fotocasa.eml', fotocasa, 3));
    await drain();
    const portalLeads = await t.db.selectFrom('inbound_emails').select(['lead_id', 'parser', 'state']).orderBy('id').execute();
    expect(portalLeads.map((e) => [e.parser, e.state])).toEqual([
      ['idealista', 'lead'],
      ['idealista', 'lead'],
      ['fotocasa', 'lead'],
    ]);

    // 2 viewings done, with the agent's feedback; one more booked and not done.
    const viewingLeads = portalLeads.slice(0, 2).map((e) => e.lead_id!);
    const starts = ['2030-03-04T10:00:00+01:00', '2030-03-05T10:00:00+01:00', '2030-03-06T10:00:00+01:00'];
    const ids: number[] = [];
    for (const [i, start] of starts.entries()) {
      const booked = await post(t.app, '/viewings', t.key, { property_id: house, starts_at: start, lead_id: portalLeads[i].lead_id });
      expect(booked.status, JSON.stringify(booked.body)).toBe(201);
      ids.push(booked.body.id);
    }
    now('2030-03-07T12:00:00Z');
    for (const [i, id] of ids.slice(0, 2).entries()) {
      await changeViewing(t.db, t.businessId, id, { action: 'done' });
      await changeViewing(t.db, t.businessId, id, { action: 'feedback', interest: 4 - i, comment: i === 0 ? 'Le gusta la luz' : null });
    }

    // 5 searching leads that match it (the 3 from the portals and 2 from the web), 2 of them sent it by hand.
    for (const i of [4, 5]) {
      await createInquiryLead(new GroupCommit(t.db), t.businessId, {
        name: `Buscador ${i}`,
        type: 'demandante',
        phone_number_1: `+3462240400${i}`,
        phone_number_2: null,
        landline_phone: null,
        personal_email: `buscador${i}@example.com`,
        source: 'web',
        search_preferences: [
          { operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }], apartamento: { price_max: 300000 } },
        ],
        consent: CONSENT,
      } as never);
    }
    await drain();
    const matching = await t.db
      .selectFrom('lead_matches')
      .select('lead_id')
      .distinct()
      .where('property_id', '=', house)
      .where('failed', 'is', null)
      .execute();
    expect(matching).toHaveLength(5);
    for (const leadId of viewingLeads) {
      await sendListingsByHand(t.db, {
        businessId: t.businessId,
        leadId,
        userId: agent.id,
        channel: 'email',
        propertyIds: [house],
        reference: '',
        publicUrl: 'http://inmo.test',
      });
    }
    await drain();

    // One price change, by an import on 8 March (stamped by the database's clock).
    await importRecords(t.db, t.businessId, [listing('CASA-1', { ...HOME, price: 240000, updated_at: '2030-03-08T09:00:00+00:00' })]);

    // Not due before 7 days from the signature; due on the 9th at 10:00 Madrid time.
    const settings = { ownerReportDays: 7, alertHour: 10 };
    expect((await composeDueReports(t.db, new Date('2030-03-07T12:00:00Z'), settings)).messages).toEqual([]);
    expect((await composeDueReports(t.db, new Date('2030-03-09T07:00:00Z'), settings)).messages).toEqual([]);
    now('2030-03-09T10:00:00Z');
    const composed = await composeDueReports(t.db, new Date(), settings);
    expect(composed.messages).toHaveLength(1);
    const stored = await t.db.selectFrom('owner_reports').selectAll().where('lead_id', '=', owner).executeTakeFirstOrThrow();
    const figures = JSON.parse(stored.figures) as OwnerReportFigures;
    expect(figures).toMatchObject({ from: '2030-03-01T09:00:00.000+00:00', to: '2030-03-09T10:00:00.000+00:00' });
    expect(figures.listings).toHaveLength(1);
    const [l] = figures.listings;
    expect(l).toMatchObject({
      property_id: house,
      external_ref: 'CASA-1',
      operation: 'venta',
      days_on_market: 36,
      views: { page: 3, kit: 2, page_total: 3, kit_total: 2 },
      // The web's two searchers match it but never asked about it: not its leads.
      leads: [
        { source: 'idealista', period: 2, total: 2 },
        { source: 'fotocasa', period: 1, total: 1 },
      ],
      viewings: [
        { on: '2030-03-04', interest: 4, comment: 'Le gusta la luz' },
        { on: '2030-03-05', interest: 3, comment: null },
      ],
      viewings_total: 2,
      matching: { leads: 5, sent: 2 },
      price_history: [
        { from: '2030-02-01T10:00:00.000+00:00', price: 250000 },
        // When the database wrote it (its own clock, not the record's claimed date nor the test's fake one).
        { from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/), price: 240000 },
      ],
      price_m2: 2400,
    });
    // The four apartments of the postal code compare (not the shop): their adjusted €/m² median lies among theirs.
    expect(l.comparables?.count).toBe(4);
    expect(l.comparables!.median_m2).toBeGreaterThan(2400);
    expect(l.comparables!.median_m2).toBeLessThan(2800);
    // Nothing about a visitor or a lead's contact.
    const leads = await t.db
      .selectFrom('leads')
      .select(['name', 'phone_number_1', 'personal_email'])
      .where('type', '=', 'demandante')
      .execute();
    for (const lead of leads) {
      for (const value of [lead.name, lead.phone_number_1, lead.personal_email]) if (value) expect(stored.figures).not.toContain(value);
    }

    // Sent: an e-mail in the owner's language linking the page, whose token is not stored.
    const sent = await runOwnerReportsNow(t.db, { ownerReportDays: 7, outbound: OUTBOUND });
    expect(sent).toEqual({ sent: 0, owners: 0 });
    await drain();
    const mail = smtp.received.find((m) => m.to.includes('rosa@example.com'));
    expect(mail?.mail.subject).toBe('Your property’s report');
    const link = /\/o\/([A-Za-z0-9_-]{43})/.exec(mail!.mail.text ?? '')![1];
    const message = await t.db.selectFrom('messages').select('body').where('id', '=', composed.messages[0]).executeTakeFirstOrThrow();
    expect(message.body).not.toContain(link);
    const shown = await t.app.inject({ method: 'GET', url: `/o/${link}` });
    expect(shown.statusCode).toBe(200);
    // The link is the credential: never cached, indexed or passed on as a referrer.
    expect([shown.headers['cache-control'], shown.headers['x-robots-tag'], shown.headers['referrer-policy']]).toEqual([
      'no-store',
      'noindex',
      'no-referrer',
    ]);
    expect(shown.body).toContain('Report for the owner');
    expect(shown.body).toContain('Le gusta la luz');
    expect(shown.body).toContain('240,000 €');
    for (const lead of leads) if (lead.name) expect(shown.body).not.toContain(lead.name);
    expect((await t.app.inject({ method: 'GET', url: `/o/${'x'.repeat(43)}` })).statusCode).toBe(404);

    // More activity after it: the report sent says the same.
    now('2030-03-10T10:00:00Z');
    await changeViewing(t.db, t.businessId, ids[2], { action: 'done' });
    await t.app.inject({ method: 'GET', url: `/l/${page}`, headers: { 'user-agent': BROWSER } });
    await t.app.listingViews.flush();
    const again = await t.app.inject({ method: 'GET', url: `/o/${link}` });
    expect(again.body).toBe(shown.body);
    expect((await t.db.selectFrom('owner_reports').select('figures').executeTakeFirstOrThrow()).figures).toBe(stored.figures);

    // The next is due 7 days after this one's end, with the period starting there.
    expect((await composeDueReports(t.db, new Date('2030-03-15T10:00:00Z'), settings)).messages).toEqual([]);
    const next = await runOwnerReportsNow(t.db, { ownerReportDays: 7, outbound: OUTBOUND, at: new Date('2030-03-16T10:00:00Z') });
    expect(next).toEqual({ sent: 1, owners: 1 });
    const periods = await t.db.selectFrom('owner_reports').select(['period_from', 'period_to']).orderBy('id').execute();
    expect(periods[1]).toEqual({ period_from: '2030-03-09T10:00:00.000+00:00', period_to: '2030-03-16T10:00:00.000+00:00' });
  });

  it('goes by the channel’s owner_report template to an owner the business cannot e-mail, with the page’s link', async () => {
    const graph = await startFakeGraph();
    try {
      await connectFakeChannel(t.db, t.businessId, graph.baseUrl, { templates: { owner_report: 'informe_propietario' } });
      const owner = await ownerWithMandate('2030-03-01T09:00:00Z');
      await t.db.updateTable('leads').set({ personal_email: null }).where('id', '=', owner).execute();
      // A searching lead's phone and name never reach the owner's report.
      const result = await runOwnerReportsNow(t.db, { ownerReportDays: 7, outbound: OUTBOUND, at: new Date('2030-03-08T10:00:00Z') });
      expect(result).toEqual({ sent: 1, owners: 1 });
      const templates = graph.requests.filter((r) => r.body?.type === 'template').map((r) => r.body.template);
      expect(templates.map((tpl) => tpl.name)).toEqual(['informe_propietario']);
      const [first, agency, link] = templates[0].components[0].parameters.map((p: { text: string }) => p.text);
      expect([first, agency]).toEqual(['Rosa', 'Inmobiliaria Test']);
      const path = new URL(link).pathname;
      expect(path).toMatch(/^\/o\/[A-Za-z0-9_-]{43}$/);
      // The conversation keeps the summary without the token.
      const message = await t.db
        .selectFrom('messages')
        .select(['body', 'kind'])
        .where('author', '=', 'owner_report')
        .executeTakeFirstOrThrow();
      expect(message.kind).toBe('template');
      expect(message.body ?? '').not.toContain(path);
      const page = await t.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Informe para el propietario');
    } finally {
      await graph.close();
    }
  });
});
