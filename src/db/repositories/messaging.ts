/** Messaging channels and the one template message of each lead. SQL only. */
import type { Executor } from '../database.ts';
import type { Insertable, Selectable } from 'kysely';
import { runCompiledOnce } from '../compiled-once.ts';
import type { ChannelTable, LeadMessageTable } from '../types.ts';

export type ChannelRow = Selectable<ChannelTable>;
export type LeadMessageRow = Selectable<LeadMessageTable>;

/** Connects (or reconnects, replacing the settings of) the business's channel. */
export async function upsertChannel(db: Executor, channel: Insertable<ChannelTable>): Promise<void> {
  const { business_id: _business, ...settings } = channel;
  await db
    .insertInto('channels')
    .values(channel)
    .onConflict((oc) => oc.column('business_id').doUpdateSet(settings))
    .execute();
}

/** The business's channel. (Compiled once: it runs for every new lead.) */
export async function findChannel(db: Executor, businessId: number): Promise<ChannelRow | undefined> {
  const rows = await runCompiledOnce<ChannelRow>(db, 'findChannel', [businessId], ([business]) =>
    db
      .selectFrom('channels')
      .selectAll()
      .where('business_id', '=', business as unknown as number),
  );
  return rows[0];
}

export async function findLeadMessage(db: Executor, leadId: number): Promise<LeadMessageRow | undefined> {
  return db.selectFrom('lead_messages').selectAll().where('lead_id', '=', leadId).executeTakeFirst();
}

/** Records a lead's message unless it has one: the primary key (the lead) makes a second one impossible. */
export async function insertLeadMessage(db: Executor, message: Insertable<LeadMessageTable>): Promise<void> {
  await db
    .insertInto('lead_messages')
    .values(message)
    .onConflict((oc) => oc.column('lead_id').doNothing())
    .execute();
}

/** Moves a lead's message to `state`, only from the state it is expected to be in. @returns whether it moved. */
export async function moveLeadMessage(
  db: Executor,
  leadId: number,
  from: string,
  to: { state: string; provider_message_id?: string | null; last_error?: string | null; updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('lead_messages').set(to).where('lead_id', '=', leadId).where('state', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
