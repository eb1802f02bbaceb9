/** Follow-ups (spec §6 step 3, CONTRACT §7) with a clock the test moves: periods, recurrence, rules, due list. */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { addDays, followUpPeriodDays } from '../../../src/domain/leads/follow-ups.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { dueFollowUps, markFollowUpDone, setFollowUpRule } from '../../../src/services/leads/follow-ups.ts';
import { leadInFull } from '../../../src/services/leads/leads.ts';
import { inmo } from '../../helpers/cli.ts';
import { businessWithKey, freshDb } from '../../helpers/db.ts';
import { post, API_ONLY } from '../../helpers/http.ts';

let db: Db;
let url: string;
let app: FastifyInstance;
let key: string;
let businessId: number;
let clock: ManualClock;

beforeEach(async () => {
  ({ db, url } = await freshDb());
  ({ key, businessId } = await businessWithKey(db));
  app = await buildApp({ surfaces: API_ONLY, db });
  clock = new ManualClock(new Date(Date.now() + 60_000));
});

afterEach(async () => {
  await app.close();
  await db.destroy();
});

const drain = () => new Worker({ db, clock, settings: { pollMs: 10 } }).drain();

async function inquiry(phone: string, type: string, operations?: string[]) {
  const response = await post(app, '/leads/inquiries', key, {
    name: 'Ana',
    phone_number_1: phone,
    type,
    ...(operations ? { search_preferences: [{ operations, property_types: ['apartamento'] }] } : {}),
  });
  expect(response.status).toBe(200);
  const id = response.body.lead_id as number;
  const lead = await db.selectFrom('leads').select('created_at').where('id', '=', id).executeTakeFirstOrThrow();
  return { id, createdAt: lead.created_at };
}

const followUps = async (leadId: number) =>
  (await leadInFull(db, leadId))!.follow_ups.map(({ due_at, every_days, state }) => ({ due_at, every_days, state }));

describe('periods', () => {
  it('rent every 30 days; buying or taking over every 90; rent wins when both are searched', () => {
    const none = new Map<string, number>();
    expect(followUpPeriodDays('demandante', [{ operations: ['alquiler'] }], none)).toBe(30);
    expect(followUpPeriodDays('demandante', [{ operations: ['venta'] }], none)).toBe(90);
    expect(followUpPeriodDays('demandante', [{ operations: ['traspaso'] }], none)).toBe(90);
    expect(followUpPeriodDays('demandante', [{ operations: ['venta'] }, { operations: ['alquiler'] }], none)).toBe(30);
    expect(followUpPeriodDays('demandante', null, none)).toBeNull();
    expect(followUpPeriodDays('propietario', [{ operations: ['alquiler'] }], none)).toBeNull();
    expect(followUpPeriodDays('propietario', null, new Map([['propietario', 45]]))).toBe(45);
    expect(followUpPeriodDays('demandante', null, new Map([['demandante', 60]]))).toBe(60);
  });

  it('adds whole days in UTC', () => {
    expect(addDays('2026-01-31T10:00:00.000+00:00', 30)).toBe('2026-03-02T10:00:00.000+00:00');
  });
});

describe('the worker schedules and rolls follow-ups', () => {
  it('a renter: first due 30 days after creation, recorded as due then, and the next scheduled', async () => {
    const lead = await inquiry('612000001', 'tenant', ['alquiler']);
    await drain();
    expect(await followUps(lead.id)).toEqual([{ due_at: addDays(lead.createdAt, 30), every_days: 30, state: 'scheduled' }]);
    expect(await dueFollowUps(db, {})).toEqual([]);

    clock.advanceDays(29);
    await drain();
    expect((await followUps(lead.id))[0].state).toBe('scheduled');

    clock.advanceDays(1);
    await drain();
    expect(await followUps(lead.id)).toEqual([
      { due_at: addDays(lead.createdAt, 30), every_days: 30, state: 'due' },
      { due_at: addDays(lead.createdAt, 60), every_days: 30, state: 'scheduled' },
    ]);
    const due = await dueFollowUps(db, { businessId });
    expect(due).toHaveLength(1);
    expect(due[0]).toMatchObject({ lead_id: lead.id, due_at: addDays(lead.createdAt, 30), name: 'Ana', phone_number_1: '+34612000001' });

    await markFollowUpDone(db, due[0].id);
    await expect(markFollowUpDone(db, due[0].id)).rejects.toThrow(`Follow-up ${due[0].id} is not due: it is done`);
    await expect(markFollowUpDone(db, 99_999)).rejects.toThrow('No follow-up with id 99999');
    expect(await dueFollowUps(db, {})).toEqual([]);

    clock.advanceDays(30);
    await drain();
    expect((await followUps(lead.id)).map((f) => f.state)).toEqual(['done', 'due', 'scheduled']);
  });

  it('a buyer every 90 days', async () => {
    const lead = await inquiry('612000002', 'buyer', ['venta']);
    await drain();
    expect(await followUps(lead.id)).toEqual([{ due_at: addDays(lead.createdAt, 90), every_days: 90, state: 'scheduled' }]);
  });

  it('other lead types follow the workspace rule, and have none without one', async () => {
    const before = await inquiry('612000003', 'owner');
    await drain();
    await setFollowUpRule(db, businessId, 'propietario', 14);
    const after = await inquiry('612000004', 'owner');
    await drain();
    expect(await followUps(before.id)).toEqual([]);
    expect(await followUps(after.id)).toEqual([{ due_at: addDays(after.createdAt, 14), every_days: 14, state: 'scheduled' }]);
  });

  it('ingest leads get no follow-ups (inquiries only)', async () => {
    const response = await post(app, '/leads/ingest', key, {
      id: 's',
      createdAt: '2026-11-22T10:00:00Z',
      source: 'landing',
      sourcePage: 'https://example.com',
      contact: { name: 'Eva', phone: '612000005' },
      search: {},
    });
    expect(response.status).toBe(200);
    await drain();
    expect(await db.selectFrom('follow_ups').selectAll().execute()).toEqual([]);
  });

  it('a closed lead’s follow-up comes due but schedules no next one', async () => {
    const lead = await inquiry('612000006', 'tenant', ['alquiler']);
    await drain();
    await db.updateTable('leads').set({ status: 'closed' }).where('id', '=', lead.id).execute();
    clock.advanceDays(31);
    await drain();
    expect((await followUps(lead.id)).map((f) => f.state)).toEqual(['due']);
  });

  it('an inactive lead’s follow-up comes due but schedules no next one', async () => {
    const lead = await inquiry('612000008', 'tenant', ['alquiler']);
    await drain();
    await db.updateTable('leads').set({ status: 'inactive' }).where('id', '=', lead.id).execute();
    clock.advanceDays(31);
    await drain();
    expect((await followUps(lead.id)).map((f) => f.state)).toEqual(['due']);
  });

  it('inmo followups rules and due, as scripts use them', async () => {
    const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' };
    const rule = await inmo(
      env,
      'followups',
      'rules',
      '--business',
      String(businessId),
      '--type',
      'propietario',
      '--every-days',
      '7',
      '--json',
    );
    expect(rule.json).toEqual({ business_id: businessId, type: 'propietario', every_days: 7 });
    const bad = await inmo(env, 'followups', 'rules', '--business', String(businessId), '--type', 'vecino', '--every-days', '7', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.json.error).toMatch(/^--type must be one of: demandante, propietario/);

    const lead = await inquiry('612000007', 'owner');
    // The worker runs with a clock 8 days ahead: the first follow-up (7 days) is due.
    clock.advanceDays(8);
    await drain();
    const due = await inmo(env, 'followups', 'due', '--business', String(businessId), '--json');
    expect(due.code).toBe(0);
    expect(due.json).toHaveLength(1);
    expect(due.json[0]).toMatchObject({ lead_id: lead.id, every_days: 7, state: 'due' });
    const done = await inmo(env, 'followups', 'done', String(due.json[0].id), '--json');
    expect(done.json).toEqual({ id: due.json[0].id, state: 'done' });
    expect((await inmo(env, 'followups', 'due', '--json')).json).toEqual([]);
  });
});
