/**
 * Portal e-mails keep the listing they were about (issue 57 item 1, CONTRACT §19): the reference
 * in a sentence, in brackets, in the subject, a link to the listing's page on inmo (`/l/<token>`)
 * or on the agency's website (`listing_url`), or any word of the message that is one of the
 * business's references; and the person's address given only as a `mailto:` link. Each shape
 * through the real pipeline (the message kept, its `process_email` job run by the worker, the
 * reading on its thread): the lead gets its listing's search, and matching finds the listing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { acceptInboundEmail } from '../../../src/services/leads/email-intake.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { businessWithKey, freshDb, importRecords, listing, propertyId, REPO_ROOT } from '../../helpers/db.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'email');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

let db: Db;
let businessId: number;

beforeEach(async () => {
  ({ db } = await freshDb());
  ({ businessId } = await businessWithKey(db, 'Inmobiliaria Sol'));
  await importRecords(db, businessId, [
    listing('demo:37', { operation: 'venta', type: 'apartamento', city: 'Sabadell', price: 185000 }),
    listing('demo:23', { operation: 'venta', type: 'apartamento', city: 'Madrid', price: 410000 }),
    listing('FTC-2002', { operation: 'alquiler', type: 'apartamento', city: 'Barcelona', price: null, price_rent: 1000 }),
    listing('HAB-3321', { operation: 'venta', type: 'casa', city: 'Sabadell', price: 300000 }),
    listing('WEB-77', { operation: 'venta', type: 'local', city: 'Valencia', price: 100000 }),
  ]);
});

afterEach(async () => {
  await db.destroy();
});

/** Keeps `raw` as the webhook does, runs the worker until idle, and returns the message's lead with its search and matches. */
async function leadOf(raw: Buffer) {
  await acceptInboundEmail(db, businessId, raw);
  await new Worker({ db, settings: { pollMs: 20 } }).drain();
  const email = await db.selectFrom('inbound_emails').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  expect(email.state).toBe('lead');
  const lead = await db.selectFrom('leads').selectAll().where('id', '=', email.lead_id!).executeTakeFirstOrThrow();
  const matches = await db
    .selectFrom('lead_matches')
    .select('property_id')
    .where('lead_id', '=', lead.id)
    .where('failed', 'is', null)
    .execute();
  const notes = await db.selectFrom('lead_notes').select('text').where('lead_id', '=', lead.id).execute();
  return {
    lead,
    search: lead.search_preferences === null ? null : (JSON.parse(lead.search_preferences) as Array<Record<string, unknown>>),
    matched: matches.map((m) => m.property_id),
    notes: notes.map((n) => n.text).join('\n'),
  };
}

describe('the listing a portal e-mail names', () => {
  it('"tu referencia: demo:37" in a sentence (habitaclia)', async () => {
    const { lead, search, matched, notes } = await leadOf(fixture('habitaclia-sentence-ref.eml'));
    expect(lead).toMatchObject({ source: 'habitaclia', name: 'Marta Soler Vidal', phone_number_1: '+34699003737' });
    expect(search).toEqual([
      {
        operations: ['venta'],
        property_types: ['apartamento'],
        apartamento: { price_min: 157250, price_max: 212750 },
        locations: [{ name: 'Sabadell' }],
      },
    ]);
    expect(matched).toContain(await propertyId(db, 'demo:37'));
    expect(notes).toContain('Referencia del anuncio: demo:37');
  });

  it('"(Ref: demo:23)" in the ad\'s title, beside the portal\'s own code (idealista)', async () => {
    const { lead, search, matched } = await leadOf(fixture('idealista-ref-brackets.eml'));
    expect(lead).toMatchObject({ source: 'idealista', name: 'Álvaro Ruiz Medina' });
    expect(search?.[0]).toMatchObject({ locations: [{ name: 'Madrid' }], apartamento: { price_min: 348500, price_max: 471500 } });
    expect(matched).toContain(await propertyId(db, 'demo:23'));
  });

  it('"le interesa tu anuncio con referencia FTC-2002" (fotocasa)', async () => {
    const { lead, search, matched } = await leadOf(fixture('fotocasa-sentence-ref.eml'));
    expect(lead).toMatchObject({ source: 'fotocasa', name: 'Jordi Puig i Serra' });
    expect(search?.[0]).toMatchObject({ operations: ['alquiler'], apartamento: { price_rent_min: 850, price_rent_max: 1150 } });
    expect(matched).toContain(await propertyId(db, 'FTC-2002'));
  });

  it('the subject "Nuevo contacto para tu anuncio FTC-2002", the body naming none (fotocasa)', async () => {
    const { lead, search, matched, notes } = await leadOf(fixture('fotocasa-subject-ref.eml'));
    expect(lead).toMatchObject({ source: 'fotocasa', name: 'Nuria Vilà' });
    expect(search?.[0]).toMatchObject({ operations: ['alquiler'], locations: [{ name: 'Barcelona' }] });
    expect(matched).toContain(await propertyId(db, 'FTC-2002'));
    expect(notes).toContain('Referencia del anuncio: FTC-2002');
  });

  it("a link to the listing's page on inmo, /l/<token>", async () => {
    const id = await propertyId(db, 'HAB-3321');
    const token = await listingPageToken(db, businessId, id);
    const raw = Buffer.from(
      'From: Ana <ana.gil@example.org>\r\nSubject: Consulta\r\nMessage-ID: <page-link@example.org>\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n' +
        `Nombre: Ana Gil\r\nTeléfono: 611 00 00 77\r\nHe visto este piso: https://inmo.example/l/${token}?utm=mail y me interesa.\r\n`,
    );
    const { search, matched } = await leadOf(raw);
    expect(search?.[0]).toMatchObject({ operations: ['venta'], property_types: ['casa'], locations: [{ name: 'Sabadell' }] });
    expect(matched).toContain(id);
  });

  it("a link to the listing on the agency's website, as its listing_url template writes it ({id}), in the HTML part only", async () => {
    const graph = await startFakeGraph();
    try {
      await connectChannel(
        db,
        {
          businessId,
          provider: 'whatsapp-cloud',
          phoneNumberId: '100200300',
          tokenEnv: 'WA_TOKEN',
          appSecretEnv: 'WA_APP_SECRET',
          template: 'bienvenida',
          baseUrl: graph.baseUrl,
          listingUrl: 'https://www.inmobiliariasol.es/inmueble/{id}',
        },
        { WA_TOKEN: 'EAAG-token-of-the-reference-tests', WA_APP_SECRET: 'secret-of-the-reference-tests' },
      );
    } finally {
      await graph.close();
    }
    const id = await propertyId(db, 'WEB-77');
    const raw = Buffer.from(
      'From: Luis <luis.mar@example.org>\r\nSubject: Consulta desde la web\r\nMessage-ID: <web-link@example.org>\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n' +
        `<p>Nombre: Luis Mar</p><p>Teléfono: 611 00 00 78</p><p>Pregunto por <a href="https://www.inmobiliariasol.es/inmueble/${id}?from=mail">este local</a>.</p>\r\n`,
    );
    const { search, matched } = await leadOf(raw);
    expect(search?.[0]).toMatchObject({ property_types: ['local'], locations: [{ name: 'Valencia' }] });
    expect(matched).toContain(id);
  });

  it("any word of the message that is one of the business's references, when nothing names it", async () => {
    const raw = Buffer.from(
      'From: avisos@portal-costa.example\r\nSubject: Contacto\r\nMessage-ID: <bare-word@portal-costa.example>\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n' +
        'Nombre: Pau Ferrer\r\nTel: 611 00 00 79\r\nPiso en Sabadell [HAB-3321] 300.000 EUR, 3 hab.\r\n',
    );
    const { search, matched } = await leadOf(raw);
    expect(search?.[0]).toMatchObject({ property_types: ['casa'] });
    expect(matched).toContain(await propertyId(db, 'HAB-3321'));
  });
});

describe("the person's address", () => {
  it("given only as a mailto: link (habitaclia), never the portal's own", async () => {
    const { lead, search } = await leadOf(fixture('habitaclia-mailto.eml'));
    expect(lead).toMatchObject({ source: 'habitaclia', name: 'Laura Gómez Ibáñez', personal_email: 'laura.gomez@example.org' });
    expect(search?.[0]).toMatchObject({ property_types: ['casa'] });
  });
});
