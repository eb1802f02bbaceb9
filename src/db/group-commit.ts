/**
 * Group commit: units of write work that arrive together are run in one transaction, each
 * inside its own savepoint.
 *
 * Why: a commit writes every page the transaction touched (table and index pages of the
 * lead, its notes and its jobs), and with one transaction per lead that write, not the
 * inserts, is most of the cost. Units in a batch run one after another and each sees the
 * ones before it, so every unit gets exactly the result it would get alone and in that
 * order; a unit that throws is rolled back to its savepoint and leaves no trace; nothing
 * is answered before the commit, so an answered write is a committed write.
 */
import { CompiledQuery, type Transaction } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './types.ts';

type Unit<T> = (trx: Transaction<Database>) => Promise<T>;
interface Pending {
  work: Unit<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Most units in one transaction: bounds how long other queries wait for the connection. */
const MAX_BATCH = 64;

export class GroupCommit {
  private queue: Pending[] = [];
  private draining = false;

  constructor(private readonly db: Db) {}

  /** Runs `work` in a shared transaction. @returns its result once committed; rejects with its error (nothing of it kept). */
  run<T>(work: Unit<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // Let the requests already read by this turn of the event loop join the batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) await this.flush(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.draining = false;
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const trx = await this.db.startTransaction().execute();
    try {
      for (const [i, unit] of batch.entries()) {
        // Plain SAVEPOINT statements (the same text on SQLite and PostgreSQL): Kysely's savepoint
        // builders create a transaction object per call, a cost paid here for every lead.
        const name = `unit_${i}`;
        await trx.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
        try {
          outcomes.push({ ok: true, value: await unit.work(trx) });
          await trx.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
        } catch (error) {
          await trx.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`));
          await trx.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
          outcomes.push({ ok: false, error });
        }
      }
      await trx.commit().execute();
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      for (const unit of batch) unit.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i].resolve(outcome.value) : batch[i].reject(outcome.error)));
  }
}
