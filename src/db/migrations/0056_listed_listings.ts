/**
 * 0056: the listings an assistant's message listed (issue 57 item 9; CONTRACT §10, §20), so
 * that "el primero", "the last one" or "ese" in the lead's next message is read against them
 * (domain/messaging/listing-pointer.ts, services/messaging/assistant-viewings.ts).
 *
 * - messages.listings: JSON array of the property ids an outbound assistant message listed, in
 *   the order shown (the first is "el primero"): its matches, or those its question "¿cuál
 *   quieres visitar?" asks among; null for every other message (existing ones included: a
 *   pointer to an answer sent before this migration is not read).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table messages add column listings text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table messages drop column listings`.execute(db);
}
