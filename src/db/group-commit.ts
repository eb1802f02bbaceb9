/**
 * Group commit: units of write work that arrive together are run in one transaction, each
 * inside its own savepoint (SQLite), or each in its own concurrent transaction (PostgreSQL).
 *
 * Why: a commit writes every page the transaction touched (table and index pages of the
 * lead, its notes and its jobs), and with one transaction per lead that write, not the
 * inserts, is most of the cost. Units in a batch run one after another and each sees the
 * ones before it, so every unit gets exactly the result it would get alone and in that
 * order; a unit that throws is rolled back to its savepoint and leaves no trace; nothing
 * is answered before the commit, so an answered write is a committed write.
 *
 * That is SQLite's answer, where one connection writes at a time. On PostgreSQL the server
 * already shares WAL flushes among transactions committing together, and a batch on one
 * connection would make each unit wait for the round trips of all before it: there each unit
 * runs at once in its own transaction from the pool (run again on a deadlock).
 */
import { CompiledQuery, type Transaction } from 'kysely';
import { commitsConcurrently, type Db } from './database.ts';
import { isWriteConflict } from './errors.ts';
import { transact } from './transaction.ts';
import type { Database } from './types.ts';

type Unit<T> = (trx: Transaction<Database>) => Promise<T>;
interface Pending {
  work: Unit<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Most units in one transaction: bounds how long other queries wait for the connection. */
const MAX_BATCH = 64;
/** A statement that writes nothing but takes SQLite's write lock, waiting for it (busy_timeout). */
const TAKE_WRITE_LOCK = CompiledQuery.raw('update businesses set id = id where 0');
/** Tries of a batch the engine refused as busy (another process writing). */
const MAX_BUSY_ATTEMPTS = 12;

export class GroupCommit {
  private queue: Pending[] = [];
  private draining: Promise<void> | null = null;
  /** Whether transactions commit concurrently (PostgreSQL), each unit in its own; false on SQLite. */
  readonly concurrent: boolean;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly db: Db) {
    this.concurrent = commitsConcurrently(db);
  }

  /** Runs `work` in a shared transaction. @returns its result once committed; rejects with its error (nothing of it kept). */
  run<T>(work: Unit<T>): Promise<T> {
    if (this.concurrent) {
      const unit = transact(this.db, work);
      this.inFlight.add(unit);
      void unit.then(
        () => this.inFlight.delete(unit),
        () => this.inFlight.delete(unit),
      );
      return unit;
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // Let the requests already read by this turn of the event loop join the batch.
      this.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
    });
  }

  /**
   * Where transactions commit concurrently (PostgreSQL): runs `work` on the handle itself, for
   * writes that are one statement (db/repositories/new-lead-statement.ts), tracked like the units so
   * that {@link settled} waits for it. On SQLite, null: the caller hands in a unit instead.
   */
  alone<T>(work: (db: Db) => Promise<T>): Promise<T> | null {
    if (!this.concurrent) return null;
    const unit = work(this.db);
    this.inFlight.add(unit);
    void unit.then(
      () => this.inFlight.delete(unit),
      () => this.inFlight.delete(unit),
    );
    return unit;
  }

  /** Resolves once every unit handed in so far has been committed or rejected (before closing the database). */
  async settled(): Promise<void> {
    await this.draining;
    await Promise.allSettled([...this.inFlight]);
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) await this.flush(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.draining = null;
    }
  }

  /**
   * Runs a batch. When the engine refuses it because another process was writing (e.g. a
   * stale read snapshot while an import commits), the batch runs again from the start, a few
   * times: its units have left nothing behind.
   */
  private async flush(batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(batch);
      if (result.committed) {
        result.outcomes.forEach((o, i) => (o.ok ? batch[i].resolve(o.value) : batch[i].reject(o.error)));
        return;
      }
      if (!isWriteConflict(result.error) || attempt >= MAX_BUSY_ATTEMPTS) {
        for (const unit of batch) unit.reject(result.error);
        return;
      }
      // Short, growing, jittered pauses let the other writer finish.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** Math.min(attempt, 6)));
    }
  }

  private async attempt(batch: Pending[]): Promise<{ committed: true; outcomes: Outcome[] } | { committed: false; error: unknown }> {
    const outcomes: Outcome[] = [];
    let trx: Awaited<ReturnType<ReturnType<Db['startTransaction']>['execute']>>;
    try {
      trx = await this.db.startTransaction().execute();
    } catch (error) {
      return { committed: false, error };
    }
    try {
      // The write lock first, before any unit reads: a transaction that has read cannot wait for
      // the lock (SQLite refuses it at once, SQLITE_BUSY or …_SNAPSHOT once another process has
      // committed), and under load every try of a batch of 64 was refused so. A first statement
      // that writes (here, nothing) waits for the lock as long as busy_timeout instead.
      await trx.executeQuery(TAKE_WRITE_LOCK);
      for (const [i, unit] of batch.entries()) {
        // Plain SAVEPOINT statements (the same text on SQLite and PostgreSQL): Kysely's savepoint
        // builders create a transaction object per call, a cost paid here for every lead.
        const name = `unit_${i}`;
        await trx.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
        try {
          outcomes.push({ ok: true, value: await unit.work(trx) });
          await trx.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
        } catch (error) {
          // A unit refused because the engine is busy fails the whole try, to be run again.
          if (isWriteConflict(error)) throw error;
          await trx.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`));
          await trx.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
          outcomes.push({ ok: false, error });
        }
      }
      await trx.commit().execute();
      return { committed: true, outcomes };
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      return { committed: false, error };
    }
  }
}
