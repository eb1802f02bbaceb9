/** Portal e-mails in (migration 0025, CONTRACT §19): SQL only (see services/leads/email-intake.ts). */
import { isRowId, type Executor } from '../database.ts';
import { insertReturningId } from '../compiled-once.ts';
import type { InboundEmailState, InboundEmailTable } from '../types.ts';

/** Records a business's new address (its token's SHA-256, hex, and the token sealed, migration 0054). @returns its id. */
export async function insertInboundToken(
  db: Executor,
  row: { business_id: number; token_hash: string; token_sealed: string | null; created_at: string },
): Promise<number> {
  return insertReturningId(db, 'inbound_email_tokens', { ...row, revoked_at: null });
}

/** The newest live token of a business that was kept sealed (migration 0054), with its sealed value; undefined when none. */
export async function findShownInboundToken(db: Executor, businessId: number) {
  return db
    .selectFrom('inbound_email_tokens')
    .select(['id', 'token_sealed'])
    .where('business_id', '=', businessId)
    .where('revoked_at', 'is', null)
    .where('token_sealed', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The business a live (not revoked) token's hash names. */
export async function findLiveInboundToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('inbound_email_tokens')
    .select(['id', 'business_id', 'token_hash'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** A business's tokens, newest first (revoked ones too), without their hashes. */
export async function listInboundTokens(db: Executor, businessId: number) {
  return db
    .selectFrom('inbound_email_tokens')
    .select(['id', 'created_at', 'revoked_at'])
    .where('business_id', '=', businessId)
    .orderBy('id', 'desc')
    .execute();
}

/** Revokes a token once, of `businessId` only unless it is null. @returns whether such a token exists. */
export async function revokeInboundToken(db: Executor, id: number, businessId: number | null, at: string): Promise<boolean> {
  let find = db.selectFrom('inbound_email_tokens').select('id').where('id', '=', id);
  if (businessId !== null) find = find.where('business_id', '=', businessId);
  if (!(await find.executeTakeFirst())) return false;
  await db.updateTable('inbound_email_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return true;
}

/**
 * Keeps a message for its job, unless the business already has one with this key.
 * @returns the new row's id, or undefined for a message already kept.
 */
export async function insertInboundEmail(
  db: Executor,
  row: { business_id: number; message_key: string; raw: Buffer; received_at: string },
): Promise<number | undefined> {
  const inserted = await db
    .insertInto('inbound_emails')
    .values({ ...row, state: 'pending', updated_at: row.received_at })
    .onConflict((oc) => oc.columns(['business_id', 'message_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/** A kept message by id, raw bytes included; undefined once purged or erased. */
export async function findInboundEmail(db: Executor, id: number) {
  return db.selectFrom('inbound_emails').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Moves a message from state `from` (a pending one: what reading it made of it; one not
 * understood: what an agent made of it), only while it is still in that state.
 * @returns whether this call moved it (false: another run or agent did first).
 */
export async function settleInboundEmail(
  db: Executor,
  id: number,
  outcome: Pick<InboundEmailTable, 'parser' | 'lead_id' | 'sender' | 'subject' | 'reason' | 'updated_at'> & {
    state: Exclude<InboundEmailState, 'pending'>;
    trust?: InboundEmailTable['trust'];
    property_id?: number | null;
    reading?: string | null;
  },
  from: 'pending' | 'not_understood' = 'pending',
): Promise<boolean> {
  // What reading found is kept only while the message waits for an agent.
  const reading = outcome.state === 'not_understood' ? (outcome.reading ?? null) : null;
  const result = await db
    .updateTable('inbound_emails')
    .set({ ...outcome, reading })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The portal e-mails that made or were added to lead `leadId` of `businessId`, oldest first, each
 * with the listing it named (migration 0048; `property_id` and `external_ref` null when it named
 * none, or the listing is gone): for the lead's page (issue 57).
 */
export async function listEmailListingsOfLead(db: Executor, businessId: number, leadId: number) {
  return (
    db
      .selectFrom('inbound_emails')
      .leftJoin('properties', (join) =>
        join.onRef('properties.id', '=', 'inbound_emails.property_id').on('properties.business_id', '=', businessId),
      )
      .select([
        'inbound_emails.id',
        'inbound_emails.received_at',
        'inbound_emails.parser',
        'properties.id as property_id',
        'properties.external_ref',
      ])
      .where('inbound_emails.business_id', '=', businessId)
      .where('inbound_emails.lead_id', '=', leadId)
      // An answer in the conversation (`reply`, CONTRACT §25) named no listing.
      .where('inbound_emails.state', '!=', 'reply')
      .orderBy('inbound_emails.id')
      .execute()
  );
}

/**
 * Sets the listing message `id` was about, only while it names none (an agent linking it, issue 57).
 * @returns whether this call set it (false: it names one already).
 */
export async function setInboundEmailListing(db: Executor, id: number, propertyId: number): Promise<boolean> {
  const result = await db
    .updateTable('inbound_emails')
    .set({ property_id: propertyId })
    .where('id', '=', id)
    .where('property_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The messages that made or were added to a lead, oldest first (its export, CONTRACT §18). */
export async function listInboundEmailsOfLead(db: Executor, leadId: number) {
  return db
    .selectFrom('inbound_emails')
    .select(['id', 'message_key', 'raw', 'received_at', 'state', 'parser', 'sender', 'subject', 'reason'])
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
}

/** A business's messages in one state, newest first (`not_understood`: what waits for an agent). */
export async function listInboundEmailsInState(db: Executor, businessId: number, state: InboundEmailState, limit: number) {
  return db
    .selectFrom('inbound_emails')
    .select(['id', 'received_at', 'state', 'parser', 'lead_id', 'sender', 'subject', 'reason', 'trust'])
    .where('business_id', '=', businessId)
    .where('state', '=', state)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Deletes every message received before `before` (30 days of keeping, CONTRACT §19). @returns how many. */
export async function purgeInboundEmailsBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('inbound_emails').where('received_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The listing a portal's ad names by `reference` (CONTRACT §19): the business's listing whose
 * `external_ref` is it, else, for a whole number, the one with that inmo id; any status (a sold
 * listing still says what the person looks for).
 */
export async function findListingByReference(db: Executor, businessId: number, reference: string) {
  const byRef = await db
    .selectFrom('properties')
    .select(LISTING_COLUMNS)
    .where('business_id', '=', businessId)
    .where('external_ref', '=', reference)
    .executeTakeFirst();
  if (byRef || !/^[1-9]\d{0,9}$/.test(reference) || !isRowId(Number(reference))) return byRef;
  return findListingById(db, businessId, Number(reference));
}

/** What a portal e-mail's listing is read as: its reference, and what its search is built from (domain/leads/portal-emails/search.ts). */
const LISTING_COLUMNS = [
  'id',
  'external_ref',
  'operation',
  'op_venta',
  'op_alquiler',
  'op_traspaso',
  'type',
  'city',
  'price',
  'price_rent',
  'price_transfer',
] as const;

/** The business's listing of inmo id `id`, any status. */
async function findListingById(db: Executor, businessId: number, id: number) {
  if (!isRowId(id)) return undefined;
  return db.selectFrom('properties').select(LISTING_COLUMNS).where('business_id', '=', businessId).where('id', '=', id).executeTakeFirst();
}

/**
 * The listing a portal e-mail is about (CONTRACT §19, issue 57): the first of `candidates`
 * (domain/leads/portal-emails/references.ts, best first) the business holds (a reference as
 * {@link findListingByReference} reads it, an inmo id, or the token of its page `/l/<token>`);
 * else the first of `words` (at most 200) that is one of its `external_ref`s, looked up in one
 * query. Any status. At most one query per candidate (24 at most) and one for the words.
 */
export async function findListingOfEmail(
  db: Executor,
  businessId: number,
  candidates: ReadonlyArray<{ ref: string } | { id: number } | { page: string }>,
  words: readonly string[],
) {
  for (const candidate of candidates.slice(0, 24)) {
    let found;
    if ('ref' in candidate) found = await findListingByReference(db, businessId, candidate.ref);
    else if ('id' in candidate) found = await findListingById(db, businessId, candidate.id);
    else {
      const page = await db.selectFrom('property_pages').select('property_id').where('token', '=', candidate.page).executeTakeFirst();
      found = page ? await findListingById(db, businessId, page.property_id) : undefined;
    }
    if (found) return found;
  }
  const bounded = [...new Set(words)].slice(0, 200);
  if (bounded.length === 0) return undefined;
  const held = await db
    .selectFrom('properties')
    .select(LISTING_COLUMNS)
    .where('business_id', '=', businessId)
    .where('external_ref', 'in', bounded)
    .execute();
  const byRef = new Map(held.map((listing) => [listing.external_ref, listing]));
  return bounded.map((word) => byRef.get(word)).find((listing) => listing !== undefined);
}

/** What reading a message made of it (the columns {@link settleInboundEmail} sets). */
export type InboundOutcome = Pick<InboundEmailTable, 'parser' | 'lead_id' | 'sender' | 'subject' | 'reason'> & {
  state: Exclude<InboundEmailState, 'pending'>;
};

/**
 * The agency's own addresses, lower-case: its active console users' e-mails and its e-mail
 * settings' from and reply-to addresses (a forward from one of them is believed when it
 * authenticated, domain/leads/portal-emails/trust.ts).
 */
export async function listAgencyAddresses(db: Executor, businessId: number): Promise<Set<string>> {
  const [users, settings] = await Promise.all([
    db.selectFrom('users').select('email').where('business_id', '=', businessId).where('disabled_at', 'is', null).execute(),
    db.selectFrom('email_settings').select(['from_address', 'reply_to']).where('business_id', '=', businessId).executeTakeFirst(),
  ]);
  const addresses = [...users.map((u) => u.email), settings?.from_address, settings?.reply_to];
  return new Set(addresses.filter((a): a is string => Boolean(a?.trim())).map((a) => a.trim().toLowerCase()));
}

/** A message's business and the parser that read it. */
export async function findInboundEmailOrigin(db: Executor, id: number): Promise<{ business_id: number; parser: string | null }> {
  return db.selectFrom('inbound_emails').select(['business_id', 'parser']).where('id', '=', id).executeTakeFirstOrThrow();
}
