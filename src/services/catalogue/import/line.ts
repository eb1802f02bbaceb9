/**
 * One line of a catalogue import (CONTRACT §9, shared/data/README.md), checked completely and
 * normalized, writing nothing. Pure: it runs on the importing thread or on the reader thread
 * of services/catalogue/import/reader-thread.ts alike.
 */
import { normalizeImportRecord, ImportRuleError, type NormalizedProperty } from '../../../domain/catalogue/property-record.ts';
import { ImportRecord } from '../../../schemas/import-record.ts';
import { validateObject, type ValidationIssue } from '../../../validation/validator.ts';
import { DEFAULT_LIMITS, tooDeepAt } from '../../../limits.ts';
import { importFault, type ImportFault } from '../../../domain/catalogue/import-faults.ts';
import { importOwnerOf } from '../../../domain/catalogue/import-owner.ts';

/**
 * The deepest nesting of arrays and objects a line may have: a request body's (CONTRACT §8), 64.
 * The import format nests 3 deep at most; a line nested deeper is rejected before it is parsed,
 * since checking it would recurse as deep (200,000 levels overflowed the stack and ended the whole
 * import). Fixed, not `INMO_MAX_JSON_DEPTH`: a reader thread has no configuration.
 */
const LINE_MAX_DEPTH = DEFAULT_LIMITS.jsonDepth;

/** A line accepted, normalized; or rejected, with an English reason and its faults in parts (domain/catalogue/import-faults.ts). */
export type Parsed = { ok: true; property: NormalizedProperty } | { ok: false; reason: string; faults: ImportFault[] };

function describeIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.loc.join('.') || 'line'}: ${i.msg}`).join('; ');
}

/**
 * Checks one line completely, writing nothing; a line nested deeper than {@link LINE_MAX_DEPTH}
 * levels is rejected unread (`invalid JSON: nesting deeper than 64 levels`).
 * @param now canonical timestamp for lines without dates.
 */
export function parseImportLine(text: string, now: string): Parsed {
  if (tooDeepAt(text, LINE_MAX_DEPTH) !== null)
    return {
      ok: false,
      reason: `invalid JSON: nesting deeper than ${LINE_MAX_DEPTH} levels`,
      faults: [importFault(null, 'json_too_deep', { max: LINE_MAX_DEPTH })],
    };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `invalid JSON: ${(error as Error).message}`, faults: [importFault(null, 'json_invalid')] };
  }
  return parseImportRecord(value, now);
}

/**
 * Checks one record (a line's JSON value, or a feed property mapped to the import format)
 * completely, writing nothing.
 * @param now canonical timestamp for records without dates.
 */
export function parseImportRecord(value: unknown, now: string): Parsed {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'a line must be a JSON object', faults: [importFault(null, 'not_object')] };
  }
  const issues: ValidationIssue[] = [];
  const record = validateObject(ImportRecord, value as Record<string, unknown>, [], 'json', issues);
  if (issues.length)
    return { ok: false, reason: describeIssues(issues), faults: issues.map((i) => importFault(i.loc.join('.') || null, i.type, i.ctx)) };
  try {
    const property = normalizeImportRecord(record as ImportRecord, now);
    const owner = importOwnerOf((record as ImportRecord).owner);
    return { ok: true, property: owner === undefined ? property : { ...property, owner } };
  } catch (error) {
    if (error instanceof ImportRuleError) return { ok: false, reason: error.message, faults: [error.fault] };
    throw error;
  }
}
