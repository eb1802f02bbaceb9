/**
 * A day to show on "Hoy" (issue 47), for the console's tests: a listing; leads of an agent
 * (Lucía, with an overdue follow-up, a viewing today and a request that came again), of nobody
 * (Mario, new, a follow-up due today, a conversation waiting with two messages, a viewing tomorrow) and of the owner
 * (Olga, a follow-up due today and a viewing today). Times are today's in Europe/Madrid.
 */
import { DateTime } from 'luxon';
import type { Db } from '../../src/db/database.ts';
import { importRecords, listing, propertyId } from './db.ts';

export const ZONE = 'Europe/Madrid';
const iso = (dt: DateTime) => dt.toUTC().toISO()!;

export async function seedDay(db: Db, businessId: number, agentId: number, ownerId: number) {
  await importRecords(db, businessId, [listing('PISO-1', { title: 'Piso en Delicias' })]);
  const property = await propertyId(db, 'PISO-1');
  const now = DateTime.now().setZone(ZONE);
  const dayStart = now.startOf('day');
  const at = iso(now);
  const lead = async (name: string, assigned: number | null, phone: string) =>
    (
      await db
        .insertInto('leads')
        .values({
          business_id: businessId,
          assigned_user_id: assigned,
          name,
          type: 'demandante',
          status: 'new',
          active: 1,
          rating: 3,
          phone_number_1: phone,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const lucia = await lead('Lucía Beatriz', agentId, '+34600000001');
  const mario = await lead('Mario Sinagente', null, '+34600000002');
  const olga = await lead('Olga Deana', ownerId, '+34600000003');
  const followUp = async (leadId: number, due: DateTime) =>
    (
      await db
        .insertInto('follow_ups')
        .values({
          business_id: businessId,
          lead_id: leadId,
          due_at: iso(due),
          every_days: 7,
          state: 'due',
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const overdue = await followUp(lucia, dayStart.minus({ days: 3 }).plus({ hours: 10 }));
  await followUp(mario, dayStart.plus({ minutes: 1 }));
  await followUp(olga, dayStart.plus({ minutes: 2 }));
  const viewing = async (leadId: number, userId: number, start: DateTime) =>
    (
      await db
        .insertInto('viewings')
        .values({
          business_id: businessId,
          lead_id: leadId,
          property_id: property,
          user_id: userId,
          starts_at: iso(start),
          ends_at: iso(start.plus({ minutes: 30 })),
          status: 'scheduled',
          source: 'console',
          feedback: null,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const beasViewing = await viewing(lucia, agentId, dayStart.plus({ minutes: 1 }));
  await viewing(olga, ownerId, dayStart.plus({ minutes: 3 }));
  await viewing(mario, agentId, dayStart.plus({ days: 1, hours: 10 }));
  await db
    .insertInto('conversations')
    .values({
      lead_id: mario,
      business_id: businessId,
      state: 'waiting_for_agent',
      window_open_until: null,
      last_message_at: at,
      updated_at: at,
      agent_seen_message_id: null,
    })
    .execute();
  // What Mario wrote, and the assistant's answer that sent him to an agent.
  const message = (direction: 'in' | 'out', body: string, author: string | null, state: string) => ({
    business_id: businessId,
    lead_id: mario,
    direction,
    kind: 'text',
    author,
    body,
    template: null,
    language: null,
    recipient: direction === 'out' ? '+34600000002' : null,
    state,
    provider_message_id: null,
    reply_to: null,
    last_error: null,
    sent_at: direction === 'out' ? at : null,
    created_at: at,
    updated_at: at,
  });
  await db
    .insertInto('messages')
    .values([
      message('in', '¿Sigue disponible el piso de Delicias?', null, 'received'),
      message('out', 'Te paso con una agente ahora mismo.', 'assistant', 'delivered'),
    ])
    .execute();
  await db
    .insertInto('lead_interactions')
    .values({ business_id: businessId, lead_id: lucia, channel: 'inquiry', source: 'web', note: 'Otra vez', created_at: at })
    .execute();

  return { now, lucia, mario, olga, overdue, beasViewing };
}
