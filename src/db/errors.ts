/** Recognising database errors without knowing the engine at the call site. */

/** Whether an error is a unique-constraint violation (SQLite `SQLITE_CONSTRAINT_UNIQUE`, PostgreSQL `23505`). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * Whether the engine refused a transaction because of other writers, so that running it
 * again from the start can succeed: SQLite's SQLITE_BUSY family (another connection holds,
 * or has just changed, the database), PostgreSQL's deadlock (`40P01`) and serialization
 * failure (`40001`).
 */
export function isWriteConflict(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return code.startsWith('SQLITE_BUSY') || code === '40P01' || code === '40001';
}
