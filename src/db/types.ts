/**
 * Row types of the database, as Kysely sees them (see migrations/0001_initial.ts).
 * Booleans are 0/1 integers and timestamps canonical RFC 3339 text on every engine.
 */
import type { Generated, Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { PresentedRow } from '../domain/leads/presenter.ts';
import type { ImageInput, PropertyFields, VideoInput } from '../domain/catalogue/property-record.ts';
import type { StoredViewing } from '../domain/viewings/presenter.ts';
import type { ViewingKind } from '../domain/viewings/status.ts';
import type { EmailTrust } from '../domain/leads/portal-emails/trust.ts';
import type { OwnerStage } from '../domain/leads/owner-stages.ts';

/** The engines inmo runs on. */
export type Engine = 'sqlite' | 'postgres';

/** A database handle: Kysely, and the engine it runs on (set by `createDb`, db/database.ts). */
export type Db = Kysely<Database> & { readonly engine: Engine };

/** What a repository function runs on: the handle or a transaction of it. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface BusinessTable {
  id: Generated<number>;
  name: string;
  /** Bumped by every catalogue change; keys the per-process count cache. */
  catalogue_version: Generated<number>;
  /** Bumped by triggers when a key's rights, the channel (migration 0005) or a webhook endpoint's events or state (0024) change. */
  config_version: Generated<number>;
  /** Bumped by triggers whenever one of its leads is written, on SQLite (migration 0020); 0 on PostgreSQL. */
  lead_version: Generated<number>;
  created_at: string;
  /** IANA time zone of the business's local times (migration 0030; `Europe/Madrid` by default). */
  timezone: Generated<string>;
  /** JSON of the local hours viewings are offered in (domain/viewings/hours.ts); null: the default hours. */
  viewing_hours: string | null;
  /** The local date (`YYYY-MM-DD`) of the latest alert round composed (migration 0032, CONTRACT §21). */
  alerts_round: Generated<string | null>;
  /** The clause printed on visit sheets (migration 0040, CONTRACT §20); null: the default one (domain/viewings/visit-sheet.ts). */
  visit_sheet_clause: Generated<string | null>;
  /** The clause printed on the agency's mandates (migration 0062, CONTRACT §24); null: the default one (domain/owners/mandates.ts). */
  mandate_clause: Generated<string | null>;
  /** The catalogue version the searching leads' stored matches were last brought up to (migration 0042); null before the first re-match. */
  rematched_version: Generated<number | null>;
}

export interface ApiKeyTable {
  /** 16 base62 characters, the public half of the key. */
  key_id: string;
  business_id: number;
  /** SHA-256 of the secret, hex. */
  secret_hash: string;
  /** Comma-joined scopes. */
  scopes: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** A publishable key's allowed web origins, JSON array (migration 0012); null for a secret key. */
  origins: string | null;
}

export interface PropertyTable {
  id: Generated<number>;
  business_id: number;
  /** The catalogue version of the import that last wrote it (migration 0010; the changes feed). */
  change_seq: Generated<number>;
  external_ref: string;
  public: number;
  status: string;
  operation: string | null;
  op_venta: number;
  op_alquiler: number;
  op_traspaso: number;
  rental_type: string | null;
  type: string | null;
  subtype: string | null;
  /** The default title: the Spanish one, else the first held (migration 0028). */
  title: string | null;
  description: string | null;
  /** JSON of every language's title, when a language other than Spanish is held (migration 0028). */
  titles: string | null;
  descriptions: string | null;
  /** Sale price, €. */
  price: number | null;
  /** Monthly rent, €. */
  price_rent: number | null;
  /** Transfer price, €. */
  price_transfer: number | null;
  /** First of price, price_rent, price_transfer that is not null (CONTRACT §4). */
  price_any: number | null;
  /** m². */
  size_total: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  address: string | null;
  address_approximate: string | null;
  building_name: string | null;
  postal_code: string | null;
  city: string | null;
  /** Unicode lower-case of `city`, for the case-insensitive exact match. */
  city_key: string | null;
  province: string | null;
  country: string | null;
  lat: number | null;
  lon: number | null;
  address_privacy: string;
  /** The position the API publishes (exact or rounded to 2 decimals); map areas test this. */
  pub_lat: number | null;
  pub_lon: number | null;
  /** JSON array of features as imported. */
  features: string | null;
  /** JSON object of listing characteristics as imported. */
  specs: string | null;
  is_featured: number;
  created_at: string;
  updated_at: string;
  /** 1 when public and disponible/reservada: the only rows the API can see. */
  listed: number;
  imported_at: string;
  /** The listing's agent, whose viewings it is offered in (migration 0030); null: any active user. */
  agent_user_id: Generated<number | null>;
  /**
   * Reference, titles, addresses, city and postal code folded for search (migration 0033,
   * domain/search-text.ts `listingSearchText`); written with the row by db/repositories/properties.ts.
   */
  search_text: string | null;
  /**
   * The price a sold listing fetched, or the rent a month a rented one was let for, €, as the
   * console recorded it (migration 0038); null when none was, and once the status changes again.
   */
  closed_price: Generated<number | null>;
  /** The day of that sale or rental in the business's time zone, `YYYY-MM-DD` (migration 0038); null as `closed_price`. */
  closed_on: Generated<string | null>;
  /** The listing's owner, a `propietario` lead (migration 0059, CONTRACT §24); null: none linked. Never published. */
  owner_lead_id: Generated<number | null>;
}

/** The published property object without `id`, JSON, privacy already applied (1:1 with properties). */
export interface PropertyDocTable {
  property_id: number;
  api_doc: string;
  /** The published title and description of every language held, JSON; null when only Spanish is (migration 0028). */
  lang_texts: string | null;
}

/** The token of a listing's public page `/l/<token>` (migration 0037, CONTRACT §21): 32 hex characters, never changed. */
export interface PropertyPageTable {
  property_id: number;
  token: string;
  created_at: string;
}

export interface PropertyImageTable {
  id: Generated<number>;
  property_id: number;
  url: string;
  sort_order: number;
  is_primary: number;
  title: string | null;
  public: number;
}

export interface PropertyVideoTable {
  id: Generated<number>;
  property_id: number;
  title: string | null;
  sort_order: number;
  url: string | null;
  hls_url: string | null;
  thumbnail_url: string | null;
  embed_url: string | null;
  processed: number;
}

export interface LeadTable {
  id: Generated<number>;
  business_id: number;
  /** The console user handling the lead, or null (migration 0016). */
  assigned_user_id: number | null;
  /**
   * Where the agency stands with an owner (`propietario`) lead (migration 0060, CONTRACT §24;
   * domain/leads/owner-stages.ts): null for other leads, and for an owner never moved (`new`).
   */
  owner_stage: OwnerStage | null;
  /** An owner's days between reports, 7, 14 or 30 (migration 0063, CONTRACT §24); null: `INMO_OWNER_REPORT_DAYS`. */
  owner_report_days: Generated<number | null>;
  name: string | null;
  type: string;
  status: string;
  active: number;
  source: string | null;
  /** E.164; unique per business. */
  phone_number_1: string;
  phone_number_2: string | null;
  landline_phone: string | null;
  personal_email: string | null;
  professional_email: string | null;
  preferred_language: string | null;
  dni: string | null;
  profile_category: string | null;
  urgency_profile: string | null;
  rating: number;
  captured_by: string | null;
  /** JSON array (spec §2.4), internal notes included. */
  search_preferences: string | null;
  agency_property_ids: string | null;
  services: string | null;
  created_at: string;
  updated_at: string;
  /** Name and e-mail addresses folded for search (migration 0031, domain/search-text.ts): written by db/repositories/leads.ts alone. */
  search_text: string | null;
  /** 0/1: the agent ticked "wants alerts" (migration 0032, CONTRACT §21). */
  wants_alerts: Generated<number>;
  /**
   * 0/1: 0 when its phone and e-mail address came from a request that cannot prove it comes
   * from the person (a publishable key, the listing page, an unverified portal e-mail): no
   * automatic e-mail goes to that address (migration 0045).
   */
  contact_verified: Generated<number>;
}

export interface LeadNoteTable {
  id: Generated<number>;
  lead_id: number;
  text: string;
  created_at: string;
  /** The console user who wrote it; null for a note of the service's (migration 0016). */
  author_user_id: number | null;
}

/** A `consent` object given with a lead at intake (migration 0018, CONTRACT §18): the newest holds. */
export interface LeadConsentTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  /** 0/1: commercial communications. */
  marketing: number;
  /** 0/1: WhatsApp messages; 0 and no message is sent to the lead. */
  whatsapp: number;
  /** The wording the person saw (at most 2,000 characters). */
  text: string | null;
  version: string | null;
  /** The form's page (`sourcePage`). */
  source_page: string | null;
  created_at: string;
  /**
   * 1: given by the person or the agency; 0: carried by a request that cannot prove it comes
   * from the person, about a known lead: `marketing`/`whatsapp` then hold what took effect (never
   * more than before), `carried_*` what it said (migration 0045, CONTRACT §18).
   */
  verified: Generated<number>;
  carried_marketing: number | null;
  carried_whatsapp: number | null;
}

/** A request about a lead that already existed and did not change it (migration 0023, CONTRACT §22). */
export interface LeadInteractionTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  /**
   * How it came: `inquiry` (POST /leads/inquiries), `ingest` (POST /leads/ingest), `email` (a
   * portal's e-mail, CONTRACT §19) or `alert` ("No me interesa" on a listing of an alert, CONTRACT §21).
   */
  channel: 'inquiry' | 'ingest' | 'email' | 'alert';
  /** The request's `source`, when it said one. */
  source: string | null;
  /** What a new lead's note would have said: the message, the page, the search. */
  note: string;
  created_at: string;
}

/** A change made to a lead in the console (migration 0016, CONTRACT §16). */
export interface LeadHistoryTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  /** Who made it (a console user). */
  user_id: number | null;
  change: 'status' | 'note' | 'assign' | 'follow_up' | 'edit' | 'owner_stage';
  /**
   * JSON: `{from, to, reason}` for a status, `{from, to}` (owner stages, migration 0060) for an owner stage, `{from, to}` (user ids) for an assignment, `{}` for a note, `{id, done}` or `{id, from, to}` for a follow-up;
   * `{fields, via?, property_id?}` for an edit of the contact or searches (CONTRACT §25): the names of the fields changed, never their values,
   * `via: "api"` when an API key made it, `property_id` the listing a portal e-mail was linked to.
   */
  detail: string;
  created_at: string;
}

/** Background work recorded with the lead that needs it (migration 0002). */
export interface JobTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number | null;
  /** A task of jobs/tasks/index.ts (`match_lead`, `send_welcome`, … `deliver_webhook`): the JobKind type, with its payload's (db/job-kinds.ts). */
  kind: string;
  payload: string | null;
  /** `pending`, `running`, `done`, `failed`. */
  state: string;
  attempts: Generated<number>;
  run_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The worker holding a running job (migration 0003). */
  locked_by: string | null;
  /** End of that worker's lease: past it, the job is taken again. */
  locked_until: string | null;
}

/** The last run of a schedule of recurring work (migration 0058; src/jobs/schedules.ts). */
export interface ScheduleRunTable {
  /** The schedule's name (`alert_round`, `viewing_reminders`, …). */
  name: string;
  /** When its last run was claimed, canonical RFC 3339, by the clock of the worker that claimed it. */
  last_run_at: string;
  /** The worker that claimed it (`jobs.locked_by`'s form). */
  worker: string;
}

/** A property a search entry matched (`failed` null) or nearly matched (`failed` names the criterion missed). */
export interface LeadMatchTable {
  lead_id: number;
  /** Index of the entry in the lead's `search_preferences`. */
  search_index: number;
  property_id: number;
  failed: string | null;
}

/** The last matching of a lead. */
export interface LeadMatchRunTable {
  lead_id: number;
  catalogue_version: number;
  matched_at: string;
  /** All matches found, before the storage cap. */
  matches_total: number;
  near_misses_total: number;
  /** A digest of the stored rows and both totals (migration 0042, db/repositories/matches.ts); null for runs stored before. */
  result_hash: Generated<string | null>;
  /** 1 when the run found more matches or near misses than it stored (the per-entry cap). */
  truncated: Generated<number>;
}

/** A business's messaging channel (CONTRACT §7). */
export interface ChannelTable {
  business_id: number;
  /** `whatsapp-cloud`. */
  provider: string;
  phone_number_id: string;
  /** Never printed or logged. */
  access_token: string;
  /** Approved template name. */
  template: string;
  /** JSON object: `preferred_language` → template language code. */
  languages: string;
  /** Graph API base, version included, e.g. `https://graph.facebook.com/v21.0`. */
  base_url: string;
  connected_at: string;
  /** Meta app secret, sealed: checks `X-Hub-Signature-256` of webhooks (migration 0004). */
  app_secret: string | null;
  /** Webhook verify token, sealed. */
  verify_token: string | null;
  /** Listing link template with `{id}` (or `{ref}`), for the assistant's answers. */
  listing_url: string | null;
  /** JSON `{url, model, api_key (sealed)}` of a chat-completions assistant; null: the built-in one. */
  assistant: string | null;
  /** 1 while the assistant answers leads' messages; 0 hands each one to the agents (migration 0016). */
  assistant_enabled: Generated<number>;
  /**
   * JSON object: purpose (`viewing_scheduled`, `viewing_rescheduled`, `viewing_cancelled`,
   * `viewing_reminder`, `valuation_*` of each, `property_alert`) → approved template name (migration 0039); `{}` names none.
   */
  templates: Generated<string>;
}

/**
 * A message of a lead's WhatsApp thread, either way (migration 0004, CONTRACT §10).
 * Outbound states: `pending` → `sending` → `sent` → `delivered` → `read`, or `failed`, or
 * `needs_reconciliation`; inbound messages are `received`.
 */
export interface MessageTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  /** `in` (from the lead) or `out` (to the lead). */
  direction: string;
  /** `template`, `text`, `button`, `interactive`, or WhatsApp's type of another inbound message (`image`, `audio`, …). */
  kind: string;
  /** Outbound: `welcome` (the one template), `assistant` or `agent`; null inbound. */
  author: string | null;
  /** What the message says (a button's or list row's title), when it says something. */
  body: string | null;
  /** A template's name; an outbound interactive list's rows, as JSON (domain/messaging/viewing-offer.ts `storedList`). */
  template: string | null;
  /** Template language code. */
  language: string | null;
  /** Outbound: E.164. */
  recipient: string | null;
  state: string;
  /** WhatsApp message id (`wamid.…`). */
  provider_message_id: string | null;
  /** The assistant's reply: the inbound message it answers (one reply each, at most). */
  reply_to: number | null;
  /**
   * An assistant's message that listed listings (its matches, or a question asking which of them):
   * JSON array of their property ids in the order shown (migration 0056); null otherwise.
   */
  listings: string | null;
  last_error: string | null;
  /** Inbound: when WhatsApp says the lead sent it; outbound: when the provider accepted it. */
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Who answers a lead that wrote on WhatsApp, and until when a free-form reply may be sent. */
/** Who answers a lead's conversation: the assistant, an agent (`waiting_for_agent`), or nobody (`opted_out`). */
export type ConversationState = 'assistant' | 'waiting_for_agent' | 'opted_out';

export interface ConversationTable {
  lead_id: number;
  business_id: number;
  state: ConversationState;
  /** End of WhatsApp's 24-hour customer-service window, RFC 3339. */
  window_open_until: string | null;
  /** Unrecognised messages since the assistant last understood one (the second hands off). */
  unrecognised: Generated<number>;
  last_message_at: string;
  updated_at: string;
  /** The newest message of the lead an agent has seen (migration 0016); the inbound ones after it are unread. */
  agent_seen_message_id: number | null;
}

/** A webhook delivery kept for its `process_webhook` job; a delivery repeated byte for byte is kept once. */
export interface WebhookEventTable {
  id: Generated<number>;
  business_id: number;
  body_sha256: string;
  body: string;
  received_at: string;
}

export interface FollowUpRuleTable {
  business_id: number;
  lead_type: string;
  every_days: number;
}

/** An index a bulk load dropped, kept until it is built again (db/deferred-indexes.ts). */
export interface DeferredIndexTable {
  name: string;
  table_name: string;
  /** The engine's own CREATE INDEX statement. */
  definition: string;
}

/** A follow-up's state: `scheduled`, `due` once its day has come, `done` once the contact is made. */
export type FollowUpState = 'scheduled' | 'due' | 'done';

export interface FollowUpTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  due_at: string;
  every_days: number;
  state: FollowUpState;
  /** Before this instant a due follow-up is left off "Hoy" (migration 0034); null: never put off. */
  snoozed_until: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

/** A person of the console (migration 0007). */
export interface UserTable {
  id: Generated<number>;
  business_id: number;
  /** Lower-cased. */
  email: string;
  role: 'owner' | 'agent';
  /** `scrypt$N$r$p$salt$hash` (domain/access/passwords.ts); null until set through a one-time link. */
  password_hash: string | null;
  created_at: string;
  password_set_at: string | null;
  disabled_at: string | null;
  /** The name the console shows colleagues instead of the e-mail (migration 0036); null: none given. */
  display_name: Generated<string | null>;
}

/** A one-time link to set a password: SHA-256 of its token, hex. */
export interface UserTokenTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A console session: SHA-256 of the cookie's token, hex. */
export interface ConsoleSessionTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** A catalogue file uploaded in the console and its import (migration 0007). */
export interface CatalogueImportTable {
  id: Generated<number>;
  business_id: number;
  user_id: number | null;
  file_name: string;
  /** `running`, `indexing` (building the indexes after a first import), `done`, `failed`. */
  state: 'running' | 'indexing' | 'done' | 'failed';
  bytes_total: number;
  bytes_done: number;
  lines_done: number;
  created: number | null;
  updated: number | null;
  repeated: number | null;
  /** JSON array of `{line, reason}`. */
  rejected: string | null;
  error: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** What a lead POST did (CONTRACT §13 `Inmo-Lead-Outcome`). */
export type LeadOutcome = 'created' | 'completed' | 'unchanged';

/** An Idempotency-Key of one API key and the first response to it (migration 0009). */
/** An erased lead (migration 0019, CONTRACT §18): nothing of the person, only that it was erased. */
export interface LeadErasureTable {
  lead_id: number;
  business_id: number;
  /** `request` (API, CLI, console) or `retention` (INMO_LEAD_RETENTION_DAYS). */
  cause: 'request' | 'retention';
  erased_at: string;
}

/** One entry of the audit trail (migration 0019, CONTRACT §18): who, what, when; no personal data. */
export interface AuditLogTable {
  id: Generated<number>;
  business_id: number;
  actor_type: 'user' | 'key' | 'cli' | 'system';
  /** A user's id, a key's key_id, or what the system acted for (`retention`, `feed_source:<id>`); null for the CLI. */
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  created_at: string;
}

/**
 * An object of the media store that the console stored (migration 0021, CONTRACT §14): one
 * width of an uploaded photo, the business and listing it was stored for, and the URL the
 * listing was given for the photo. Only these are ever deleted, and only by their own listing.
 */
export interface MediaObjectTable {
  /** The store's key, `p/<listing id>/<uuid>-<width>.jpg`. */
  key: string;
  business_id: number;
  property_id: number;
  /** The photo's URL as the listing's image holds it (its widest width). */
  url: string;
  created_at: string;
}

export interface IdempotencyKeyTable {
  key_id: string;
  idempotency_key: string;
  /** SHA-256 (hex) of the method, route and body bytes of the first request. */
  fingerprint: string;
  state: 'running' | 'done';
  /** While `running`: the claim lapses after this instant. */
  locked_until: string | null;
  status: number | null;
  /** The first response's body (JSON text). */
  response: string | null;
  outcome: LeadOutcome | null;
  created_at: string;
  expires_at: string;
  /** The lead the recorded request created, completed or found (migration 0019): its erasure removes the record. */
  lead_id: number | null;
}

/** An event of the log (migration 0011, CONTRACT §13). */
export interface EventTable {
  id: Generated<number>;
  business_id: number;
  type: string;
  lead_id: number | null;
  /** JSON of the event's `data`. */
  data: string;
  created_at: string;
}

/** A URL a business's events are POSTed to (migration 0011). */
export interface WebhookEndpointTable {
  id: Generated<number>;
  business_id: number;
  url: string;
  /** JSON array of event types, or null for every type. */
  events: string | null;
  /** The sealed `whsec_…` secret (secrets.ts). */
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_at: string;
  disabled_at: string | null;
}

/** A published portal feed's URL (migration 0014, CONTRACT §15): only its token's hash is kept. */
export interface PublishedFeedTable {
  id: Generated<number>;
  business_id: number;
  /** `kyero` or `idealista` (domain/catalogue/feed-formats.ts). */
  format: string;
  /** SHA-256 of the URL's token, hex. */
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** An `idealista` feed's customer code, `ilc…` (migration 0029); null for other formats. */
  customer_code: string | null;
}

/** A feed pulled from an agency's old CRM (migration 0015, CONTRACT §15). */
export interface FeedSourceTable {
  id: Generated<number>;
  business_id: number;
  url: string;
  /** `kyero` or `ndjson`; null: told by content. */
  format: string | null;
  every_minutes: number;
  etag: string | null;
  last_modified: string | null;
  created_at: string;
  removed_at: string | null;
  last_pull_at: string | null;
  /** `imported`, `held`, `unchanged` or `failed`. */
  last_status: string | null;
  /** JSON: `{created, updated, repeated, withdrawn, rejected: [{line, id?, reason}], held?, of?, kept?}`. */
  last_result: string | null;
  last_error: string | null;
  /** A pull held until an owner confirms its withdrawals (migration 0022): the import run whose refs (import_refs) they are made from; null: none held. */
  held_run: string | null;
  held_at: string | null;
  /** Listings the held pull would withdraw, of `held_of` listings of the source still listed. */
  held_withdrawals: number | null;
  held_of: number | null;
}

/** A mailbox pulled over IMAP for portal e-mails (migrations 0026 and 0046, CONTRACT §19). */
export interface EmailPullTable {
  id: Generated<number>;
  business_id: number;
  /** The mailbox's address without its password: `imaps://user@host:993/INBOX`. */
  url: string;
  /** The password, sealed (secrets.ts). */
  password_sealed: string;
  every_minutes: number;
  created_at: string;
  removed_at: string | null;
  /** A run's lease: until when it holds the pull (RFC 3339), and its id; null: no run. */
  running_until: string | null;
  running_run: string | null;
  last_run_at: string | null;
  /** `done` or `failed`. */
  last_status: string | null;
  /** JSON: `{found, stored, already, skipped, too_large}`. */
  last_result: string | null;
  last_error: string | null;
  /**
   * JSON `{validity, uids}`: the messages skipped for good (too large, empty) within the
   * mailbox's UIDVALIDITY (migration 0046); null when none.
   */
  skipped_uids: string | null;
}

/** An address a business forwards portal e-mails to (migration 0025, CONTRACT §19): only its token's hash is kept. */
export interface InboundEmailTokenTable {
  id: Generated<number>;
  business_id: number;
  /** SHA-256 of the URL's token, hex. */
  token_hash: string;
  /** The token, sealed at rest (secrets.ts), so its address can be shown again (migration 0054); null for older ones. */
  token_sealed: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** A business's own SMTP server for e-mail out (migration 0027, CONTRACT §19). */
export interface EmailSettingsTable {
  business_id: number;
  host: string;
  port: number;
  /** `tls` (`smtps://`, TLS from the first byte) or `starttls` (`smtp://`, upgraded when offered). */
  security: string;
  username: string | null;
  /** Sealed (src/secrets.ts); never shown again. */
  password: string | null;
  /** The address alone: the envelope's sender, the feeds' contact. */
  from_address: string;
  /** The From header's display name, or null: the business's name is shown (migration 0049). */
  from_name: Generated<string | null>;
  reply_to: string | null;
  connected_at: string;
  updated_at: string;
}

/** A one-click unsubscribe link of an e-mail (migration 0027, CONTRACT §19, RFC 8058): only its token's hash is kept. */
export interface UnsubscribeTokenTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  /** SHA-256 of the token, hex. */
  token_hash: string;
  created_at: string;
  used_at: string | null;
}

/** A listing that newly matched a lead, waiting for its next digest (migration 0032, CONTRACT §21). */
export interface AlertCandidateTable {
  lead_id: number;
  property_id: number;
  business_id: number;
  created_at: string;
}

/** A lead's digest of one alert round, carried by one message (migration 0032). */
export interface AlertDigestTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  /** The round's local date, `YYYY-MM-DD`; one digest per lead and round. */
  round: string;
  /** The message carrying it (null only inside the transaction that writes both). */
  message_id: number | null;
  /** `alert` (the daily digest) or `agent` (sent by hand from the lead page, migration 0041). */
  origin: Generated<string>;
  /** The agent who sent it by hand; null for an alert (migration 0041). */
  user_id: number | null;
  /** SHA-256 (hex) of the token of its page `/d/<token>`, for a digest sent by WhatsApp (migration 0043); else null. */
  page_token_hash: Generated<string | null>;
  created_at: string;
}

/** A listing in a digest (migration 0032). */
export interface AlertItemTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  digest_id: number;
  property_id: number;
  /** `new` (newly matching) or `price_drop`. */
  reason: string;
  /** The price sent, € (null when the listing states none). */
  price: number | null;
  /** Which price column `price` was read from: `price`, `price_rent` or `price_transfer`. */
  price_field: string;
  /** 1 on the newest item of its (lead, listing). */
  latest: Generated<number>;
  /** For a `price_drop` item, the reference price it dropped from, € (migration 0051); null otherwise. */
  price_before: number | null;
  /** SHA-256 (hex) of the token of its "No me interesa" link; null until the e-mail is written. */
  token_hash: string | null;
  created_at: string;
}

/**
 * The price a listing had when it started matching a lead (migration 0051): the reference of a
 * price drop while the listing was never sent to the lead (CONTRACT §21).
 */
export interface AlertMatchPriceTable {
  lead_id: number;
  property_id: number;
  business_id: number;
  /** Which price column `price` was read from: `price`, `price_rent` or `price_transfer`. */
  price_field: string;
  /** €, null when the listing stated none. */
  price: number | null;
  created_at: string;
}

/** A listing a lead is not interested in (migration 0032). */
export interface LeadDismissalTable {
  lead_id: number;
  property_id: number;
  business_id: number;
  created_at: string;
}

/** What became of an e-mail received (CONTRACT §19; `reply`: an answer kept in the lead's conversation, §25). */
export type InboundEmailState = 'pending' | 'lead' | 'interaction' | 'reply' | 'not_understood' | 'discarded';

/** An e-mail received for a business (migration 0025, CONTRACT §19): personal data, kept 30 days at most. */
export interface InboundEmailTable {
  id: Generated<number>;
  business_id: number;
  /** Its `Message-ID`, else `sha256:` and the hex digest of its bytes: unique per business. */
  message_key: string;
  /** The message as received (RFC 5322 bytes). */
  raw: Buffer;
  received_at: string;
  state: InboundEmailState;
  /** The parser that read it (`idealista`, `fotocasa`, `habitaclia`, `pisos.com`, `generic`); null until read, or when none could. */
  parser: string | null;
  /** The lead it made (`lead`), was added to (`interaction`), or answered in its conversation (`reply`, CONTRACT §25). */
  lead_id: number | null;
  /** The original sender's address (the portal's, also when forwarded). */
  sender: string | null;
  subject: string | null;
  /** Why it is `not_understood` or `discarded`, in words (no personal data). */
  reason: string | null;
  /**
   * While `not_understood`: what reading it found, JSON `{text, found}` (services/leads/email-intake.ts
   * `EmailToReview`), so that its page does not read it again (migration 0044); null otherwise.
   */
  reading: string | null;
  updated_at: string;
  /** What inmo believed of it (migration 0045): `portal`, `agency` or `unverified`; null until read. */
  trust: EmailTrust | null;
  /** The business's listing it named (migration 0048), when it made or was added to a lead; null when none. */
  property_id: number | null;
}

/** What inmo believed of a portal e-mail (domain/leads/portal-emails/trust.ts). */
export type { EmailTrust } from '../domain/leads/portal-emails/trust.ts';

/** An external ref accepted by an import run (migration 0017): the run's refs, kept off the heap. */
export interface ImportRefTable {
  run: string;
  external_ref: string;
}

/** An external ref a feed source's document named (migration 0015). */
export interface FeedSourceRefTable {
  source_id: number;
  external_ref: string;
}

/** One event's delivery to one endpoint (migration 0011). */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: number;
  lead_id: number | null;
  /** The listing of a `property.changed` delivery (migration 0016): its deliveries go in order. */
  property_id: number | null;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_latency_ms: number | null;
  /** The first 1 KB of the last response's body. */
  last_response: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/**
 * A lead's visit to a listing with an agent (migration 0030, CONTRACT §20): the domain's stored
 * viewing (domain/viewings/presenter.ts: times canonical RFC 3339 UTC text, `feedback` JSON
 * `{interest, comment}`), its business, and `sequence`, the iCalendar SEQUENCE raised on every change.
 */
export interface ViewingTable extends Omit<StoredViewing, 'id' | 'kind'> {
  id: Generated<number>;
  /** `visit` (the default) or `valuation` (migration 0061, CONTRACT §24). */
  kind: Generated<ViewingKind>;
  business_id: number;
  sequence: Generated<number>;
  /** The publishable key a `requested` viewing came through (migration 0047); null otherwise. */
  api_key_id: Generated<string | null>;
}

/** A console user's private calendar URL (migration 0035, CONTRACT §20): only its token's hash is kept. */
export interface CalendarUrlTable {
  id: Generated<number>;
  business_id: number;
  user_id: number;
  /** SHA-256 of the URL's token, hex. */
  token_hash: string;
  created_at: string;
  /** When it stopped answering (revoked, or replaced by a new URL); null while it is the user's live URL. */
  revoked_at: string | null;
}

/**
 * What a lead is told about a viewing (migration 0039, CONTRACT §20): the purpose, the start and
 * `sequence` of the viewing it speaks of, and the message carrying it (null: nothing could carry
 * it, or a reminder not needed).
 */
export interface ViewingNoticeTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  viewing_id: number;
  /** `scheduled`, `rescheduled`, `cancelled` or `reminder`. */
  purpose: string;
  starts_at: string;
  sequence: number;
  message_id: number | null;
  /** The e-mail standing in for the notice's template when that failed for good. */
  fallback_message_id: Generated<number | null>;
  created_at: string;
}

/** A one-click link of a viewing notice's e-mail (migration 0039): only its token's SHA-256 (hex) is kept. */
export interface ViewingLinkTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  viewing_id: number;
  /** `confirm` or `cancel`. */
  action: string;
  /** The viewing's start the e-mail told (a link of a moved viewing does nothing). */
  starts_at: string;
  token_hash: string;
  created_at: string;
  used_at: string | null;
}

/**
 * A visit sheet signed by the visitor on the agent's screen (migration 0040, CONTRACT §20): one per
 * viewing. Personal data (CONTRACT §18): exported and erased with the viewing's lead.
 */
export interface VisitSheetTable {
  viewing_id: number;
  business_id: number;
  visitor_name: string;
  /** `dni`, `nie`, or `other` (a passport or another identity document). */
  document_type: 'dni' | 'nie' | 'other';
  /** Upper case, without spaces, dots or dashes. */
  document_number: string;
  /** The signature: PNG bytes as inmo re-encoded them (media/signature.ts). */
  signature_png: Buffer;
  /** The agency's clause as it read when the sheet was signed. */
  clause: string;
  signed_at: string;
  /** The console user who collected it. */
  user_id: number;
}

/**
 * A version of a listing's mandate (migration 0062, CONTRACT §24): the terms, then, once
 * `signed`, who signed, how, and with which clause; never edited after. Money in whole euros,
 * `fee_percent_bp` hundredths of a percent, dates `YYYY-MM-DD` of the business, booleans 0/1.
 */
export interface MandateTable {
  id: Generated<number>;
  business_id: number;
  property_id: number;
  owner_lead_id: number | null;
  version: number;
  kind: 'exclusive' | 'open';
  operation: 'venta' | 'alquiler';
  asking_price: number;
  starts_on: string;
  ends_on: string;
  fee_percent_bp: number | null;
  fee_amount: number | null;
  minimum_fee: number | null;
  vat: 'included' | 'excluded';
  keys: number;
  sign_board: number;
  keep_listed_after_expiry: number;
  status: 'draft' | 'signed' | 'ended' | 'expired';
  signed_at: string | null;
  signed_how: 'screen' | 'link' | null;
  signer_name: string | null;
  signer_document_type: 'dni' | 'nie' | 'other' | null;
  signer_document: string | null;
  signature_png: Buffer | null;
  clause: string | null;
  ended_reason: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A one-use link `/m/<token>` to sign a mandate remotely (migration 0062): only the token's SHA-256 kept, valid 7 days. */
export interface MandateLinkTable {
  id: Generated<number>;
  business_id: number;
  mandate_id: number;
  /** The e-mail that carries it. */
  message_id: number | null;
  /** Null until its e-mail is written (the token minted then). */
  token_hash: string | null;
  expires_at: string | null;
  used_at: string | null;
  created_at: string;
}

/** Views of a listing's page (`page`) or the kit's detail (`kit`) in one UTC hour (`YYYY-MM-DDTHH`), migration 0063: nothing about the visitor. */
export interface ListingViewTable {
  property_id: number;
  source: 'page' | 'kit';
  hour: string;
  views: number;
}

/** A request about a listing that reached a lead, with the request's source (migration 0063). */
export interface ListingInquiryTable {
  id: Generated<number>;
  business_id: number;
  property_id: number;
  lead_id: number;
  source: string | null;
  created_at: string;
}

/** A change of a listing's price (€), written by a trigger (migration 0063). */
export interface PropertyPriceChangeTable {
  id: Generated<number>;
  property_id: number;
  field: 'price' | 'price_rent' | 'price_transfer';
  old_price: number | null;
  new_price: number | null;
  changed_at: string;
}

/** An owner's report as composed and sent (migration 0063, CONTRACT §24): `figures` JSON never rewritten. */
export interface OwnerReportTable {
  id: Generated<number>;
  business_id: number;
  lead_id: number;
  period_from: string;
  period_to: string;
  figures: string;
  language: string;
  message_id: number | null;
  page_token_hash: string | null;
  created_at: string;
}

export interface Database {
  businesses: BusinessTable;
  listing_views: ListingViewTable;
  listing_inquiries: ListingInquiryTable;
  property_price_changes: PropertyPriceChangeTable;
  owner_reports: OwnerReportTable;
  mandates: MandateTable;
  mandate_links: MandateLinkTable;
  api_keys: ApiKeyTable;
  properties: PropertyTable;
  property_docs: PropertyDocTable;
  property_pages: PropertyPageTable;
  property_images: PropertyImageTable;
  property_videos: PropertyVideoTable;
  leads: LeadTable;
  lead_notes: LeadNoteTable;
  lead_history: LeadHistoryTable;
  lead_consents: LeadConsentTable;
  lead_interactions: LeadInteractionTable;
  jobs: JobTable;
  schedule_runs: ScheduleRunTable;
  lead_matches: LeadMatchTable;
  lead_match_runs: LeadMatchRunTable;
  channels: ChannelTable;
  messages: MessageTable;
  conversations: ConversationTable;
  webhook_events: WebhookEventTable;
  follow_up_rules: FollowUpRuleTable;
  follow_ups: FollowUpTable;
  deferred_indexes: DeferredIndexTable;
  users: UserTable;
  user_tokens: UserTokenTable;
  console_sessions: ConsoleSessionTable;
  catalogue_imports: CatalogueImportTable;
  idempotency_keys: IdempotencyKeyTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  published_feeds: PublishedFeedTable;
  feed_sources: FeedSourceTable;
  feed_source_refs: FeedSourceRefTable;
  import_refs: ImportRefTable;
  lead_erasures: LeadErasureTable;
  audit_log: AuditLogTable;
  media_objects: MediaObjectTable;
  inbound_email_tokens: InboundEmailTokenTable;
  inbound_emails: InboundEmailTable;
  email_pulls: EmailPullTable;
  email_settings: EmailSettingsTable;
  unsubscribe_tokens: UnsubscribeTokenTable;
  viewings: ViewingTable;
  calendar_urls: CalendarUrlTable;
  alert_candidates: AlertCandidateTable;
  alert_digests: AlertDigestTable;
  alert_items: AlertItemTable;
  alert_match_prices: AlertMatchPriceTable;
  lead_dismissals: LeadDismissalTable;
  visit_sheets: VisitSheetTable;
  viewing_notices: ViewingNoticeTable;
  viewing_links: ViewingLinkTable;
}

export type LeadRow = Selectable<LeadTable>;

/** `true` where the check holds; any other type argument does not compile. */
type Holds<T extends true> = T;
/** `A` and `B` have the same fields, of the same types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The properties tables hold exactly what an import line decides (domain/catalogue/property-record.ts):
 * these compile only while they do, so a column added to one side must be added to the other.
 */
export type PropertiesHoldListings = Holds<
  Same<
    Omit<
      Selectable<PropertyTable>,
      | 'id'
      | 'business_id'
      | 'change_seq'
      | 'imported_at'
      | 'address_privacy'
      | 'agent_user_id'
      | 'search_text'
      | 'closed_price'
      | 'closed_on'
      // Set in the console, not by the import line (CONTRACT §24; the import's `owner` is to come).
      | 'owner_lead_id'
    >,
    Omit<PropertyFields, 'address_privacy'>
  >
>;
export type ImagesHoldListingImages = Holds<Same<Omit<Selectable<PropertyImageTable>, 'id' | 'property_id'>, ImageInput>>;
export type VideosHoldListingVideos = Holds<Same<Omit<Selectable<PropertyVideoTable>, 'id' | 'property_id'>, VideoInput>>;

/** The leads table holds the domain's view of a stored lead (domain/leads/presenter.ts): this compiles only while it does. */
export type LeadsHoldPresentedRow = Holds<Pick<LeadRow, keyof PresentedRow> extends PresentedRow ? true : false>;
export type NewLead = Insertable<LeadTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
