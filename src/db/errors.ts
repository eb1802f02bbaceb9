/** Recognising database errors without knowing the engine at the call site. */

/** Whether an error is a unique-constraint violation (SQLite `SQLITE_CONSTRAINT_UNIQUE`, PostgreSQL `23505`). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * Whether the error is PostgreSQL's unique violation of an Idempotency-Key's row, met by a
 * request that wrote its record without claiming first (db/repositories/idempotency.ts
 * `insertDone`), here or as the `cause` of the error that wraps it.
 */
export function isKeyTaken(error: unknown): boolean {
  for (let e = error; e !== null && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown };
    if (code === '23505' && constraint === 'idempotency_keys_pkey') return true;
  }
  return false;
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
