/**
 * Settings of the PostgreSQL pool, apart from db/database.ts so that reading the settings
 * (config.ts, and so every CLI command at start) loads no database driver.
 */
/** Settings of the PostgreSQL pool (config.ts reads them from the environment). */
export interface PoolSettings {
  /** Most connections this process opens. */
  poolSize: number;
  /** Longest a statement may run before PostgreSQL cancels it, ms (0 = no limit). */
  statementTimeoutMs: number;
}

export const DEFAULT_POOL_SETTINGS: PoolSettings = { poolSize: 10, statementTimeoutMs: 30_000 };
