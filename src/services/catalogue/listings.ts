/**
 * The business's listings as the console keeps them (CONTRACT §14): searched and counted,
 * shown with their media and public preview, created, edited, moved between statuses and
 * switched public or featured. A listing saved here is an import line written by the same
 * path as an import (services/catalogue/listing-writes.ts), with the same checks and effects.
 */
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { signalChange } from '../../db/change-watch.ts';
import { lockCatalogue } from '../../db/repositories/businesses.ts';
import * as repo from '../../db/repositories/properties.ts';
import { transact } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { propertyJson, type StoredImage } from '../../domain/catalogue/property-doc.ts';
import {
  ImportRuleError,
  listingRecordOf,
  normalizeImportRecord,
  type ListingRecord,
  type PropertyFields,
} from '../../domain/catalogue/property-record.ts';
import { factFaults, FACT_KEYS, type FactFaultKind, type FactKey } from '../../domain/catalogue/listing-facts.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { ImportRecord } from '../../schemas/import-record.ts';
import { validateObject, type ValidationIssue } from '../../validation/validator.ts';
import { writeListings } from './listing-writes.ts';

export type { ListingSearch } from '../../db/repositories/properties.ts';

/** Listings per page of the console's list. */
export const LISTINGS_PER_PAGE = 50;

/**
 * The statuses a listing may move to in one click (CONTRACT §14: available ⇄ reserved → sold,
 * rented, withdrawn). A sold, rented or withdrawn listing changes status by an edit.
 */
export const STATUS_MOVES: Readonly<Record<string, readonly string[]>> = {
  disponible: ['reservada', 'vendida', 'alquilada', 'retirada'],
  reservada: ['disponible', 'vendida', 'alquilada', 'retirada'],
  vendida: [],
  alquilada: [],
  retirada: [],
};

/**
 * One page of the business's listings, any status, public or not: `{rows, total, byStatus}`,
 * most recently written first; `byStatus` counts every listing of the business by status.
 * @param page 1-based.
 */
export async function listingsPage(db: Db, businessId: number, search: repo.ListingSearch, page: number) {
  const [{ rows, total }, byStatus] = await Promise.all([
    repo.searchListings(db, businessId, search, LISTINGS_PER_PAGE, (page - 1) * LISTINGS_PER_PAGE),
    repo.countListingsByStatus(db, businessId),
  ]);
  return { rows, total, byStatus };
}

/** Why `GET /properties/{id}` shows nothing of a listing: not public, or its status (sold, rented, withdrawn). */
export type HiddenBecause = 'not_public' | 'vendida' | 'alquilada' | 'retirada';

/**
 * A listing of the business in full: its columns, images and videos, its import line (`record`,
 * what the edit form shows), and its public preview: the Property object `GET /properties/{id}`
 * shows, or null with the reason it shows nothing.
 * @returns undefined when the business has no such listing.
 */
export async function listingInFull(db: Db, businessId: number, id: number) {
  const row = await repo.findListing(db, businessId, id);
  if (!row) return undefined;
  const [images, videos] = await Promise.all([repo.loadImages(db, id), repo.loadVideos(db, id)]);
  const { api_doc, business_id: _business, change_seq: _seq, imported_at, id: _id, ...fields } = row;
  const published = row.listed === 1 && api_doc !== null ? (JSON.parse(propertyJson(id, api_doc)) as Record<string, unknown>) : null;
  const hiddenBecause: HiddenBecause | null = published !== null ? null : row.public === 0 ? 'not_public' : (row.status as HiddenBecause);
  return {
    id,
    fields: fields as PropertyFields,
    imported_at,
    images,
    videos,
    record: listingRecordOf(fields as PropertyFields, images, videos),
    published,
    hiddenBecause,
  };
}

/** A field of a listing that breaks a rule of the import format: the field and the fault (Pydantic's type, or `rule`, `taken`). */
export interface ListingFault {
  field: string;
  type: string;
  /** Pydantic's context (`max_length`, `ge`, `expected`…), when the fault has one. */
  ctx?: Record<string, unknown>;
  /** The rule's own words (English), for `rule` and `fact` faults. */
  reason?: string;
  /** For `fact` faults (domain/catalogue/listing-facts.ts): the kind of rule broken. */
  kind?: FactFaultKind;
}

/** A listing that was not saved: every fault, by field. Nothing was written. */
export class ListingInvalidError extends Error {
  constructor(readonly faults: ListingFault[]) {
    super(`the listing breaks ${faults.length} rule(s) of the import format`);
  }
}

/** The field an import rule names (`operation: …`, `lat and lon …`, `titles.es: …`). */
function ruleField(message: string): string {
  const named = /^([a-z_]+(?:\.[a-z_]+)?)[\s:[]/.exec(message);
  return named ? named[1] : 'external_ref';
}

/**
 * The faults of a line's facts (domain/catalogue/listing-facts.ts), every one at once: a fact of
 * the certificate is named by its part (`energy_certificate.rating`), any fact by its key
 * whether it was given in `specs` or at the top level. `kind` and `ctx` say the rule (`ctx`
 * `{min, max}` of a range or a year).
 */
function factFaultsOf(record: Record<string, unknown>, now: string): ListingFault[] {
  const top = Object.fromEntries(FACT_KEYS.map((key) => [key, record[key]]));
  const specs = typeof record.specs === 'object' && record.specs !== null ? (record.specs as Record<string, unknown>) : null;
  return factFaults(top, specs, now).map((f) => ({
    field: f.part ? `${f.fact}.${f.part}` : f.fact,
    type: 'fact',
    kind: f.kind,
    reason: f.reason,
    ...(f.ctx ? { ctx: f.ctx } : {}),
  }));
}

/**
 * Checks a listing as an import line is checked (schemas/import-record.ts, then the rules of
 * domain/catalogue/property-record.ts), writing nothing.
 * @throws ListingInvalidError with every fault.
 */
function checked(record: Record<string, unknown>, now: string) {
  const issues: ValidationIssue[] = [];
  const valid = validateObject(ImportRecord, record, [], 'json', issues);
  const faults: ListingFault[] = issues.map((i) => ({
    field: i.loc.length > 1 && FACT_KEYS.includes(i.loc[0] as FactKey) ? i.loc.slice(0, 2).join('.') : String(i.loc[0] ?? 'external_ref'),
    type: i.type,
    ...(i.ctx ? { ctx: i.ctx } : {}),
  }));
  // The facts' rules, each fact on its own, so that a form shows every fault at once.
  for (const fault of factFaultsOf(record, now)) if (!faults.some((f) => f.field === fault.field)) faults.push(fault);
  if (faults.length > 0) throw new ListingInvalidError(faults);
  try {
    return normalizeImportRecord(valid as unknown as ListingRecord, now);
  } catch (error) {
    if (!(error instanceof ImportRuleError)) throw error;
    throw new ListingInvalidError([{ field: ruleField(error.message), type: 'rule', reason: error.message }]);
  }
}

/**
 * Saves a listing of the business from an import line (an edit form's values over the stored
 * line): a new one when `id` is null, else onto listing `id`, which may change its reference.
 * An empty `external_ref` gives a new listing `inmo-<id>` and keeps an edited one's. The write
 * is an import's (services/catalogue/listing-writes.ts): feed, caches, re-matching, `property.changed`.
 * An edit whose line has no `images` (or `videos`) keeps the listing's as stored when it is
 * written (read in the write's transaction, see {@link editListing}): an edit form saved while
 * a photo is uploaded loses neither.
 * @param record the line; `created_at` is kept from the stored listing, `updated_at` is now.
 * @returns the listing's id, and whether it was created.
 * @param actor who saved it: an edit that withdraws the listing (`retirada`) is recorded in the
 *   audit trail (CONTRACT §18), by this actor; null for an edit that keeps the status (photos).
 * @throws InmoError PROPERTY_NOT_FOUND when `id` is not a listing of the business;
 *   ListingInvalidError when a rule is broken or the reference is another listing's (`taken`).
 */
export async function saveListing(
  db: Db,
  businessId: number,
  id: number | null,
  record: Record<string, unknown>,
  actor: AuditActor | null,
) {
  if (id !== null) {
    await editListing(
      db,
      businessId,
      id,
      async (stored) => ({
        record: { ...record, images: record.images ?? stored.record.images, videos: record.videos ?? stored.record.videos },
        value: undefined,
      }),
      actor,
    );
    return { id, created: false };
  }
  const now = nowRfc3339();
  const given = typeof record.external_ref === 'string' ? record.external_ref.trim() : '';
  // A new listing without a reference is written under a provisional one, renamed in the same transaction.
  const ref = given || `inmo-new-${randomUUID()}`;
  const property = checked({ ...record, external_ref: ref, created_at: now, updated_at: now }, now);
  try {
    const saved = await db.transaction().execute(async (trx) => {
      const written = await writeListings(trx, businessId, [{ property }], now);
      const created = written.created.get(ref);
      // A reference another listing already has: a create must not become its edit.
      if (created === undefined) throw taken();
      if (!given) await repo.setExternalRef(trx, created, `inmo-${created}`);
      return { id: created, created: true };
    });
    signalChange(db);
    return saved;
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

/** The fault of a reference that another listing of the business already has. */
const taken = () => new ListingInvalidError([{ field: 'external_ref', type: 'taken' }]);

/** A listing as {@link editListing} reads it inside its transaction: its import line, and its stored images with their ids (by id). */
export interface ListingNow {
  record: ListingRecord;
  images: StoredImage[];
}

/**
 * Changes listing `id` of the business from what is stored now: reads it, lets `edit` decide
 * the new import line, and saves it as {@link saveListing} does, all in one transaction under
 * the lock of the business's catalogue, so that two edits at once (two photo uploads, a form
 * and an upload) both count. The transaction may run again from the start (SQLite, another
 * process writing), so `edit` must touch the database only through `trx`. An image whose URL
 * the new line still names keeps its id. An empty `external_ref` keeps the listing's.
 * @param edit returns the new line and what editListing returns; it may write more through
 *   `trx` (in the same transaction) and throw to write nothing.
 * @param actor who edits: a withdrawal (`retirada`) is recorded in the audit trail (CONTRACT §18).
 * @throws InmoError PROPERTY_NOT_FOUND when `id` is not a listing of the business;
 *   ListingInvalidError when the new line breaks a rule or its reference is another listing's
 *   (`taken`); whatever `edit` throws.
 */
export async function editListing<T>(
  db: Db,
  businessId: number,
  id: number,
  edit: (now: ListingNow, trx: Transaction<Database>) => Promise<{ record: Record<string, unknown>; value: T }>,
  actor: AuditActor | null = null,
): Promise<T> {
  try {
    const value = await transact(db, async (trx) => {
      await lockCatalogue(trx, businessId);
      const row = await repo.findListing(trx, businessId, id);
      if (!row) throw new InmoError('PROPERTY_NOT_FOUND');
      const images = await repo.loadImages(trx, id);
      const videos = await repo.loadVideos(trx, id);
      const { api_doc: _doc, business_id: _business, change_seq: _seq, imported_at: _at, id: _id, ...fields } = row;
      const next = await edit({ record: listingRecordOf(fields as PropertyFields, images, videos), images }, trx);
      const now = nowRfc3339();
      const given = typeof next.record.external_ref === 'string' ? next.record.external_ref.trim() : '';
      const property = checked(
        { ...next.record, external_ref: given || row.external_ref, created_at: row.created_at, updated_at: now },
        now,
      );
      await writeListings(trx, businessId, [{ property, id }], now);
      if (actor !== null && row.status !== 'retirada' && property.fields.status === 'retirada') {
        await recordAudit(trx, businessId, actor, 'property.withdraw', id, now);
      }
      return next.value;
    });
    signalChange(db);
    return value;
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

/**
 * Moves a listing to another status in one step (see {@link STATUS_MOVES}), saved as an edit
 * of the listing as it is when written.
 * @throws InmoError PROPERTY_NOT_FOUND, or LISTING_STATUS_MOVE when the move is not one click.
 */
export async function moveListing(db: Db, businessId: number, id: number, status: string, actor: AuditActor): Promise<void> {
  await editListing(
    db,
    businessId,
    id,
    async ({ record }) => {
      const from = record.status ?? '';
      if (!(STATUS_MOVES[from] ?? []).includes(status)) throw new InmoError('LISTING_STATUS_MOVE', { from, to: status });
      return { record: { ...record, status }, value: undefined };
    },
    actor,
  );
}

/**
 * Switches a listing public or featured, saved as an edit of the listing as it is when written.
 * @throws InmoError PROPERTY_NOT_FOUND.
 */
export async function switchListing(
  db: Db,
  businessId: number,
  id: number,
  flag: 'public' | 'is_featured',
  on: boolean,
  actor: AuditActor,
): Promise<void> {
  await editListing(db, businessId, id, async ({ record }) => ({ record: { ...record, [flag]: on }, value: undefined }), actor);
}
