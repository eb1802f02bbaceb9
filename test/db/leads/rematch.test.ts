/**
 * Re-matching after a catalogue change (CONTRACT §7, services/leads/rematch.ts): the searching
 * leads' stored matches, near misses and totals end exactly as matching every lead whole would
 * leave them, through new, changed and withdrawn listings, leads cut at the per-entry cap and
 * leads that stopped and started searching; only the leads a change reaches are matched again;
 * a second run writes nothing; a lead with its own matching queued is left to it.
 */
import { Faker, en } from '@faker-js/faker';
import { beforeEach, describe, expect, it } from 'vitest';
import { listLeadMatches, findLeadMatchRun } from '../../../src/db/repositories/matches.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { CatalogueSnapshots, matchSearchPreferences } from '../../../src/services/leads/matching.ts';
import { addWebhook } from '../../../src/services/integrations/outgoing-webhooks.ts';
import { rematchLeads } from '../../../src/services/leads/rematch.ts';
import { matchRows } from '../../../src/domain/leads/matching.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY, each: true });
/** Small, so that some leads are cut at the cap. */
const MATCH_LIMIT = 3;
const CITIES = ['Madrid', 'Teruel', 'Soria', 'Huesca', 'Cuenca', 'Ávila', 'Segovia', 'Zamora'];
let phones = 0;

beforeEach(() => {
  phones = 0;
});

/** A seeded generator, so that a failure can be replayed: a number in [0, 1). */
function random(seed: number): () => number {
  const faker = new Faker({ locale: en });
  faker.seed(seed);
  return () => faker.number.float({ min: 0, max: 1, multipleOf: 1 / 1024 }) % 1;
}

const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)];

/** A listing of the test's small world: a city, a price and bedrooms drawn from `rnd`. */
function drawn(rnd: () => number, ref: string, at: string): Record<string, unknown> {
  const city = pick(rnd, CITIES);
  return listing(ref, {
    city,
    province: city,
    price: 80_000 + Math.floor(rnd() * 8) * 20_000,
    bedrooms: 1 + Math.floor(rnd() * 4),
    updated_at: at,
  });
}

/** A searching buyer; @returns its id. */
async function lead(search: Record<string, unknown>): Promise<number> {
  const response = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Marta Ruiz',
    type: 'buyer',
    phone_number_1: `+34611900${String(++phones).padStart(3, '0')}`,
    search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], ...search }],
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.lead_id as number;
}

const drain = () =>
  new Worker({
    db: t.db,
    clock: new ManualClock(new Date(Date.now() + 60_000)),
    settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3, matchLimit: MATCH_LIMIT, alertHour: 24 },
  }).drain();

/** What matching the lead whole against the catalogue now gives, as stored rows and totals. */
async function expected(leadId: number) {
  const { search_preferences } = await t.db
    .selectFrom('leads')
    .select('search_preferences')
    .where('id', '=', leadId)
    .executeTakeFirstOrThrow();
  const result = matchSearchPreferences(search_preferences, await new CatalogueSnapshots().get(t.db, t.businessId), MATCH_LIMIT);
  const rows = matchRows(result).sort((a, b) => a.search_index - b.search_index || a.property_id - b.property_id);
  return { rows, matches_total: result.matchesTotal, near_misses_total: result.nearMissesTotal };
}

/** What is stored for the lead, in the shape of {@link expected}. */
async function stored(leadId: number) {
  const run = await findLeadMatchRun(t.db, leadId);
  return { rows: await listLeadMatches(t.db, leadId), matches_total: run?.matches_total, near_misses_total: run?.near_misses_total };
}

const version = async () =>
  (await t.db.selectFrom('businesses').select('catalogue_version').where('id', '=', t.businessId).executeTakeFirstOrThrow())
    .catalogue_version;

describe('a catalogue change', () => {
  it('leaves every searching lead matched as a whole matching would, change after change', async () => {
    const rnd = random(45);
    let stamp = Date.parse('2026-02-01T10:00:00Z');
    const at = () => new Date((stamp += 60_000)).toISOString();
    const refs = Array.from({ length: 24 }, (_, i) => `R-${i}`);
    await importRecords(
      t.db,
      t.businessId,
      refs.map((ref) => drawn(rnd, ref, at())),
    );
    const leads: number[] = [];
    // Most leads want one town, a price and bedrooms, so that a change reaches only some of them;
    // a few want anything under a high price, and match more listings than the cap keeps.
    for (let i = 0; i < 12; i++) {
      leads.push(
        await lead({
          locations: [{ name: pick(rnd, CITIES) }],
          apartamento: { price_max: 100_000 + Math.floor(rnd() * 6) * 20_000, bedrooms_min: 1 + Math.floor(rnd() * 3) },
        }),
      );
    }
    for (let i = 0; i < 3; i++) leads.push(await lead({ apartamento: { price_max: 180_000 + i * 20_000 } }));
    await drain();
    const away = leads[0];
    // One change a round, each kind in turn: a new listing, one moved to another town or price,
    // one sold, one no longer public; the first lead stops and starts searching in between.
    for (let round = 0; round < 12; round++) {
      await t.db
        .updateTable('leads')
        .set({ status: round % 3 === 0 ? 'closed' : 'searching_property' })
        .where('id', '=', away)
        .execute();
      const kind = round % 4;
      const change =
        kind === 0
          ? drawn(rnd, `N-${round}`, at())
          : kind === 1
            ? drawn(rnd, pick(rnd, refs), at())
            : listing(pick(rnd, refs), kind === 2 ? { status: 'vendida', updated_at: at() } : { public: false, updated_at: at() });
      if (kind === 0) refs.push(change.external_ref as string);
      await importRecords(t.db, t.businessId, [change]);
      await drain();
      const current = await version();
      for (const id of leads) {
        const { status } = await t.db.selectFrom('leads').select('status').where('id', '=', id).executeTakeFirstOrThrow();
        if (status !== 'searching_property') continue;
        expect(await stored(id), `lead ${id} after round ${round}`).toEqual(await expected(id));
        expect((await findLeadMatchRun(t.db, id))?.catalogue_version).toBe(current);
      }
    }
    // Some leads were cut at the cap, so that case was met.
    const cut = await t.db.selectFrom('lead_match_runs').select('lead_id').where('truncated', '=', 1).execute();
    expect(cut.length).toBeGreaterThan(0);
  });

  it('matches again only the leads it reaches, records what they newly match, and a second run writes nothing', async () => {
    await importRecords(t.db, t.businessId, [listing('M-1', { price: 150_000 })]);
    const teruel = await lead({ locations: [{ name: 'Teruel' }], apartamento: { price_max: 400_000 } });
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await lead({ locations: [{ name: 'Madrid' }], apartamento: { price_max: 200_000 } }));
    await drain();
    const before = await Promise.all(others.map((id) => findLeadMatchRun(t.db, id)));

    // Too dear for the others, and elsewhere: not even a near miss of theirs (two criteria missed).
    await importRecords(t.db, t.businessId, [listing('T-1', { city: 'Teruel', province: 'Teruel', price: 300_000 })]);
    // Run as the job does, with the snapshot of a worker.
    const options = { snapshots: new CatalogueSnapshots(), matchLimit: MATCH_LIMIT, now: '2026-11-27T10:00:00.000+00:00' };
    const outcome = await rematchLeads(t.db, t.businessId, options);
    expect(outcome).toEqual({ version: await version(), leads: 6, matched: 1, written: 1 });
    const t1 = await propertyId(t.db, 'T-1');
    expect((await stored(teruel)).rows).toContainEqual({ property_id: t1, search_index: 0, failed: null });
    const events = await t.db
      .selectFrom('events')
      .select(['lead_id', 'data'])
      .where('type', '=', 'match.found')
      .where('lead_id', '=', teruel)
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].data)).toEqual({ lead_id: teruel, matches: [t1], near_misses: 1 });
    // The others keep what they stored, marked current at the new version.
    const after = await Promise.all(others.map((id) => findLeadMatchRun(t.db, id)));
    for (const [i, run] of after.entries()) {
      expect(run).toEqual({ ...before[i], catalogue_version: outcome!.version, matched_at: options.now });
    }
    // A second run finds every result equal: nothing is written, no event is added.
    expect(await rematchLeads(t.db, t.businessId, options)).toMatchObject({ matched: 1, written: 0 });
    expect(
      await t.db.selectFrom('events').select('id').where('type', '=', 'match.found').where('lead_id', '=', teruel).execute(),
    ).toHaveLength(1);
  });

  it("sends a re-match's match.found to the endpoints that take it, each behind the lead's pending delivery", async () => {
    const { id: endpointId } = await addWebhook(
      t.db,
      { businessId: t.businessId, url: 'http://127.0.0.1:9/hook', events: ['match.found'] },
      { allowPrivateNetwork: true, channelHosts: [] },
    );
    await importRecords(t.db, t.businessId, [listing('M-1', { price: 150_000 })]);
    const teruel = await lead({ locations: [{ name: 'Teruel' }], apartamento: { price_max: 400_000 } });
    await drain();
    const options = { snapshots: new CatalogueSnapshots(), matchLimit: MATCH_LIMIT, now: '2026-11-27T10:00:00.000+00:00' };
    const deliveries = () =>
      t.db.selectFrom('webhook_deliveries').select(['lead_id', 'state']).where('endpoint_id', '=', endpointId).orderBy('id').execute();
    const sending = () =>
      t.db.selectFrom('jobs').select('id').where('kind', '=', 'deliver_webhook').where('state', '=', 'pending').execute();
    expect(await deliveries()).toEqual([]);
    for (const ref of ['T-1', 'T-2']) {
      await importRecords(t.db, t.businessId, [listing(ref, { city: 'Teruel', province: 'Teruel', price: 300_000 })]);
      expect(await rematchLeads(t.db, t.businessId, options)).toMatchObject({ written: 1 });
    }
    expect(await deliveries()).toEqual([
      { lead_id: teruel, state: 'pending' },
      { lead_id: teruel, state: 'pending' },
    ]);
    // One delivery job: the second waits for the first to be delivered, in order.
    expect(await sending()).toHaveLength(1);
  });

  it('drops a listing sold or no longer public from the leads that stored it', async () => {
    await importRecords(t.db, t.businessId, [listing('M-1', { price: 150_000 }), listing('M-2', { price: 250_000 })]);
    const id = await lead({ locations: [{ name: 'Madrid' }], apartamento: { price_max: 200_000 } });
    await drain();
    expect((await stored(id)).rows.map((r) => [r.property_id, r.failed])).toEqual([
      [await propertyId(t.db, 'M-1'), null],
      [await propertyId(t.db, 'M-2'), 'price_max'],
    ]);
    await importRecords(t.db, t.businessId, [listing('M-1', { price: 150_000, status: 'vendida' })]);
    await drain();
    expect(await stored(id)).toEqual({
      rows: [{ property_id: await propertyId(t.db, 'M-2'), search_index: 0, failed: 'price_max' }],
      matches_total: 0,
      near_misses_total: 1,
    });
    await importRecords(t.db, t.businessId, [listing('M-2', { price: 250_000, public: false })]);
    await drain();
    expect(await stored(id)).toEqual({ rows: [], matches_total: 0, near_misses_total: 0 });
  });

  it('matches again a lead that was not searching during an earlier change', async () => {
    await importRecords(t.db, t.businessId, [listing('M-1', { price: 150_000 })]);
    const id = await lead({ locations: [{ name: 'Madrid' }], apartamento: { price_max: 200_000 } });
    await drain();
    await t.db.updateTable('leads').set({ status: 'closed' }).where('id', '=', id).execute();
    await importRecords(t.db, t.businessId, [listing('M-2', { price: 160_000 })]);
    await drain();
    expect((await stored(id)).rows).toHaveLength(1);
    await t.db.updateTable('leads').set({ status: 'searching_property' }).where('id', '=', id).execute();
    // A change that reaches nobody (too dear, elsewhere) still brings the returning lead up to date.
    await importRecords(t.db, t.businessId, [listing('Z-1', { city: 'Zamora', province: 'Zamora', price: 900_000 })]);
    await drain();
    expect((await stored(id)).rows.map((r) => r.property_id)).toEqual([await propertyId(t.db, 'M-1'), await propertyId(t.db, 'M-2')]);
    expect(await stored(id)).toEqual(await expected(id));
  });

  it('leaves a lead whose own matching is queued to that job', async () => {
    await importRecords(t.db, t.businessId, [listing('M-1', { price: 150_000 })]);
    const id = await lead({ locations: [{ name: 'Madrid' }], apartamento: { price_max: 200_000 } });
    // The inquiry's match_lead job is still pending: the re-match does not touch the lead.
    const outcome = await rematchLeads(t.db, t.businessId, {
      snapshots: new CatalogueSnapshots(),
      matchLimit: MATCH_LIMIT,
      now: '2026-11-27T10:00:00.000+00:00',
    });
    expect(outcome).toMatchObject({ leads: 1, matched: 0, written: 0 });
    expect(await findLeadMatchRun(t.db, id)).toBeUndefined();
    await drain();
    expect(await stored(id)).toEqual(await expected(id));
  });
});
