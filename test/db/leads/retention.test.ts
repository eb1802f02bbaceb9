/**
 * Retention (issue 31, CONTRACT §18): with INMO_LEAD_RETENTION_DAYS, the worker erases, once a
 * day, the leads that are `new`, `closed` or `inactive` and have had no change and no message
 * for that many days; each erasure is audited as the system's. Unset, every lead is kept.
 * Driven by a manual clock: the leads are written now, the worker lives a month later.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY, each: true });
const DAY = 24 * 60 * 60 * 1000;

/** A lead with `status`, written now. */
async function lead(phone: string, status: string) {
  const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Nora', type: 'buyer', phone_number_1: phone });
  const id = created.body.lead_id as number;
  await t.db.updateTable('leads').set({ status }).where('id', '=', id).execute();
  return id;
}
const remaining = async () => (await t.db.selectFrom('leads').select('id').orderBy('id').execute()).map((r) => r.id);

describe('retention', () => {
  it('erases quiet new, closed and inactive leads once a day, and keeps the rest', async () => {
    const graph = await startFakeGraph();
    try {
      await connectChannel(
        t.db,
        {
          businessId: t.businessId,
          provider: 'whatsapp-cloud',
          phoneNumberId: '77',
          tokenEnv: 'T',
          template: 'hola',
          baseUrl: graph.baseUrl,
        },
        { T: 'token' },
      );
      const clock = new ManualClock(new Date(Date.now() + 31 * DAY));
      const fresh = await lead('+34611800001', 'new');
      const closed = await lead('+34611800002', 'closed');
      const searching = await lead('+34611800003', 'searching_property');
      const talking = await lead('+34611800004', 'inactive');
      const touched = await lead('+34611800005', 'new');
      // A message 10 days before the clock; a change 5 days before it.
      await t.db
        .updateTable('messages')
        .set({ created_at: toRfc3339(new Date(clock.now().getTime() - 10 * DAY)) })
        .where('lead_id', '=', talking)
        .execute();
      await t.db
        .updateTable('leads')
        .set({ updated_at: toRfc3339(new Date(clock.now().getTime() - 5 * DAY)) })
        .where('id', '=', touched)
        .execute();

      // Without the setting, nothing is erased.
      await new Worker({ db: t.db, clock, settings: { pollMs: 20 } }).drain();
      expect(await remaining()).toEqual([fresh, closed, searching, talking, touched]);

      const worker = new Worker({ db: t.db, clock, settings: { pollMs: 20, leadRetentionDays: 30 } });
      await worker.drain();
      expect(await remaining()).toEqual([searching, talking, touched]);
      const erasures = await t.db.selectFrom('lead_erasures').selectAll().orderBy('lead_id').execute();
      expect(erasures).toEqual([
        { lead_id: fresh, business_id: t.businessId, cause: 'retention', erased_at: toRfc3339(clock.now()) },
        { lead_id: closed, business_id: t.businessId, cause: 'retention', erased_at: toRfc3339(clock.now()) },
      ]);
      const audit = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'lead.erase').orderBy('id').execute();
      expect(audit.map((a) => [a.actor_type, a.actor_id, a.target_id])).toEqual([
        ['system', 'retention', String(fresh)],
        ['system', 'retention', String(closed)],
      ]);
      expect((await t.db.selectFrom('events').select(['type', 'data']).where('type', '=', 'lead.erased').execute()).length).toBe(2);

      // Once a day: a lead that turns quiet later waits for the next day's look.
      await t.db.updateTable('leads').set({ status: 'closed' }).where('id', '=', searching).execute();
      await worker.drain();
      expect(await remaining()).toEqual([searching, talking, touched]);
      clock.advanceDays(1);
      await worker.drain();
      expect(await remaining()).toEqual([talking, touched]);
    } finally {
      await graph.close();
    }
  });
});
