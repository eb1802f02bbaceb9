/**
 * A new lead in one statement, where the engine runs writes concurrently (PostgreSQL; issue 32).
 *
 * What it duplicates: the intake's transactional path for a lead whose phone is new
 * (services/leads/intake.ts: the lead, its note, consent, welcome message, jobs, `lead.created`
 * event, that event's webhook deliveries with their jobs, and the Idempotency-Key's record),
 * written as one statement (db/repositories/new-lead-statement.ts) instead of ten. Only how the
 * rows reach the database differs: every value is decided here, before the statement, by the
 * same functions the transactional path calls, and handed to the statement as parameters:
 *
 * - the welcome: `decideWelcome` (services/messaging/purposes/welcome.ts), from the business's channel,
 *   whether it sends e-mail (its own SMTP server, or `INMO_SMTP_URL`), and the lead's consent;
 * - the endpoints the event goes to: `subscribes` (services/integrations/events.ts), from the
 *   business's enabled endpoints;
 * - the event's data: `presentLead` (domain/leads/presenter.ts), the lead as GET /leads/{id}
 *   shows it, the id given by the database;
 * - the Idempotency-Key's record: services/integrations/idempotency.ts `recordFor`, plain data.
 *
 * The channel, the e-mail settings and the endpoints are kept per business, with the business's `config_version`
 * they were read at (read first: what is read after it is at least as new), which every change
 * to them bumps in its own transaction (migrations 0005, 0024). The statement writes only while
 * the version is still that one, so it never uses a channel or endpoints older than its own
 * snapshot: what the transactional path reads inside its transaction, at READ COMMITTED, is no
 * newer. When the version has moved, nothing is written, the kept values are dropped, and the
 * lead takes the transactional path (the next lead reads them again).
 *
 * Which test proves the two paths agree: test/db/leads/new-lead-statement.test.ts writes the same
 * leads through both (with and without a channel, a preferred language the channel maps or
 * not, endpoints taking `lead.created`, every event, others only, or disabled) and compares every
 * row stored.
 */
import { LRUCache } from 'lru-cache';
import { decideWelcome } from '../messaging/purposes/welcome.ts';
import { leadEmailAddress } from '../messaging/welcome.ts';
import { sendsEmail } from '../messaging/email.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import type { Db } from '../../db/database.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { findConfigVersion } from '../../db/repositories/businesses.ts';
import type { PayloadlessJobKind as JobKind } from '../../db/job-kinds.ts';
import { listActiveEndpoints } from '../../db/repositories/events.ts';
import { findChannel } from '../../db/repositories/messaging.ts';
import { insertNewLeadAtOnce, type NewLeadRows } from '../../db/repositories/new-lead-statement.ts';
import type { NewLead } from '../../db/types.ts';
import { presentLead, type PresentedRow } from '../../domain/leads/presenter.ts';
import { subscribes } from '../integrations/events.ts';
import type { KeyRecord } from '../../db/repositories/idempotency.ts';

/** A new lead as the intake made it, before the database gives its id. Times are canonical RFC 3339. */
export interface NewLeadParts {
  businessId: number;
  /** The lead's columns, `business_id` included. */
  lead: NewLead;
  note: string;
  /** The consent's columns (`marketing`, `whatsapp` 0/1, `text`, `version`, `source_page`), or null: none given. */
  consent: NewLeadRows['consent'];
  /**
   * Whether the lead is queued a welcome (its `send_welcome` job), in which `preferred_language`,
   * and whether it may go by e-mail (not to an address an unverified request gave, intake.ts
   * `InquiryOrigin.verified`).
   */
  welcome: { preferredLanguage: string | null; byEmail: boolean } | null;
  jobs: JobKind[];
  at: string;
}

/** What a new lead's rows are decided from, as the business had them at `version`. */
interface Settings {
  version: number;
  channel: { template: string; languages: string } | undefined;
  /** Whether the business has its own SMTP server (migration 0027; its changes bump the version too). */
  ownEmail: boolean;
  /** The enabled endpoints that take `lead.created` (`subscribes`), in id order. */
  endpointIds: number[];
}

/** Businesses whose settings one process keeps. */
const KEPT_BUSINESSES = 10_000;
/** Settings kept per database handle and business, as promises (callers asking together share one read). */
const kept = new WeakMap<Db, LRUCache<number, Promise<Settings>>>();

/** The business's settings, as kept or read now (the version first). */
function settingsOf(db: Db, businessId: number): Promise<Settings> {
  let ofDb = kept.get(db);
  if (!ofDb) kept.set(db, (ofDb = new LRUCache({ max: KEPT_BUSINESSES })));
  let settings = ofDb.get(businessId);
  if (!settings) {
    settings = readSettings(db, businessId);
    ofDb.set(businessId, settings);
    // A read that failed is not kept.
    settings.catch(() => ofDb.get(businessId) === settings && ofDb.delete(businessId));
  }
  return settings;
}

async function readSettings(db: Db, businessId: number): Promise<Settings> {
  const version = (await findConfigVersion(db, businessId)) ?? -1;
  const [channel, email, endpoints] = await Promise.all([
    findChannel(db, businessId),
    findEmailSettings(db, businessId),
    listActiveEndpoints(db, businessId),
  ]);
  return {
    version,
    channel,
    ownEmail: email !== undefined,
    endpointIds: endpoints.filter((endpoint) => subscribes(endpoint, 'lead.created')).map((endpoint) => endpoint.id),
  };
}

/**
 * Writes a new lead in one statement where the engine runs writes concurrently
 * (GroupCommit `alone`, PostgreSQL).
 * @param writes the intake's writes: `alone` is the one-statement write (GroupCommit), absent
 *   or giving null where the engine has none (SQLite).
 * @param key the request's Idempotency-Key record, written in the statement; null: no key.
 * @returns the new lead's id; null where the transactional path must answer: SQLite, a phone
 *   already known, or a business whose channel or endpoints changed since they were kept (nothing
 *   was written).
 * @throws the database's error, nothing written (db/repositories/new-lead-statement.ts), among
 *   them the unique violation of an Idempotency-Key not claimed first that has a row already
 *   (db/errors.ts `isKeyTaken`).
 */
export async function newLeadAtOnce(
  writes: Partial<Pick<GroupCommit, 'alone'>>,
  parts: NewLeadParts,
  key: KeyRecord | null,
): Promise<number | null> {
  const created = await writes.alone?.(async (db) => {
    const { version, channel, ownEmail, endpointIds } = await settingsOf(db, parts.businessId);
    const welcome =
      parts.welcome &&
      decideWelcome(channel, ownEmail || sendsEmail(undefined), {
        phone: parts.lead.phone_number_1,
        email: parts.welcome.byEmail ? leadEmailAddress(parts.lead) : null,
        preferredLanguage: parts.welcome.preferredLanguage,
        refusesWhatsApp: parts.consent?.whatsapp === 0,
      });
    const written = await insertNewLeadAtOnce(db, {
      businessId: parts.businessId,
      lead: parts.lead as Record<string, unknown>,
      note: parts.note,
      consent: parts.consent,
      welcome,
      jobs: parts.jobs,
      endpointIds,
      eventDataAfterId: eventDataAfterId(parts.lead),
      configVersion: version,
      idempotency: key,
      at: parts.at,
    });
    if (written !== 'stale') return written;
    // The channel or the endpoints changed since they were read: read again by the next lead.
    kept.get(db)?.delete(parts.businessId);
    return null;
  });
  return created ?? null;
}

/**
 * The `lead.created` event's data after `{"lead":{"id":` (services/integrations/events.ts
 * `recordLeadEvent`: the lead as GET /leads/{id} shows it), for the database to put the id before.
 */
function eventDataAfterId(lead: NewLead): string {
  const data = JSON.stringify({ lead: presentLead({ ...(lead as unknown as PresentedRow), id: 0 }) });
  const head = '{"lead":{"id":0';
  if (!data.startsWith(head)) throw new Error('the presented lead does not begin with its id');
  return data.slice(head.length);
}
