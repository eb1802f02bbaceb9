/** Recognising database errors without knowing the engine at the call site. */

/** Whether an error is a unique-constraint violation (SQLite `SQLITE_CONSTRAINT_UNIQUE`, PostgreSQL `23505`). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** Whether an error is SQLite's SQLITE_BUSY family: another connection holds, or has just changed, the database. */
export function isBusy(error: unknown): boolean {
  return /^SQLITE_BUSY/.test(String((error as { code?: unknown } | null)?.code ?? ''));
}
