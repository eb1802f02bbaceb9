/**
 * A new lead written in one statement on PostgreSQL (services/leads/new-lead-at-once.ts,
 * db/repositories/new-lead-statement.ts; issue 32) stores exactly what the transactional path
 * (services/leads/intake.ts) stores: the same lead, note, consent, welcome, jobs, event, webhook
 * deliveries and Idempotency-Key record. POSTs, plain and with a key, take the one statement
 * there; the reference lead is written by the intake with group commit's one-statement write
 * taken away. On SQLite all three are the transactional path.
 *
 * The rules both paths apply (who gets the event, the welcome's language) are varied here: a
 * business with a channel mapping only `gb` (so `fr` and no language fall back) and endpoints
 * taking `lead.created`, every event, `lead.updated` only, or disabled; and a business with
 * no channel whose only endpoints take nothing of a new lead.
 */
import { describe, expect, it } from 'vitest';
import { isKeyTaken } from '../../../src/db/errors.ts';
import { businessWithKey } from '../../helpers/db.ts';
import { insertNewLeadAtOnce, type NewLeadRows } from '../../../src/db/repositories/new-lead-statement.ts';
import { GroupCommit } from '../../../src/db/group-commit.ts';
import { canonicalLeadType } from '../../../src/domain/leads/rules.ts';
import { createInquiryLead, ingestRentalLead } from '../../../src/services/leads/intake.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { addWebhook, disableWebhook, rotateWebhookSecret } from '../../../src/services/integrations/outgoing-webhooks.ts';
import { createDb } from '../../../src/db/database.ts';
import { findConfigVersion } from '../../../src/db/repositories/businesses.ts';
import { ENGINE, snapshot } from '../../helpers/db.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';

/** The second business: no channel, and no endpoint that takes a new lead's event. */
const quiet = { businessId: 0, key: '' };

const t = withApp({
  surfaces: API_ONLY,
  seed: async ({ db, businessId }) => {
    await connectChannel(
      db,
      { businessId, provider: 'whatsapp-cloud', phoneNumberId: '77', tokenEnv: 'T', template: 'bienvenida', languages: { gb: 'en_GB' } },
      { T: 'token' },
    );
    // Only `gb` mapped: `fr` and no preferred language take the fallback.
    await db.updateTable('channels').set({ languages: '{"gb":"en_GB"}' }).where('business_id', '=', businessId).execute();
    await addWebhook(db, { businessId, url: 'https://crm.example/created', events: ['lead.created'] });
    await addWebhook(db, { businessId, url: 'https://crm.example/all' });
    await addWebhook(db, { businessId, url: 'https://crm.example/updates', events: ['lead.updated'] });
    const off = await addWebhook(db, { businessId, url: 'https://crm.example/off' });
    await disableWebhook(db, off.id);
    Object.assign(quiet, await businessWithKey(db, 'Sin canal'));
    await addWebhook(db, { businessId: quiet.businessId, url: 'https://crm.example/quiet-updates', events: ['lead.updated'] });
    const quietOff = await addWebhook(db, { businessId: quiet.businessId, url: 'https://crm.example/quiet-off' });
    await disableWebhook(db, quietOff.id);
  },
});

/** Everything stored for a lead, with what differs between two leads by nature (ids, phone, times) named. */
async function storedFor(leadId: number, phone: string) {
  const db = t.db;
  const lead = await db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
  const notes = await db.selectFrom('lead_notes').select(['text']).where('lead_id', '=', leadId).orderBy('id').execute();
  const consents = await db
    .selectFrom('lead_consents')
    .select(['business_id', 'marketing', 'whatsapp', 'text', 'version', 'source_page'])
    .where('lead_id', '=', leadId)
    .execute();
  const messages = await db
    .selectFrom('messages')
    .select(['business_id', 'direction', 'kind', 'author', 'template', 'language', 'recipient', 'state', 'body'])
    .where('lead_id', '=', leadId)
    .execute();
  const jobs = await db
    .selectFrom('jobs')
    .select(['business_id', 'kind', 'payload', 'state'])
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
  const events = await db
    .selectFrom('events')
    .select(['id', 'business_id', 'type', 'data'])
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'state', 'attempts', 'event_id'])
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
  const named = (text: string) =>
    text
      .replaceAll(phone, '<phone>')
      .replaceAll(`"id":${leadId}`, '"id":<lead>')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)/g, '<time>');
  return {
    lead: { ...lead, id: '<lead>', phone_number_1: '<phone>', created_at: '<time>', updated_at: '<time>' },
    notes,
    consents,
    messages: messages.map((m) => ({ ...m, recipient: m.recipient === phone ? '<phone>' : m.recipient })),
    jobs: jobs.map((j) => ({
      ...j,
      payload: j.payload === null ? null : deliveries.some((d) => j.payload === `{"delivery_id":${d.id}}`) ? '<its delivery>' : j.payload,
    })),
    events: events.map((e) => ({ ...e, id: '<event>', data: named(e.data) })),
    deliveries: deliveries.map((d) => ({
      ...d,
      id: '<delivery>',
      event_id: events.some((e) => e.id === d.event_id) ? '<its event>' : d.event_id,
    })),
  };
}

const inquiry = (phone: string, preferred: string | null = 'gb') => ({
  name: '  Marta Ruiz ',
  type: 'buyer',
  phone_number_1: phone,
  ...(preferred === null ? {} : { preferred_language: preferred }),
  source: 'web',
  sourcePage: 'https://www.agencia.example/pisos',
  notes: 'Llamar por la tarde',
  search_preferences: [
    { operations: ['venta'], property_types: ['apartamento'], apartamento: { bedrooms_min: 2 }, internal_notes: 'no mostrar' },
  ],
  consent: { marketing: true, whatsapp: false, text: 'Acepto la política', version: 'v3' },
});
const ingest = (phone: string) => ({
  id: 'f-1',
  createdAt: '2026-11-20T10:00:00Z',
  source: 'landing',
  sourcePage: 'https://www.agencia.example/alquiler',
  contact: { name: 'Pablo', phone },
  search: { budget: '700-900', habs: '2', location: { name: 'Zaragoza' }, freeText: 'con ascensor' },
});

describe('a new lead in one statement', () => {
  /** Group commit without its one-statement write: the transactional path on both engines. */
  const transactional = () => Object.assign(new GroupCommit(t.db), { alone: () => null });
  const idOf = async (phone: string) =>
    (await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', phone).executeTakeFirstOrThrow()).id;
  /** The reference lead: the same request, stored by the intake's transactional path. */
  const byHand = async (kind: 'inquiries' | 'ingest', businessId: number, phone: string, preferred: string | null) => {
    // As a secret key's request (verified: its consent and e-mail are taken as given).
    if (kind === 'ingest') return void (await ingestRentalLead(transactional(), businessId, ingest(phone) as never, phone, true));
    const { phone_number_1: _phone, ...rest } = inquiry(phone, preferred);
    await createInquiryLead(
      transactional(),
      businessId,
      {
        ...rest,
        type: canonicalLeadType('buyer')!,
        phone_number_1: phone,
        phone_number_2: null,
        landline_phone: null,
      } as never,
      { verified: true },
    );
  };

  let phones = 0;
  /** A phone no lead of this file has. */
  const newPhone = () => `+346118${String(++phones).padStart(5, '0')}`;

  it.each([
    ['inquiries', 'gb', 'the channel maps it', 'en_GB'],
    ['inquiries', 'fr', 'the channel does not map it', 'es'],
    ['inquiries', null, 'none given', 'es'],
    ['ingest', null, 'ingest gives none', 'es'],
  ] as const)(
    'stores for %s (preferred language %s: %s) what the transactional path stores, Idempotency-Key record included',
    async (kind, preferred, _why, language) => {
      const [plainPhone, keyedPhone, byHandPhone] = [newPhone(), newPhone(), newPhone()];
      const body = (phone: string) => (kind === 'inquiries' ? inquiry(phone, preferred) : ingest(phone));
      const idempotencyKey = `same-rows-${plainPhone}`;
      const plain = await post(t.app, `/leads/${kind}`, t.key, body(plainPhone));
      const keyed = await post(t.app, `/leads/${kind}`, t.key, body(keyedPhone), { 'idempotency-key': idempotencyKey });
      expect([plain.status, keyed.status], JSON.stringify(plain.body)).toEqual([200, 200]);
      // CONTRACT §13: both say what they did, as the transactional path does.
      expect([plain.headers['inmo-lead-outcome'], keyed.headers['inmo-lead-outcome']]).toEqual(['created', 'created']);
      await byHand(kind, t.businessId, byHandPhone, preferred);
      const reference = await storedFor(await idOf(byHandPhone), byHandPhone);
      const a = await storedFor(await idOf(plainPhone), plainPhone);
      const b = await storedFor(await idOf(keyedPhone), keyedPhone);
      expect(a).toEqual(reference);
      expect(b).toEqual(reference);
      // The key's record holds the 200 the request answered, as the transactional path records it.
      const record = await t.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirstOrThrow();
      expect(record).toMatchObject({ state: 'done', locked_until: null, status: 200, outcome: 'created', lead_id: await idOf(keyedPhone) });
      expect(JSON.parse(record.response!)).toEqual(keyed.body);
      const replay = await post(t.app, `/leads/${kind}`, t.key, body(keyedPhone), { 'idempotency-key': idempotencyKey });
      expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([200, keyed.body, 'true']);
      // What was compared is all there: one welcome in the rule's language, a delivery and its job
      // for each enabled endpoint that takes lead.created (two of four).
      expect(a.messages).toEqual([expect.objectContaining({ template: 'bienvenida', state: 'pending', language })]);
      expect(a.deliveries).toHaveLength(2);
      expect(a.jobs.filter((j) => j.kind === 'deliver_webhook')).toHaveLength(2);
      expect(a.events[0].data).not.toContain('no mostrar');
    },
  );

  it.each(['inquiries', 'ingest'] as const)(
    'stores for %s to a business without a channel or an endpoint taking new leads what the transactional path stores',
    async (kind) => {
      const [plainPhone, byHandPhone] = [newPhone(), newPhone()];
      const plain = await post(t.app, `/leads/${kind}`, quiet.key, kind === 'inquiries' ? inquiry(plainPhone) : ingest(plainPhone));
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      await byHand(kind, quiet.businessId, byHandPhone, 'gb');
      const reference = await storedFor(await idOf(byHandPhone), byHandPhone);
      const a = await storedFor(await idOf(plainPhone), plainPhone);
      expect(a).toEqual(reference);
      expect([a.messages, a.deliveries, a.jobs.filter((j) => j.kind === 'deliver_webhook')]).toEqual([[], [], []]);
      expect(a.events).toHaveLength(1);
    },
  );

  it('sees a change to the channel or the endpoints at the next lead, made by this process or another', async () => {
    const other = createDb(t.url);
    /** A new lead to the quiet business, through the API and by hand: the rows of both, compared. */
    const compared = async (kind: 'inquiries' | 'ingest') => {
      const [plainPhone, byHandPhone] = [newPhone(), newPhone()];
      const plain = await post(t.app, `/leads/${kind}`, quiet.key, kind === 'inquiries' ? inquiry(plainPhone) : ingest(plainPhone));
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      await byHand(kind, quiet.businessId, byHandPhone, 'gb');
      const a = await storedFor(await idOf(plainPhone), plainPhone);
      expect(a).toEqual(await storedFor(await idOf(byHandPhone), byHandPhone));
      return { language: a.messages.map((m) => m.language), deliveries: a.deliveries.length };
    };
    try {
      expect(await compared('ingest')).toEqual({ language: [], deliveries: 0 });
      const added = await addWebhook(other, {
        businessId: quiet.businessId,
        url: 'https://crm.example/quiet-created',
        events: ['lead.created'],
      });
      expect(await compared('ingest')).toEqual({ language: [], deliveries: 1 });
      await connectChannel(
        other,
        { businessId: quiet.businessId, provider: 'whatsapp-cloud', phoneNumberId: '78', tokenEnv: 'T', template: 'hola' },
        { T: 'token' },
      );
      // `gb` by the default mapping (channels/whatsapp-cloud.ts DEFAULT_TEMPLATE_LANGUAGES).
      expect(await compared('inquiries')).toEqual({ language: ['en'], deliveries: 1 });
      await other.updateTable('channels').set({ languages: '{"gb":"en_GB"}' }).where('business_id', '=', quiet.businessId).execute();
      expect(await compared('inquiries')).toEqual({ language: ['en_GB'], deliveries: 1 });
      await other.updateTable('webhook_endpoints').set({ events: '["lead.updated"]' }).where('id', '=', added.id).execute();
      expect(await compared('ingest')).toEqual({ language: ['es'], deliveries: 0 });
      await other.updateTable('webhook_endpoints').set({ events: null }).where('id', '=', added.id).execute();
      expect(await compared('ingest')).toEqual({ language: ['es'], deliveries: 1 });
      await disableWebhook(other, added.id);
      expect(await compared('ingest')).toEqual({ language: ['es'], deliveries: 0 });
      await other.deleteFrom('channels').where('business_id', '=', quiet.businessId).execute();
      expect(await compared('inquiries')).toEqual({ language: [], deliveries: 0 });
    } finally {
      await other.destroy();
    }
  });

  it('decides an e-mail welcome as the transactional path does, and sees the e-mail settings change at the next lead', async () => {
    const mail = await businessWithKey(t.db, 'Con correo');
    const other = createDb(t.url);
    /** An inquiry with an e-mail address to the business, through the API and by hand: the welcome of both, compared. */
    const compared = async (preferred: string, whatsapp: boolean) => {
      const [plainPhone, byHandPhone] = [newPhone(), newPhone()];
      const body = (phone: string) => ({
        ...inquiry(phone, preferred),
        personal_email: `marta.${phone.slice(1)}@example.com`,
        consent: { marketing: true, whatsapp, text: 'Acepto', version: 'v3' },
      });
      const plain = await post(t.app, '/leads/inquiries', mail.key, body(plainPhone));
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      const { phone_number_1: _phone, ...rest } = body(byHandPhone);
      await createInquiryLead(
        transactional(),
        mail.businessId,
        {
          ...rest,
          type: canonicalLeadType('buyer')!,
          phone_number_1: byHandPhone,
          phone_number_2: null,
          landline_phone: null,
        } as never,
        { verified: true },
      );
      const a = await storedFor(await idOf(plainPhone), plainPhone);
      const reference = await storedFor(await idOf(byHandPhone), byHandPhone);
      const address = (phone: string) => `marta.${phone.slice(1)}@example.com`;
      const mapped = (m: { recipient: string | null }, phone: string) => ({
        ...m,
        recipient: m.recipient === address(phone) ? '<email>' : m.recipient,
      });
      expect(a.messages.map((m) => mapped(m, plainPhone))).toEqual(reference.messages.map((m) => mapped(m, byHandPhone)));
      const masked = (lead: typeof a.lead, phone: string) => ({
        ...lead,
        personal_email: null,
        search_text: lead.search_text?.replace(address(phone), '<email>'),
      });
      expect(masked(a.lead, plainPhone)).toEqual(masked(reference.lead, byHandPhone));
      return a.messages.map((m) => `${m.kind}:${m.language}:${m.recipient === address(plainPhone) ? 'email' : m.recipient}`);
    };
    try {
      // No channel, no e-mail: no welcome.
      expect(await compared('ge', true)).toEqual([]);
      await connectEmail(other, {
        businessId: mail.businessId,
        url: 'smtps://u:p@smtp.agency.example',
        from: 'hola@agency.example',
        replyTo: null,
      });
      expect(await compared('ge', true)).toEqual(['email:de:email']);
      expect(await compared('gb', true)).toEqual(['email:en:email']);
      await connectChannel(
        other,
        { businessId: mail.businessId, provider: 'whatsapp-cloud', phoneNumberId: '79', tokenEnv: 'T', template: 'hola' },
        { T: 'token' },
      );
      // WhatsApp carries it when the lead allows it; an e-mail when the lead refused WhatsApp.
      expect(await compared('fr', true)).toEqual(['template:fr:<phone>']);
      expect(await compared('fr', false)).toEqual(['email:fr:email']);
      await other.deleteFrom('email_settings').where('business_id', '=', mail.businessId).execute();
      expect(await compared('it', false)).toEqual(['template:it:<phone>']);
    } finally {
      await other.destroy();
    }
  });

  it("bumps the business's config version when an endpoint is added, deleted or changes what it takes, not for its secret", async () => {
    const { businessId } = await businessWithKey(t.db, 'Versiones');
    const version = async () => (await findConfigVersion(t.db, businessId))!;
    const steps: number[] = [await version()];
    const added = await addWebhook(t.db, { businessId, url: 'https://crm.example/v' });
    steps.push(await version());
    await t.db.updateTable('webhook_endpoints').set({ events: '["lead.created"]' }).where('id', '=', added.id).execute();
    steps.push(await version());
    await rotateWebhookSecret(t.db, added.id);
    await t.db.updateTable('webhook_endpoints').set({ url: 'https://crm.example/w' }).where('id', '=', added.id).execute();
    steps.push(await version());
    await disableWebhook(t.db, added.id);
    steps.push(await version());
    await t.db.deleteFrom('webhook_endpoints').where('id', '=', added.id).execute();
    steps.push(await version());
    // Added, events changed, secret and URL changed (no bump), disabled, deleted.
    expect(steps.slice(1).map((v, i) => v > steps[i])).toEqual([true, true, false, true, true]);
  });

  /** The rows of a new lead with `phone`, written directly, at the business's configuration now. */
  const rowsFor = async (phone: string, idempotency: NewLeadRows['idempotency'] = null): Promise<NewLeadRows> => {
    const at = new Date().toISOString();
    return {
      businessId: t.businessId,
      lead: {
        business_id: t.businessId,
        name: 'Otra',
        type: 'demandante',
        status: 'new',
        active: 1,
        rating: 3,
        captured_by: 'Web',
        phone_number_1: phone,
        created_at: at,
        updated_at: at,
      },
      note: 'nota',
      consent: null,
      welcome: { kind: 'template', recipient: phone, template: 'bienvenida', language: 'es' },
      jobs: ['match_lead'],
      endpointIds: [],
      configVersion: (await findConfigVersion(t.db, t.businessId))!,
      eventDataAfterId: '}}',
      idempotency,
      at,
    };
  };

  it.runIf(ENGINE === 'postgres')('writes nothing for a known phone, and says so', async () => {
    await post(t.app, '/leads/ingest', t.key, ingest('+34611700009'));
    const before = await snapshot(t.db);
    expect(await insertNewLeadAtOnce(t.db, await rowsFor('+34611700009'))).toBeNull();
    expect(await snapshot(t.db)).toBe(before);
  });

  it.runIf(ENGINE === 'postgres')('writes nothing when the business’s configuration moved since it was read, and says so', async () => {
    const rows = await rowsFor('+34611700012');
    const before = await snapshot(t.db);
    expect(await insertNewLeadAtOnce(t.db, { ...rows, configVersion: rows.configVersion - 1 })).toBe('stale');
    expect(await snapshot(t.db)).toBe(before);
    expect(await insertNewLeadAtOnce(t.db, rows)).toEqual(expect.any(Number));
  });

  it.runIf(ENGINE === 'postgres')(
    'records a key not claimed first as done with its lead, and fails whole, writing nothing, when the key is taken',
    async () => {
      const at = new Date().toISOString();
      const key = (name: string) => ({
        keyId: t.keyId,
        idempotencyKey: name,
        body: { beforeId: '{"lead_id":', afterId: '}' },
        known: null,
        insert: { fingerprint: 'f'.repeat(64), createdAt: at, expiresAt: '2999-01-01T00:00:00Z' },
      });
      const leadId = await insertNewLeadAtOnce(t.db, await rowsFor('+34611700010', key('deferred')));
      const record = await t.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('idempotency_key', '=', 'deferred')
        .executeTakeFirstOrThrow();
      expect(record).toMatchObject({ state: 'done', locked_until: null, status: 200, outcome: 'created', lead_id: leadId });
      expect(record.response).toBe(`{"lead_id":${leadId}}`);
      // The same key again, with a new phone: a unique violation, and not one row of the lead.
      const before = await snapshot(t.db);
      const rows = await rowsFor('+34611700011', key('deferred'));
      const failed = await insertNewLeadAtOnce(t.db, rows).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isKeyTaken(failed)).toBe(true);
      expect(await snapshot(t.db)).toBe(before);
    },
  );
});
