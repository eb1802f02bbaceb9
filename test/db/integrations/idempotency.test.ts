/**
 * Idempotency-Key on POST /leads/inquiries and POST /leads/ingest, and Inmo-Lead-Outcome
 * (CONTRACT §13; services/integrations/idempotency.ts).
 */
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../../src/db/group-commit.ts';
import { writeKeyRecord } from '../../../src/db/repositories/idempotency.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { CLAIM_MS, Idempotency, KEY_TTL_MS, requestFingerprint } from '../../../src/services/integrations/idempotency.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { businessWithKey, snapshot } from '../../helpers/db.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY, each: true });

let phoneSeq = 0;
const inquiry = (overrides: Record<string, unknown> = {}) => ({
  name: 'Marta',
  type: 'buyer',
  phone_number_1: `+3461170${String(++phoneSeq).padStart(4, '0')}`,
  ...overrides,
});
const ingest = (phone: string) => ({
  id: 'form-1',
  createdAt: '2026-11-23T10:00:00Z',
  source: 'landing',
  sourcePage: 'https://agency.example/alquiler',
  contact: { name: 'Iker', phone },
  search: { budget: '900' },
});
const withKey = (key: string) => ({ 'idempotency-key': key });
const leadCount = async () =>
  Number(
    (
      await t.db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('Idempotency-Key', () => {
  it('answers a retry with the first response, marked as replayed, and creates one lead with one set of jobs', async () => {
    const body = inquiry();
    const first = await post(t.app, '/leads/inquiries', t.key, body, withKey('form-42'));
    expect(first.status).toBe(200);
    expect(first.headers['inmo-lead-outcome']).toBe('created');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const jobs = await t.db.selectFrom('jobs').selectAll().execute();
    for (let i = 0; i < 3; i++) {
      const retry = await post(t.app, '/leads/inquiries', t.key, body, withKey('form-42'));
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers['inmo-lead-outcome']).toBe('created');
      expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    }
    expect(await leadCount()).toBe(1);
    expect(await t.db.selectFrom('jobs').selectAll().execute()).toEqual(jobs);
    // Without the key, the same body is a second attempt: the phone exists (spec §4.2 rule 4).
    expect((await post(t.app, '/leads/inquiries', t.key, body)).status).toBe(409);
  });

  it('replays the first answer exactly when the business’s name holds the number that marks the lead id’s place', async () => {
    // services/integrations/idempotency.ts splits the 200's body at a mark; a name holding the first mark takes the next.
    await t.db.updateTable('businesses').set({ name: 'Fincas 987654321012345' }).where('id', '=', t.businessId).execute();
    const body = inquiry();
    const first = await post(t.app, '/leads/inquiries', t.key, body, withKey('marked-1'));
    expect(first.status).toBe(200);
    expect(first.body.authenticated_as).toBe('Fincas 987654321012345');
    const retry = await post(t.app, '/leads/inquiries', t.key, body, withKey('marked-1'));
    expect([retry.headers['idempotent-replayed'], retry.body]).toEqual(['true', first.body]);
  });

  it('refuses the key with another body, or on the other POST, with 422 and changes nothing', async () => {
    const body = inquiry();
    await post(t.app, '/leads/inquiries', t.key, body, withKey('k-1'));
    const before = await snapshot(t.db);
    const other = await post(t.app, '/leads/inquiries', t.key, { ...body, name: 'Otra persona' }, withKey('k-1'));
    expect([other.status, other.body]).toEqual([422, { detail: 'Idempotency-Key reused with a different request body' }]);
    const elsewhere = await post(t.app, '/leads/ingest', t.key, ingest('+34611799999'), withKey('k-1'));
    expect([elsewhere.status, elsewhere.body]).toEqual([422, { detail: 'Idempotency-Key reused with a different request body' }]);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('keeps keys per API key: another key’s same Idempotency-Key is another request', async () => {
    const other = await businessWithKey(t.db, 'Otra agencia');
    const a = await post(t.app, '/leads/inquiries', t.key, inquiry(), withKey('shared'));
    const b = await post(t.app, '/leads/inquiries', other.key, inquiry(), withKey('shared'));
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.body.lead_id).not.toBe(b.body.lead_id);
  });

  it('answers 409 with Retry-After: 1 while the first request runs, and changes nothing', async () => {
    const body = inquiry();
    const now = Date.now();
    await t.db
      .insertInto('idempotency_keys')
      .values({
        key_id: t.keyId,
        idempotency_key: 'running',
        fingerprint: requestFingerprint('POST', '/v1/ext/leads/inquiries', JSON.stringify(body)),
        state: 'running',
        locked_until: toRfc3339(new Date(now + CLAIM_MS)),
        created_at: toRfc3339(new Date(now)),
        expires_at: toRfc3339(new Date(now + KEY_TTL_MS)),
      })
      .execute();
    const before = await snapshot(t.db);
    const busy = await post(t.app, '/leads/inquiries', t.key, body, withKey('running'));
    expect(busy.status).toBe(409);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.body.detail).toMatch(/still being processed/);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('takes over a claim whose process died, and a key whose 24 hours are over', async () => {
    const body = inquiry();
    const fingerprint = requestFingerprint('POST', '/v1/ext/leads/inquiries', JSON.stringify(body));
    const long = Date.now() - KEY_TTL_MS - 1000;
    await t.db
      .insertInto('idempotency_keys')
      .values([
        {
          key_id: t.keyId,
          idempotency_key: 'lapsed',
          fingerprint,
          state: 'running',
          locked_until: toRfc3339(new Date(Date.now() - 1)),
          created_at: toRfc3339(new Date(Date.now() - CLAIM_MS)),
          expires_at: toRfc3339(new Date(Date.now() + KEY_TTL_MS)),
        },
        {
          key_id: t.keyId,
          idempotency_key: 'old',
          fingerprint: 'f'.repeat(64),
          state: 'done',
          locked_until: null,
          status: 200,
          response: '{"status":"ok"}',
          outcome: 'created',
          created_at: toRfc3339(new Date(long)),
          expires_at: toRfc3339(new Date(long + KEY_TTL_MS)),
        },
      ])
      .execute();
    const lapsed = await post(t.app, '/leads/inquiries', t.key, body, withKey('lapsed'));
    expect([lapsed.status, lapsed.headers['inmo-lead-outcome']]).toEqual([200, 'created']);
    // Another body under an expired key is a new request, not a 422.
    const reused = await post(t.app, '/leads/inquiries', t.key, inquiry(), withKey('old'));
    expect([reused.status, reused.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect((await post(t.app, '/leads/inquiries', t.key, body, withKey('lapsed'))).headers['idempotent-replayed']).toBe('true');
  });

  it('keeps nothing of a first request that failed, so the key can be sent again', async () => {
    await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34611788888', name: 'Ya está' });
    const before = await snapshot(t.db);
    const badPhone = await post(t.app, '/leads/inquiries', t.key, inquiry({ phone_number_1: '12' }), withKey('bad'));
    expect(badPhone.status).toBe(422);
    const badBudget = await post(
      t.app,
      '/leads/ingest',
      t.key,
      { ...ingest('+34611788889'), search: { budget: 'mucho' } },
      withKey('budget'),
    );
    expect(badBudget.status).toBe(500);
    expect(await snapshot(t.db)).toBe(before);
    // Fixed and sent again under the same key: it runs.
    const fixed = await post(t.app, '/leads/inquiries', t.key, inquiry({ phone_number_1: '12' }), withKey('bad'));
    expect(fixed.status).toBe(422);
    expect(fixed.body).toEqual(badPhone.body);
  });

  it('replays an ingest, including one that found the phone already there', async () => {
    const first = await post(t.app, '/leads/ingest', t.key, ingest('+34611777001'), withKey('ing-1'));
    expect([first.status, first.headers['inmo-lead-outcome']]).toEqual([200, 'created']);
    const again = await post(t.app, '/leads/ingest', t.key, ingest('+34611777001'), withKey('ing-2'));
    expect([again.status, again.headers['inmo-lead-outcome']]).toEqual([200, 'unchanged']);
    const replay = await post(t.app, '/leads/ingest', t.key, ingest('+34611777001'), withKey('ing-2'));
    expect([replay.status, replay.body, replay.headers['inmo-lead-outcome'], replay.headers['idempotent-replayed']]).toEqual([
      200,
      again.body,
      'unchanged',
      'true',
    ]);
    expect(await leadCount()).toBe(1);
  });

  it.each([
    ['', 'string_too_short'],
    ['x'.repeat(256), 'string_too_long'],
    ['clé-ñ', 'string_pattern_mismatch'],
  ])('refuses the key %j with a Pydantic 422 %s, reported with the body’s faults, and changes nothing', async (value, type) => {
    const before = await snapshot(t.db);
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/ext/leads/inquiries',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json', 'idempotency-key': Buffer.from(value, 'utf8').toString('latin1') },
      payload: JSON.stringify({ type: 'buyer', phone_number_1: '+34611766666' }),
    });
    expect(response.statusCode).toBe(422);
    const detail = response.json().detail;
    expect(detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['header.idempotency-key', 'body.name']);
    expect(detail[0].type).toBe(type);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('takes 255 printable ASCII characters', async () => {
    const response = await post(t.app, '/leads/inquiries', t.key, inquiry(), withKey(' ~'.repeat(127) + 'x'));
    expect(response.status).toBe(200);
  });

  it('lets exactly one of 50 concurrent identical requests create the lead; every other answer is the original or a 409', async () => {
    const body = inquiry();
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(t.app, '/leads/inquiries', t.key, body, withKey('stampede'))));
    expect(await leadCount()).toBe(1);
    const created = answers.filter((a) => a.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const a of created) expect(a.body).toEqual(created[0].body);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(409);
      expect(a.headers['retry-after']).toBe('1');
    }
    // Once the first is done, the refused ones get the original by retrying.
    const late = await post(t.app, '/leads/inquiries', t.key, body, withKey('stampede'));
    expect([late.status, late.body]).toEqual([200, created[0].body]);
  });

  it('tells the outcome without a key too: created, completed, unchanged', async () => {
    const created = await post(t.app, '/leads/inquiries', t.key, inquiry());
    expect(created.headers['inmo-lead-outcome']).toBe('created');
    await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34611755555' });
    const completed = await post(t.app, '/leads/inquiries', t.key, inquiry({ phone_number_1: '+34611755555' }));
    expect([completed.status, completed.headers['inmo-lead-outcome']]).toEqual([200, 'completed']);
    const unchanged = await post(t.app, '/leads/ingest', t.key, ingest('+34611755555'));
    expect([unchanged.status, unchanged.headers['inmo-lead-outcome']]).toEqual([200, 'unchanged']);
    const refused = await post(t.app, '/leads/inquiries', t.key, inquiry({ phone_number_1: '+34611755555' }));
    expect([refused.status, refused.headers['inmo-lead-outcome']]).toEqual([409, undefined]);
  });

  it('purges expired records now and then', async () => {
    let now = Date.now();
    const writes = new GroupCommit(t.db);
    const idempotency = new Idempotency(writes, () => now);
    /** A request with key `name` at `now` that stores its response (claimed first or not, as the engine has it). */
    const stored = async (name: string) => {
      const begun = await idempotency.begin({
        keyId: t.keyId,
        idempotencyKey: name,
        method: 'POST',
        route: '/v1/ext/leads/ingest',
        body: name,
      });
      if (begun.kind !== 'ticket') throw new Error(`no ticket: ${begun.kind}`);
      const record = idempotency.recordFor(begun.ticket, () => ({ status: 'ok' }), null)!;
      await writes.run((trx) => writeKeyRecord(trx, record, { leadId: null, outcome: 'unchanged', about: null }));
    };
    await stored('a');
    now += KEY_TTL_MS + 11 * 60 * 1000;
    await stored('b');
    // The purge runs beside the claim, not in it: waited for.
    const left = async () => (await t.db.selectFrom('idempotency_keys').select('idempotency_key').execute()).map((r) => r.idempotency_key);
    await expect.poll(left).toEqual(['b']);
  });
});
