/**
 * The console's forms (CONTRACT §12), field by field: what each form posts, read by
 * http/console/forms.ts `readForm` with the same validator as the API's query parameters. The
 * rules of the workspace (an e-mail's shape, a key's scopes with its kind, a channel's URLs)
 * stay in the services the forms call; these schemas say what a well-formed form is.
 *
 * Lengths are characters. A field a page leaves empty posts `''`.
 */
import { Type } from '@sinclair/typebox';
import { SCOPES } from '../domain/access/api-key.ts';
import { FEED_FORMATS } from '../domain/catalogue/feed-formats.ts';
import { Literals } from './common.ts';

/** Longest API key name. */
export const KEY_NAME_MAX = 100;
/** Longest e-mail address (RFC 5321's path limit). */
const EMAIL_MAX = 254;
/** Longest password accepted (scrypt hashes any length; this only bounds the work). */
const PASSWORD_MAX = 1024;
/** Longest display name as posted: the service trims it, then allows 80 characters (services/access/console-users.ts). */
const DISPLAY_NAME_FIELD_MAX = 320;
/** Longest URL or other one-line setting. */
const LINE_MAX = 2048;

const text = (maxLength: number) => Type.String({ maxLength });

/** `POST /console/login`. */
export const LoginForm = Type.Object({ email: text(EMAIL_MAX), password: text(PASSWORD_MAX), next: text(LINE_MAX) });

/** `POST /console/set-password/:token`. */
export const SetPasswordForm = Type.Object({ password: text(PASSWORD_MAX), password_confirm: text(PASSWORD_MAX) });

/**
 * `POST /console/keys`: a key's name, scopes (a checkbox each; the page asks for one at least),
 * expiry day (`YYYY-MM-DD`, or '' for none), kind and origins (one per line).
 */
export const KeyForm = Type.Object({
  name: text(KEY_NAME_MAX),
  scopes: Type.Array(Literals(SCOPES)),
  expires_on: text(10),
  kind: Literals(['secret', 'publishable'] as const, { default: 'secret' }),
  origins: text(16 * LINE_MAX),
});

/** `POST /console/users`: an invitation. */
export const UserForm = Type.Object({ email: text(EMAIL_MAX), role: text(20), name: text(DISPLAY_NAME_FIELD_MAX) });

/** `POST /console/users/:id/name`: a user's display name ('' takes it away). */
export const UserNameForm = Type.Object({ name: text(DISPLAY_NAME_FIELD_MAX) });

/** `POST /console/channel`: the WhatsApp channel; the token and app secret are write-only ('' keeps the stored ones). */
export const ChannelForm = Type.Object({
  phone_number_id: text(64),
  template: text(512),
  languages: text(LINE_MAX),
  listing_url: text(LINE_MAX),
  base_url: text(LINE_MAX),
  access_token: text(4096),
  app_secret: text(LINE_MAX),
  /** Approved templates by purpose (CONTRACT §20, §21); blank: none, that purpose goes by e-mail. */
  template_viewing_scheduled: text(512),
  template_viewing_rescheduled: text(512),
  template_viewing_cancelled: text(512),
  template_viewing_reminder: text(512),
  template_valuation_scheduled: text(512),
  template_valuation_rescheduled: text(512),
  template_valuation_cancelled: text(512),
  template_valuation_reminder: text(512),
  template_property_alert: text(512),
  template_owner_report: text(512),
});

/** `POST /console/channel/test`: the number a test template goes to, as people type it. */
export const ChannelTestForm = Type.Object({ test_phone: text(64) });

/** `POST /console/email`: the business's SMTP server (CONTRACT §19); the password is write-only. */
export const EmailForm = Type.Object({
  host: text(253),
  port: text(5),
  security: text(10),
  user: text(LINE_MAX),
  password: text(LINE_MAX),
  from: text(254),
  reply_to: text(254),
});

/**
 * `POST /console/email/pulls`: a mailbox to read over IMAP (CONTRACT §25): its server, `security`
 * `tls` (imaps://) or `none` (imap://, only where `INMO_ALLOW_PRIVATE_NETWORK=1`), the login and the
 * folder (INBOX when blank).
 */
export const EmailPullForm = Type.Object({
  host: text(253),
  port: text(5),
  security: text(10),
  user: text(LINE_MAX),
  password: text(LINE_MAX),
  folder: text(200),
});

/** `POST /console/email/test`: the address a test e-mail goes to. */
export const EmailTestForm = Type.Object({ test_to: text(254) });

/** `POST /console/email/messages/:id/lead`: the lead an agent makes of an e-mail not understood (CONTRACT §19). */
export const EmailLeadForm = Type.Object({
  name: text(200),
  phone: text(64),
  email: text(254),
  message: text(10_000),
  reference: text(LINE_MAX),
  source: text(20),
});

/** `POST /console/follow-ups`: a lead type's follow-up period, days. */
export const FollowUpRuleForm = Type.Object({ type: text(40), every_days: Type.Integer({ minimum: 1, maximum: 3650 }) });

/**
 * `POST /console/leads/:lead_id/reply`: an agent's message (the conversation rules bound its
 * length), by `channel` `whatsapp` or `email` (CONTRACT §25); empty or anything else: WhatsApp inside
 * its window, else e-mail.
 */
export const ReplyForm = Type.Object({ text: text(100_000), channel: Type.String({ maxLength: 20, default: '' }) });

/**
 * `POST /console/properties` (create) and `POST /console/properties/:id` (edit): a listing, its
 * fields named as in the import format (CONTRACT §14). Everything is text here; the import
 * format's own schema and rules check the listing these become (services/catalogue/listings.ts).
 * Checkboxes: `operation` and `features` (one value per checked box), `public` and `is_featured` (`1`).
 *
 * Languages and facts (CONTRACT §22): `title` and `description` are the Spanish ones, `titles.en`,
 * `descriptions.en` (and `fr`, `de`, `it`) the others; `energy_certificate.status`,
 * `energy_certificate.rating`, `energy_certificate.consumption_kwh_m2_year` (kWh/m² a year),
 * `energy_certificate.emissions_kg_co2_m2_year` (kg CO₂/m² a year), `floor`, `community_fees`
 * (€ a month), `year_built` and `condition`. A post that leaves one of these out altogether
 * (not even empty) keeps what the listing holds (http/console/sections/listings.ts).
 */
export const ListingForm = Type.Object({
  external_ref: text(200),
  title: text(10_000),
  description: text(100_000),
  'titles.en': text(10_000),
  'titles.fr': text(10_000),
  'titles.de': text(10_000),
  'titles.it': text(10_000),
  'descriptions.en': text(100_000),
  'descriptions.fr': text(100_000),
  'descriptions.de': text(100_000),
  'descriptions.it': text(100_000),
  operation: Type.Array(text(20), { maxItems: 3 }),
  rental_type: text(20),
  type: text(40),
  subtype: text(100),
  price: text(40),
  price_rent: text(40),
  price_transfer: text(40),
  size_total: text(40),
  bedrooms: text(40),
  bathrooms: text(40),
  address: text(500),
  address_approximate: text(500),
  building_name: text(200),
  postal_code: text(20),
  city: text(200),
  province: text(200),
  country: text(200),
  lat: text(40),
  lon: text(40),
  address_privacy: text(20),
  status: text(20),
  public: text(1),
  is_featured: text(1),
  features: Type.Array(text(100), { maxItems: 500 }),
  'energy_certificate.status': text(20),
  'energy_certificate.rating': text(20),
  'energy_certificate.consumption_kwh_m2_year': text(40),
  'energy_certificate.emissions_kg_co2_m2_year': text(40),
  floor: text(100),
  community_fees: text(40),
  year_built: text(40),
  condition: text(40),
});

/** `POST /console/properties/:id/status`: the status a listing moves to, and the page to return to. */
export const ListingStatusForm = Type.Object({
  status: text(20),
  back: text(LINE_MAX),
  /** For `vendida` and `alquilada` (CONTRACT §23): the price (€; the rent a month) and the day (`YYYY-MM-DD`), as typed. */
  closed_price: text(40),
  closed_on: text(20),
});

/**
 * `POST /console/properties/:id/action`: a listing's one control in the list (CONTRACT §23): a
 * status to move to, or `publish`, `unpublish`, `feature`, `unfeature`; and the page to return to.
 */
export const ListingRowActionForm = Type.Object({ action: text(20), back: text(LINE_MAX) });

/**
 * `POST /console/properties/bulk` (CONTRACT §23): what to do (services/catalogue/listings.ts
 * `BULK_ACTIONS`) to the listings ticked (their ids, a checkbox each), and the list to return to.
 */
export const ListingBulkForm = Type.Object({ action: text(20), ids: Type.Array(text(20), { maxItems: 1000 }), back: text(LINE_MAX) });

/** `POST /console/properties/:id/public` and `/featured`: `1` switches on, anything else off; and the page to return to. */
export const ListingSwitchForm = Type.Object({ value: text(1), back: text(LINE_MAX) });

/** `POST /console/properties/:id/images/:image_id`: what to do to a photo (services/catalogue/photos.ts `PHOTO_ACTIONS`), and its title. */
export const PhotoForm = Type.Object({ action: text(20), title: text(500) });

/** `POST /console/catalogue/sources`: a feed URL to pull, and minutes between pulls (services/catalogue/feeds/pulls.ts checks both). */
export const FeedSourceForm = Type.Object({ url: text(LINE_MAX), every_minutes: Type.Integer({ default: 360 }) });

/** `POST /console/catalogue/feeds` (CONTRACT §15, §22): the format (Kyero when left out) and, for idealista, the agency's customer code. */
export const FeedPublishForm = Type.Object({ format: Literals(FEED_FORMATS, { default: 'kyero' }), customer_code: text(100) });

/** `POST /console/leads/:id/status` (CONTRACT §16): a status code, and an optional reason. */
export const LeadStatusForm = Type.Object({ status: text(40), reason: text(500) });

/** `POST /console/leads/:id/notes`: a note, at most 5,000 characters. */
export const LeadNoteForm = Type.Object({ text: text(5000) });

/** `POST /console/leads/:id/alerts` (CONTRACT §21): "wants alerts" on ('1', a checkbox) or off (''). */
export const LeadAlertsForm = Type.Object({ wants_alerts: Type.String({ maxLength: 1 }) });

/** `POST /console/leads/:id/send` (CONTRACT §21 "By hand"): the listings ticked, a reference typed, and `email` or `whatsapp`. */
export const HandSendForm = Type.Object({
  property_id: Type.Array(text(20), { maxItems: 1000 }),
  property_ref: text(200),
  channel: text(20),
});

/** `POST /console/leads/:id/assign`: a user id, or '' for nobody. */
export const LeadAssignForm = Type.Object({ user_id: Type.String({ maxLength: 15, pattern: '^[0-9]*$' }) });

/** `POST /console/assistant` (CONTRACT §16): on ('1', a checkbox) or off (''), the listing URL template, and the model endpoint ('' url: the built-in assistant; the key is write-only). */
export const AssistantForm = Type.Object({
  enabled: Type.String({ maxLength: 1 }),
  listing_url: text(LINE_MAX),
  url: text(LINE_MAX),
  model: text(200),
  api_key: text(4096),
});

/** `POST /console/leads/:id/follow-ups/:id/move`: the day it moves to (`YYYY-MM-DD`). */
export const FollowUpMoveForm = Type.Object({ day: Type.String({ maxLength: 10, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }) });

/** `POST /console/assistant/test`: the number the answer goes to, as people type it, and a lead's message. */
export const AssistantTestForm = Type.Object({ test_phone: text(64), test_text: text(1000) });

/**
 * `POST /console/leads/:id/viewings` and `POST /console/properties/:id/viewings` (CONTRACT §20): a
 * viewing booked from the lead's page (`property_id`, or the listing's reference in
 * `property_ref`) or the listing's (`lead_id`), on the business's local `date` (`YYYY-MM-DD`) at
 * `time` (`HH:MM`), `duration_minutes` long (30 when left empty), with the agent `user_id` (empty:
 * the listing's agent, else any free one). Everything is text here; services/viewings/console.ts
 * says what a field holds wrong.
 */
export const ViewingForm = Type.Object({
  property_id: text(20),
  property_ref: text(200),
  lead_id: text(20),
  date: text(10),
  time: text(8),
  duration_minutes: text(5),
  user_id: text(20),
  kind: text(12),
});

/** The longest comment of a viewing's feedback. */
export const VIEWING_COMMENT_MAX = 2000;

/**
 * `POST /console/viewings/:id` (CONTRACT §20): `action` (`confirm`, `cancel`, `done`, `no_show`,
 * `reschedule` with `date` and `time`, `feedback` with `interest` 1–5 and `comment`), and `back`
 * (`today`: "Hoy"; `viewing`: the viewing's page; an agenda's URL; else the lead's page).
 */
export const ViewingActionForm = Type.Object({
  action: text(20),
  back: text(LINE_MAX),
  date: text(10),
  time: text(8),
  interest: text(1),
  comment: text(VIEWING_COMMENT_MAX),
});
