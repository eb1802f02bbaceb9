/**
 * ChangeWatch: one number per process, its *stamp*, that changes whenever anything the request
 * path caches may have changed: an API key's rights (revocation, expiry, scopes), a catalogue
 * (its version), a channel (issue 14; the signals are migration 0005's), a webhook endpoint's
 * events or state (0024).
 *
 * A cache keeps, with each entry, the stamp taken *before* it read the database, and trusts
 * the entry only while the stamp is the same: a change that lands while the entry is being
 * read makes it stale at once rather than hiding behind it.
 *
 * How a change is seen:
 * - **in this process**: the service that made it calls {@link signalChange} after its commit;
 *   the next request sees it;
 * - **by another process, on SQLite**: `PRAGMA data_version` (a counter of commits by other
 *   connections, read without touching a table) is checked by `stamp()` at most every
 *   {@link SQLITE_CHECK_MS} (the check costs a few µs, a tenth of a cached request); when it
 *   moved, `sum(catalogue_version + config_version)` over the businesses tells whether the
 *   commit was one that matters. Seen within SQLITE_CHECK_MS;
 * - **by another process, on PostgreSQL**: `LISTEN inmo_changes`, notified by a trigger in the
 *   changing transaction (so at its commit), on a connection of its own; and, as the fallback
 *   when that connection drops, the same sum polled every {@link POLL_INTERVAL_MS}. Seen within
 *   milliseconds, and within 1 s (POLL_INTERVAL_MS plus one query) whatever happens.
 */
import type Pg from 'pg';
import { sql } from 'kysely';
import type SQLite from 'better-sqlite3';
import { connectionOf, loadPg, type Db } from './database.ts';

/** Longest time a change committed by another process goes unseen on SQLite, ms. */
export const SQLITE_CHECK_MS = 100;
/** How often PostgreSQL's fallback check runs, ms. */
export const POLL_INTERVAL_MS = 500;
/** Wait before the notification connection is opened again after it dropped, ms. */
const RECONNECT_MS = 1000;
/** The channel of migration 0005's trigger. */
const CHANNEL = 'inmo_changes';

const watches = new WeakMap<Db, Set<ChangeWatch>>();

/**
 * Tells this process's watches of `db` that the caller has just committed a change to keys,
 * a catalogue or a channel: caches drop what they hold before the next request.
 */
export function signalChange(db: Db): void {
  for (const watch of watches.get(db) ?? []) watch.bump();
}

/** Grows with every change a cache holds (migration 0005): one number, read by both engines. */
const CHANGE_SUM = 'select coalesce(sum(catalogue_version + config_version), 0) as n from businesses';

async function changeSum(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`${sql.raw(CHANGE_SUM)}`.execute(db);
  return Number(rows[0].n);
}

/** The change stamp of one database in this process. Start nothing until the first `stamp()`. */
export class ChangeWatch {
  private value = 0;
  private started = false;
  private closed = false;
  // SQLite
  private dataVersion: SQLite.Statement | null = null;
  private sumStatement: SQLite.Statement | null = null;
  private leadVersionStatement: SQLite.Statement | null = null;
  private lastDataVersion = -1;
  /** When data_version was last read, ms since the epoch. */
  private lastCheck = -Infinity;
  // Both engines: the last sum seen.
  private lastSum = -1;
  // PostgreSQL
  private listener: Pg.Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private schema: string | null = null;

  constructor(private readonly db: Db) {
    let set = watches.get(db);
    if (!set) watches.set(db, (set = new Set()));
    set.add(this);
  }

  /**
   * The business's lead version (migration 0020): it changes whenever one of the business's
   * leads is written, by any connection, and is read from the database on each call (an indexed
   * read of one row, synchronous). Null when it cannot be known now, and nothing may be cached
   * by it: on PostgreSQL (which keeps no such version), and while this process's connection is
   * inside a transaction (whose writes may still roll back).
   */
  leadVersion(businessId: number): number | null {
    const connection = connectionOf(this.db);
    if (connection.engine !== 'sqlite' || connection.sqlite.inTransaction) return null;
    this.leadVersionStatement ??= connection.sqlite.prepare('select lead_version from businesses where id = ?').pluck();
    const version = this.leadVersionStatement.get(businessId) as number | undefined;
    return version ?? null;
  }

  /** Marks everything cached under the current stamp as stale. */
  bump(): void {
    this.value++;
  }

  /**
   * The current stamp: equal stamps mean nothing cached has changed in between (on
   * PostgreSQL, as far as this process has been told: within 1 s).
   */
  stamp(): number {
    const connection = connectionOf(this.db);
    if (connection.engine === 'sqlite') {
      if (!this.dataVersion) {
        this.dataVersion = connection.sqlite.prepare('pragma data_version').pluck();
        this.sumStatement = connection.sqlite.prepare(CHANGE_SUM).pluck();
      }
      const now = Date.now();
      if (now - this.lastCheck < SQLITE_CHECK_MS) return this.value;
      this.lastCheck = now;
      const version = this.dataVersion.get() as number;
      if (version !== this.lastDataVersion) {
        this.lastDataVersion = version;
        const sum = this.sumStatement!.get() as number;
        if (sum !== this.lastSum) {
          this.lastSum = sum;
          this.value++;
        }
      }
    } else if (!this.started) {
      this.started = true;
      this.startPostgres(connection.config, connection.schema);
    }
    return this.value;
  }

  private startPostgres(config: Pg.ClientConfig, schema: string | null): void {
    this.schema = schema;
    this.pollTimer = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
    this.pollTimer.unref();
    void this.poll();
    void this.listen(config);
  }

  private async poll(): Promise<void> {
    try {
      const sum = await changeSum(this.db);
      if (sum !== this.lastSum) {
        // The first reading only sets the baseline: nothing was cached before `stamp()` started this.
        if (this.lastSum !== -1) this.value++;
        this.lastSum = sum;
      }
    } catch {
      // The pool is down or closing: the next poll tries again.
    }
  }

  private async listen(config: Pg.ClientConfig): Promise<void> {
    if (this.closed) return;
    const client = new (loadPg().Client)(config);
    let dropped = false;
    const retry = () => {
      // 'error' and 'end' may both come for one drop: one reconnection.
      if (dropped) return;
      dropped = true;
      if (this.listener === client) this.listener = null;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      // Whatever was notified while no one listened is lost: drop everything cached.
      this.value++;
      this.reconnectTimer = setTimeout(() => void this.listen(config), RECONNECT_MS);
      this.reconnectTimer.unref();
    };
    client.on('error', retry);
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload === this.schema) this.value++;
    });
    try {
      await client.connect();
      if (this.schema === null) this.schema = (await client.query<{ s: string }>('select current_schema() as s')).rows[0].s;
      await client.query(`listen ${CHANNEL}`);
      if (this.closed) return void (await client.end());
      this.listener = client;
      // Anything cached before this connection listened may have missed its notification.
      this.value++;
      client.once('end', retry);
    } catch {
      retry();
    }
  }

  /** The process id of the PostgreSQL session listening for changes (tests cut it off); null when none. */
  listenerPid(): number | null {
    return (this.listener as unknown as { processID?: number } | null)?.processID ?? null;
  }

  /** Stops listening and polling. */
  async close(): Promise<void> {
    this.closed = true;
    watches.get(this.db)?.delete(this);
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = null;
    if (listener) await listener.end().catch(() => undefined);
  }
}
