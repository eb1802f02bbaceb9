/**
 * Transactions that survive write contention between connections.
 *
 * In SQLite's WAL mode a transaction that has read and then wants to write fails at once with
 * SQLITE_BUSY (…_SNAPSHOT) when another connection committed in between: waiting cannot help,
 * since its snapshot is stale. Several workers, or a worker beside `inmo serve`, meet this as
 * a matter of course, so the whole transaction is run again from the start (it rolled back,
 * so nothing of it was kept). PostgreSQL at READ COMMITTED raises no such error.
 */
import { sql, type Transaction } from 'kysely';
import type { Db } from './database.ts';
import { isWriteConflict } from './errors.ts';
import type { Database } from './types.ts';

/** Runs of a transaction that keeps meeting SQLITE_BUSY before the error is thrown. */
const MAX_RUNS = 10;

/**
 * Runs `work` in a transaction, again from the start when SQLite reports the database busy.
 * `work` must therefore be safe to run again (it only touches the database through `trx`).
 * @throws the last error when it is not SQLITE_BUSY or the runs are used up.
 */
export async function transact<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (!isWriteConflict(error) || run >= MAX_RUNS) throw error;
      // Short, growing, jittered pauses let the other writer finish.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** Math.min(run, 6)));
    }
  }
}

let savepoints = 0;

/**
 * Runs `work` inside a savepoint of the transaction `trx`: when it throws, what it wrote is
 * rolled back and the transaction goes on (on PostgreSQL a failed statement, such as a unique
 * violation, otherwise aborts the whole transaction). Plain SAVEPOINT statements, the same text
 * on both engines (as group commit's, db/group-commit.ts).
 * @throws what `work` throws, once rolled back to the savepoint.
 */
export async function inSavepoint<T>(trx: Transaction<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const name = `inner_${++savepoints}`;
  await sql.raw(`savepoint ${name}`).execute(trx);
  try {
    const result = await work(trx);
    await sql.raw(`release savepoint ${name}`).execute(trx);
    return result;
  } catch (error) {
    // A transaction that cannot roll back (its connection lost) fails as a whole: the first error says why.
    await sql
      .raw(`rollback to savepoint ${name}`)
      .execute(trx)
      .then(() => sql.raw(`release savepoint ${name}`).execute(trx))
      .catch(() => undefined);
    throw error;
  }
}
