/**
 * The business's listings as the console keeps them (CONTRACT §14, §23): searched, sorted and
 * counted, shown with their media and public preview, created, edited, moved between statuses
 * (sold and rented with the price and day of the sale, migration 0038), and switched public or
 * featured, one at a time or several at once. A listing saved here is an import line written by
 * the same path as an import (services/catalogue/listing-writes.ts), with the same checks and effects.
 */
import { recordAudit, recordAudits, type AuditActor } from '../access/audit.ts';
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
import { checkClosing, dayIn, isClosingStatus, type Closing, type ClosingFault } from '../../domain/catalogue/closing.ts';
import { businessClock } from '../viewings/clock.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { ImportRecord } from '../../schemas/import-record.ts';
import { validateObject, type ValidationIssue } from '../../validation/validator.ts';
import { writeListings } from './listing-writes.ts';
import type { ImportFault } from '../../domain/catalogue/import-faults.ts';

export type { ListingSearch, ListingSort, ListingSortKey } from '../../db/repositories/properties.ts';
export { LISTING_SORT_KEYS } from '../../db/repositories/properties.ts';

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
  const photos = await repo.firstPhotoUrls(
    db,
    rows.map((r) => r.id),
  );
  return { rows: rows.map((r) => ({ ...r, photo: photos.get(r.id) ?? null })), total, byStatus };
}

/**
 * The statuses whose listings can be published, hidden, featured or unfeatured from the list:
 * a sold, rented or withdrawn listing shows on no website, so switching it means nothing until
 * an edit makes it available again (CONTRACT §23).
 */
export const SWITCHABLE_STATUSES: readonly string[] = ['disponible', 'reservada'];

/** What can be done to several listings at once (CONTRACT §23). */
export const BULK_ACTIONS = ['publish', 'unpublish', 'feature', 'unfeature', 'withdraw'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** Most listings changed by one bulk action: a page of the list. */
export const BULK_MAX = LISTINGS_PER_PAGE;

/** A listing an action was refused for: why (`status`: its status allows it not; `invalid`: it breaks a rule of the import format now, so it must be edited first). */
export interface RefusedListing {
  id: number;
  external_ref: string;
  title: string | null;
  status: string;
  reason: 'status' | 'invalid';
}

/** An action refused for some listings: nothing was changed, not even for the others. */
export class ListingActionRefusedError extends Error {
  constructor(
    readonly action: BulkAction,
    readonly refused: RefusedListing[],
  ) {
    super(`${action} cannot apply to ${refused.length} of the listings: nothing was changed`);
  }
}

/** A sale or rental that was not recorded: every fault. Nothing was written. */
export class ClosingInvalidError extends Error {
  constructor(readonly faults: ClosingFault[]) {
    super(`the sale or rental breaks ${faults.length} rule(s)`);
  }
}

/** Whether `action` can apply to a listing of `status` (see {@link SWITCHABLE_STATUSES}; a withdrawal is a one-click move, or none for one withdrawn already). */
function applies(action: BulkAction, status: string): boolean {
  if (action === 'withdraw') return status === 'retirada' || (STATUS_MOVES[status] ?? []).includes('retirada');
  return SWITCHABLE_STATUSES.includes(status);
}

/** The import line after `action`, or null when the listing is that way already. */
function actedOn(action: BulkAction, record: ListingRecord): ListingRecord | null {
  const changed = (key: 'public' | 'is_featured' | 'status', value: boolean | string) =>
    record[key] === value ? null : { ...record, [key]: value };
  switch (action) {
    case 'publish':
      return changed('public', true);
    case 'unpublish':
      return changed('public', false);
    case 'feature':
      return changed('is_featured', true);
    case 'unfeature':
      return changed('is_featured', false);
    case 'withdraw':
      return changed('status', 'retirada');
  }
}

/** Why `GET /properties/{id}` shows nothing of a listing: not public, or its status (sold, rented, withdrawn). */
export type HiddenBecause = 'not_public' | 'vendida' | 'alquilada' | 'retirada';

/**
 * A listing of the business in full: its columns, images and videos, its import line (`record`,
 * what the edit form shows), its public preview: the Property object `GET /properties/{id}`
 * shows, or null with the reason it shows nothing; and its sale or rental as recorded (`closing`:
 * price €, day `YYYY-MM-DD`), or null.
 * @returns undefined when the business has no such listing.
 */
export async function listingInFull(db: Db, businessId: number, id: number) {
  const row = await repo.findListing(db, businessId, id);
  if (!row) return undefined;
  const [images, videos] = await Promise.all([repo.loadImages(db, id), repo.loadVideos(db, id)]);
  const { api_doc, business_id: _business, change_seq: _seq, imported_at, id: _id, closed_price, closed_on, ...fields } = row;
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
    /** The sale or rental recorded when it was marked sold or rented (migration 0038), or null. */
    closing: closed_price !== null && closed_on !== null ? { price: closed_price, on: closed_on } : null,
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
  /** For `rule` faults: the rule of the import format broken (domain/catalogue/import-faults.ts). */
  rule?: ImportFault['rule'];
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
    throw new ListingInvalidError([{ field: ruleField(error.message), type: 'rule', reason: error.message, rule: error.fault.rule }]);
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
 * @param edit returns the new line and what editListing returns, and the sale or rental to
 *   record with it (migration 0038); it may write more through `trx` (in the same
 *   transaction) and throw to write nothing.
 * @param actor who edits: a withdrawal (`retirada`) is recorded in the audit trail (CONTRACT §18).
 * @throws InmoError PROPERTY_NOT_FOUND when `id` is not a listing of the business;
 *   ListingInvalidError when the new line breaks a rule or its reference is another listing's
 *   (`taken`); whatever `edit` throws.
 */
export async function editListing<T>(
  db: Db,
  businessId: number,
  id: number,
  edit: (now: ListingNow, trx: Transaction<Database>) => Promise<{ record: Record<string, unknown>; value: T; closing?: Closing }>,
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
      // A status change clears a recorded sale or rental (repositories/properties.ts); a new one is recorded here.
      if (next.closing) await repo.setClosing(trx, id, next.closing);
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
 * of the listing as it is when written. A move to sold or rented records the price and the
 * day typed (domain/catalogue/closing.ts), checked against the business's day at `now`.
 * @param typed for `vendida` and `alquilada`: the price (a number, text that is not one, or
 *   null) and the day (`YYYY-MM-DD`) as typed; ignored for other moves.
 * @param now epoch ms (the clock by default).
 * @throws InmoError PROPERTY_NOT_FOUND, or LISTING_STATUS_MOVE when the move is not one click;
 *   ClosingInvalidError when the price or the day of a sale or rental is missing or wrong.
 */
export async function moveListing(
  db: Db,
  businessId: number,
  id: number,
  status: string,
  actor: AuditActor,
  typed: { price: number | string | null; on: string } | null = null,
  now: number = Date.now(),
): Promise<void> {
  const today = isClosingStatus(status) ? dayIn((await businessClock(db, businessId)).zone, now) : '';
  await editListing(
    db,
    businessId,
    id,
    async ({ record }) => {
      const from = record.status ?? '';
      if (!(STATUS_MOVES[from] ?? []).includes(status)) throw new InmoError('LISTING_STATUS_MOVE', { from, to: status });
      if (!isClosingStatus(status)) return { record: { ...record, status }, value: undefined };
      const checkedClosing = checkClosing(typed?.price ?? null, typed?.on ?? '', today);
      if ('faults' in checkedClosing) throw new ClosingInvalidError(checkedClosing.faults);
      return { record: { ...record, status }, value: undefined, closing: checkedClosing.closing };
    },
    actor,
  );
}

/**
 * The business's day now, `YYYY-MM-DD` in its time zone: the day a sale or rental is recorded
 * on unless another is typed, and the last one it may be.
 */
export async function businessToday(db: Db, businessId: number, now: number = Date.now()): Promise<string> {
  return dayIn((await businessClock(db, businessId)).zone, now);
}

/**
 * Switches a listing public or featured, saved as an edit of the listing as it is when written.
 * @throws InmoError PROPERTY_NOT_FOUND; ListingActionRefusedError when the listing is sold,
 *   rented or withdrawn (see {@link SWITCHABLE_STATUSES}).
 */
export async function switchListing(
  db: Db,
  businessId: number,
  id: number,
  flag: 'public' | 'is_featured',
  on: boolean,
  actor: AuditActor,
): Promise<void> {
  const action: BulkAction = flag === 'public' ? (on ? 'publish' : 'unpublish') : on ? 'feature' : 'unfeature';
  await editListing(
    db,
    businessId,
    id,
    async ({ record }) => {
      const status = record.status ?? '';
      if (!applies(action, status)) {
        throw new ListingActionRefusedError(action, [
          { id, external_ref: record.external_ref, title: record.title ?? null, status, reason: 'status' },
        ]);
      }
      return { record: { ...record, [flag]: on }, value: undefined };
    },
    actor,
  );
}

/**
 * Applies one action to several listings of the business at once (CONTRACT §23): publish,
 * unpublish, feature, unfeature or withdraw. Every listing is read and checked first, in one
 * transaction under the lock of the business's catalogue; if the action cannot apply to one
 * (see {@link SWITCHABLE_STATUSES}; a listing that breaks a rule of the import format now),
 * nothing changes and each such listing is named. Otherwise the listings it changes are written
 * as one import batch (one catalogue version, `property.changed` for each that enters, changes
 * in or leaves the public catalogue, re-matching), each withdrawal recorded in the audit trail
 * by `actor`, as the one-click actions do; a listing already that way is left as it is.
 * @param ids listings of the business (repeats count once), at most {@link BULK_MAX}.
 * @returns how many listings changed, and how many were that way already.
 * @throws InmoError PROPERTY_NOT_FOUND when one is not a listing of the business (nothing
 *   changed); ListingActionRefusedError as above.
 */
export async function bulkChangeListings(
  db: Db,
  businessId: number,
  ids: readonly number[],
  action: BulkAction,
  actor: AuditActor,
): Promise<{ changed: number; unchanged: number }> {
  const unique = [...new Set(ids)];
  if (unique.length > BULK_MAX) throw new RangeError(`at most ${BULK_MAX} listings at once`);
  const result = await transact(db, async (trx) => {
    await lockCatalogue(trx, businessId);
    const now = nowRfc3339();
    const refused: RefusedListing[] = [];
    const writes: Array<{ property: ReturnType<typeof checked>; id: number }> = [];
    for (const id of unique) {
      const row = await repo.findListing(trx, businessId, id);
      if (!row) throw new InmoError('PROPERTY_NOT_FOUND');
      const named = { id, external_ref: row.external_ref, title: row.title, status: row.status };
      if (!applies(action, row.status)) {
        refused.push({ ...named, reason: 'status' });
        continue;
      }
      const [images, videos] = [await repo.loadImages(trx, id), await repo.loadVideos(trx, id)];
      const { api_doc: _doc, business_id: _business, change_seq: _seq, imported_at: _at, id: _id, ...fields } = row;
      const next = actedOn(action, listingRecordOf(fields as PropertyFields, images, videos));
      if (next === null) continue;
      try {
        writes.push({ property: checked({ ...next, created_at: row.created_at, updated_at: now }, now), id });
      } catch (error) {
        if (!(error instanceof ListingInvalidError)) throw error;
        refused.push({ ...named, reason: 'invalid' });
      }
    }
    if (refused.length > 0) throw new ListingActionRefusedError(action, refused);
    if (writes.length > 0) {
      await writeListings(trx, businessId, writes, now);
      if (action === 'withdraw')
        await recordAudits(
          trx,
          businessId,
          actor,
          'property.withdraw',
          writes.map((w) => w.id),
          now,
        );
    }
    return { changed: writes.length, unchanged: unique.length - writes.length };
  });
  if (result.changed > 0) signalChange(db);
  return result;
}
