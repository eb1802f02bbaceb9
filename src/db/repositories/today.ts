/** What the console's "Hoy" lists (issue 47, CONTRACT §23). SQL only; the rules are in services/console/today.ts. */
import type { Executor } from '../database.ts';

/** The viewings of `userId` (every agent's when null) that start in `[from, to)`, by start, with their lead (name, first phone) and listing (title, reference, address, city). */
export async function listViewingsBetween(db: Executor, businessId: number, userId: number | null, from: string, to: string) {
  let query = db
    .selectFrom('viewings as v')
    .innerJoin('leads as l', 'l.id', 'v.lead_id')
    .innerJoin('properties as p', 'p.id', 'v.property_id')
    .select([
      'v.id',
      'v.starts_at',
      'v.ends_at',
      'v.status',
      'v.user_id',
      'v.lead_id',
      'l.name',
      'l.phone_number_1 as phone',
      'v.property_id',
      'p.title',
      'p.external_ref',
      'p.address',
      'p.city',
    ])
    .where('v.business_id', '=', businessId)
    .where('v.starts_at', '>=', from)
    .where('v.starts_at', '<', to)
    .where('v.status', 'in', ['requested', 'scheduled', 'confirmed'])
    .orderBy('v.starts_at')
    .orderBy('v.id');
  if (userId !== null) query = query.where('v.user_id', '=', userId);
  return query.execute();
}

/**
 * Due follow-ups not put off past `now`, oldest first, with their lead; of leads assigned to
 * `userId` or to nobody when it is given, of every lead when null. `limit` rows, and how many in all.
 */
export async function listDueFollowUpsFor(db: Executor, businessId: number, userId: number | null, now: string, limit: number) {
  let query = db
    .selectFrom('follow_ups as f')
    .innerJoin('leads as l', 'l.id', 'f.lead_id')
    .where('f.business_id', '=', businessId)
    .where('f.state', '=', 'due')
    .where((eb) => eb.or([eb('f.snoozed_until', 'is', null), eb('f.snoozed_until', '<=', now)]));
  if (userId !== null) query = query.where((eb) => eb.or([eb('l.assigned_user_id', '=', userId), eb('l.assigned_user_id', 'is', null)]));
  const [rows, total] = await Promise.all([
    query
      .select(['f.id', 'f.lead_id', 'f.due_at', 'l.name', 'l.type', 'l.status'])
      .orderBy('f.due_at')
      .orderBy('f.id')
      .limit(limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/**
 * New leads nobody has taken, newest first: active, assigned to no one, `new` or
 * `searching_property` (a lead whose search had content is born `searching_property`, spec §3.1:
 * it is as new), and no person has moved its status yet (no `status` change in lead_history by a
 * console user). `limit` rows, with each one's first note of the service's (the generated one:
 * the message, the listing's reference), and how many there are in all.
 */
export async function listUnassignedNewLeads(db: Executor, businessId: number, limit: number) {
  const query = db
    .selectFrom('leads as l')
    .where('l.business_id', '=', businessId)
    .where('l.assigned_user_id', 'is', null)
    .where('l.status', 'in', ['new', 'searching_property'])
    .where('l.active', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('lead_history as h')
            .select('h.id')
            .whereRef('h.lead_id', '=', 'l.id')
            .where('h.change', '=', 'status')
            .where('h.user_id', 'is not', null),
        ),
      ),
    );
  const [rows, total] = await Promise.all([
    query
      .select(['l.id', 'l.name', 'l.type', 'l.source', 'l.captured_by', 'l.created_at'])
      .select((eb) =>
        eb
          .selectFrom('lead_notes as n')
          .select('n.text')
          .whereRef('n.lead_id', '=', 'l.id')
          .where('n.author_user_id', 'is', null)
          .orderBy('n.id')
          .limit(1)
          .as('first_note'),
      )
      .orderBy('l.created_at', 'desc')
      .orderBy('l.id', 'desc')
      .limit(limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** The business's listing `id`: its title and reference, or undefined. */
export async function findListingNamed(db: Executor, businessId: number, id: number) {
  return db
    .selectFrom('properties')
    .select(['id', 'title', 'external_ref'])
    .where('id', '=', id)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

/**
 * Leads whose requests came again since `since` (CONTRACT §22: inquiries, ingests and portal
 * e-mails kept as interactions), the most recent first, with that request's time and source.
 */
export async function listContactedAgain(db: Executor, businessId: number, since: string, limit: number) {
  return db
    .selectFrom('lead_interactions as i')
    .innerJoin('leads as l', 'l.id', 'i.lead_id')
    .select((eb) => ['l.id', 'l.name', eb.fn.max('i.created_at').as('at'), eb.fn.count<number | string>('i.id').as('times')])
    .where('i.business_id', '=', businessId)
    .where('i.channel', 'in', ['inquiry', 'ingest', 'email'])
    .where('i.created_at', '>=', since)
    .groupBy(['l.id', 'l.name'])
    .orderBy('at', 'desc')
    .limit(limit)
    .execute();
}

/** How many of the business's inbound e-mails wait as not understood (CONTRACT §19). */
export async function countEmailsNotUnderstood(db: Executor, businessId: number): Promise<number> {
  const row = await db
    .selectFrom('inbound_emails')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('business_id', '=', businessId)
    .where('state', '=', 'not_understood')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
