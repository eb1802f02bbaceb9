/**
 * 0036: users' display names (issue 47, CONTRACT §23: "Users have a display name shown instead of
 * their e-mail").
 *
 * - users.display_name: how the console names the user to their colleagues (1–80 characters,
 *   services/access/console-users.ts); null until someone gives one, and the e-mail is shown.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column display_name text`.execute(db);
}
