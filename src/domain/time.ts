/**
 * Timestamps: RFC 3339 with an explicit offset (CONTRACT §1), stored and printed in one
 * canonical UTC form, `2026-03-01T09:30:00.000+00:00`, which also sorts correctly as text.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Canonical form of an instant. */
export function toRfc3339(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/** The current instant in canonical form. */
export function nowRfc3339(): string {
  return toRfc3339(new Date());
}

/**
 * Parses an RFC 3339 timestamp that carries an offset (`Z` or `±hh:mm`).
 * @returns the canonical UTC form, or null when the text is not such a timestamp.
 */
export function parseRfc3339(text: string): string | null {
  if (!RFC3339.test(text)) return null;
  const ms = Date.parse(text.replace(' ', 'T'));
  if (Number.isNaN(ms)) return null;
  return toRfc3339(new Date(ms));
}
