/**
 * The closed catalogue of errors a client or an operator can meet (spec §7, CONTRACT §2, §3):
 * one code per fault, with its HTTP status and its `detail`, the English sentence of the
 * `{"detail": …}` body, and, where the CLI names an option instead, its `cli` message. Services and domain functions throw {@link InmoError}s by code; the
 * one error handler of the HTTP server (http/request-pipeline.ts) renders them, and the CLI
 * prints their detail. No detail is written anywhere else: a new error is a new line here.
 *
 * The Pydantic-shaped 422 (a list of faults, not a sentence) is {@link RequestValidationError}.
 */
import type { Scope } from './domain/access/api-key.ts';
import { SLOT_TAKEN_DETAIL } from './domain/viewings/slot-taken.ts';

interface ErrorSpec<P> {
  status: number;
  /** The message over HTTP (the `detail` of the body), and in the CLI when `cli` is not set. */
  detail: string | ((params: P) => string);
  /** The CLI's own message, naming its option (`--email …`), where it differs from `detail`. */
  cli?: string | ((params: P) => string);
  /** Headers every response of this error carries. */
  headers?: Readonly<Record<string, string>>;
}

/** 401s carry `WWW-Authenticate: ApiKey` (CONTRACT §3). */
const UNAUTHORIZED = { status: 401, headers: { 'www-authenticate': 'ApiKey' } } as const;

const spec = <P = void>(s: ErrorSpec<P>) => s;

export const ERRORS = {
  NOT_FOUND: spec({ status: 404, detail: 'Not Found' }),
  METHOD_NOT_ALLOWED: spec({ status: 405, detail: 'Method Not Allowed' }),
  BAD_REQUEST: spec({ status: 400, detail: 'Bad Request' }),
  BODY_TOO_LARGE: spec({ status: 413, detail: 'Request body too large' }),
  REQUEST_TIMEOUT: spec({ status: 408, detail: 'Request body not received in time' }),
  INTERNAL: spec({ status: 500, detail: 'Internal Server Error' }),
  RATE_LIMITED: spec<{ seconds: number }>({ status: 429, detail: ({ seconds }) => `Too many requests: retry in ${seconds} s` }),

  // Authentication (spec §5, CONTRACT §3): fixed messages that say what to do. An unknown key
  // id and a wrong secret share one. A missing scope is named: the OpenAPI document publishes it.
  KEY_MISSING: spec({ ...UNAUTHORIZED, detail: 'Missing API key: send it in the X-Api-Key header' }),
  KEY_MALFORMED: spec({ ...UNAUTHORIZED, detail: 'Malformed API key' }),
  KEY_SCHEME: spec({
    ...UNAUTHORIZED,
    detail: 'Unsupported authorization scheme: send the key in the X-Api-Key header or as Authorization: ApiKey <key>',
  }),
  KEY_INVALID: spec({ ...UNAUTHORIZED, detail: 'Invalid API key' }),
  KEY_REVOKED: spec({ ...UNAUTHORIZED, detail: 'API key has been revoked' }),
  KEY_EXPIRED: spec({ ...UNAUTHORIZED, detail: 'API key has expired' }),
  KEY_LACKS_SCOPE: spec<{ scope: Scope }>({
    ...UNAUTHORIZED,
    detail: ({ scope }) => `API key lacks the scope this operation requires: ${scope}`,
  }),

  // Publishable keys (CONTRACT §13).
  KEY_ORIGIN_REFUSED: spec({
    status: 403,
    detail: 'This publishable key may be used only from the web origins it was created for',
  }),
  KEY_SECRET_IN_BROWSER: spec({
    status: 403,
    detail: 'A secret key must not be used from a web page: create a publishable key (AC_PUB_) for browser forms',
  }),
  KEY_ORIGIN_INVALID: spec({
    status: 400,
    detail: 'An allowed origin must be a web origin such as https://site.example (scheme, host and port only)',
    cli: '--origin must be a web origin such as https://site.example (scheme, host and port only)',
  }),
  KEY_PUBLISHABLE_SCOPE: spec({
    status: 400,
    detail: 'A publishable key may only have the scopes properties:read, leads:ingest and viewings:write',
  }),
  EMBED_KEY: spec({
    status: 400,
    detail: 'The website kit needs an active publishable key (AC_PUB_…) of this business',
    cli: '--key must be an active publishable key (AC_PUB_…) of this business: inmo keys create --publishable --origin https://site.example',
  }),
  EMBED_URL: spec({
    status: 400,
    detail: "The server's public URL must be an http(s) URL",
    cli: '--url must be an http(s) URL, e.g. https://inmo.agency.example',
  }),

  // The catalogue and leads (spec §4, CONTRACT §6).
  PROPERTY_NOT_FOUND: spec({ status: 404, detail: 'Property not found' }),
  // The console's listings (CONTRACT §14).
  LISTING_STATUS_MOVE: spec<{ from: string; to: string }>({
    status: 409,
    detail: ({ from, to }) => `A listing that is ${from} cannot become ${to} in one step: edit it to change its status`,
  }),
  // Idempotency-Key (CONTRACT §13).
  IDEMPOTENCY_KEY_REUSED: spec({ status: 422, detail: 'Idempotency-Key reused with a different request body' }),
  IDEMPOTENCY_KEY_IN_FLIGHT: spec({
    status: 409,
    detail: 'A request with this Idempotency-Key is still being processed: retry in a second',
    headers: { 'retry-after': '1' },
  }),
  INVALID_PHONE: spec({ status: 422, detail: 'Invalid phone number. Use international format, e.g. +34612345678' }),
  DUPLICATE_PHONE: spec({ status: 409, detail: 'A lead with this phone number already exists' }),
  // PATCH /leads/{id} (CONTRACT §25): the new primary phone is another lead's.
  LEAD_PHONE_TAKEN: spec({ status: 409, detail: 'Another lead of the business has this phone number' }),
  // The console's lead page linking a portal e-mail's listing (issue 57).
  EMAIL_LISTING_NOT_FOUND: spec({ status: 400, detail: 'No listing of the business has this reference' }),
  // A listing's owner must be a `propietario` lead (CONTRACT §24, issue 58).
  LISTING_OWNER_NOT_PROPIETARIO: spec({ status: 422, detail: 'The owner of a listing must be a lead of type propietario' }),
  // The owner pipeline (CONTRACT §24, issue 58 item 2).
  OWNER_STAGE_NOT_PROPIETARIO: spec({ status: 422, detail: 'Only a lead of type propietario has an owner stage' }),
  OWNER_STAGE_UNKNOWN: spec({
    status: 422,
    detail: 'The owner stage must be one of new, valuation_scheduled, valued, mandate_signed, lost',
  }),
  LEAD_NOT_STORED: spec({ status: 400, detail: 'The lead could not be stored' }),
  /** spec §4.3 rule 3: a malformed ingest `search.budget` is a documented 500. */
  MALFORMED_BUDGET: spec({ status: 500, detail: 'Internal Server Error' }),

  // Operator errors (CLI; the console will show the same).
  UNKNOWN_BUSINESS: spec<{ id: number }>({ status: 404, detail: ({ id }) => `Business ${id} does not exist` }),
  JOB_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No job with id ${id}` }),
  JOB_NOT_FAILED: spec<{ id: number; state: string }>({
    status: 409,
    detail: ({ id, state }) => `Job ${id} has not failed: it is ${state}, and runs by itself`,
  }),
  JOB_RETRY_UNSAFE: spec<{ id: number; state: string }>({
    status: 409,
    detail: ({ id, state }) =>
      `Job ${id} is not retried: its message is ${state}, so WhatsApp may have it already, and the lead would get it twice`,
  }),
  WEBHOOK_URL: spec({
    status: 400,
    detail:
      'A webhook URL must be an https URL on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http and private, loopback or link-local addresses)',
    cli: '--url must be an https URL on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http and private, loopback or link-local addresses)',
  }),
  WEBHOOK_EVENTS: spec<{ types: readonly string[] }>({
    status: 400,
    detail: ({ types }) => `Event types must be among: ${types.join(', ')}`,
    cli: ({ types }) => `--events must list event types among: ${types.join(', ')}`,
  }),
  FEED_SOURCE_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No feed source with id ${id}` }),
  FEED_SOURCE_URL: spec({
    status: 400,
    detail:
      'A feed URL must be an https URL, without a user or password, on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http and private, loopback or link-local addresses)',
    cli: '--url must be an https URL, without a user or password, on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http and private, loopback or link-local addresses)',
  }),
  FEED_SOURCE_PERIOD: spec({ status: 400, detail: 'A feed is pulled every 5 to 10,080 minutes (a week)' }),
  // Catalogue imports and pulls (CONTRACT §15): a document that cannot be a catalogue is refused whole.
  IMPORT_DOCUMENT_EMPTY: spec({
    status: 422,
    detail: 'The document is empty (nothing but white space or a byte order mark): refused, nothing imported or withdrawn',
  }),
  IMPORT_FULL_NO_LISTINGS: spec({
    status: 422,
    detail: 'The document names no listing: as the whole catalogue it would withdraw every listing; refused, nothing imported or withdrawn',
  }),
  IMPORT_DOCUMENT_UNKNOWN: spec({
    status: 422,
    detail: 'The document is neither NDJSON (one JSON object per line) nor a Kyero v3 XML feed: refused, nothing imported or withdrawn',
  }),
  FEED_PULL_NOT_HELD: spec<{ id: number }>({
    status: 409,
    detail: ({ id }) => `Feed source ${id} has no pull waiting for confirmation, or a newer pull replaced it: look again`,
  }),
  FEED_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No published feed with id ${id}` }),
  // idealista feeds (CONTRACT §22): the customer code idealista gave the agency names it in the document.
  FEED_CUSTOMER_CODE: spec({
    status: 400,
    detail: "An idealista feed needs the agency's idealista customer code: ilc followed by 40 lower-case letters or digits",
    cli: "--customer-code must be the agency's idealista customer code: ilc followed by 40 lower-case letters or digits",
  }),
  FEED_CUSTOMER_CODE_UNUSED: spec({
    status: 400,
    detail: 'A customer code belongs to idealista feeds only',
    cli: '--customer-code is for --format idealista only',
  }),
  WEBHOOK_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No webhook endpoint with id ${id}` }),
  WEBHOOK_DELIVERY_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No webhook delivery with id ${id}` }),
  USER_EMAIL_INVALID: spec({
    status: 400,
    detail: 'The email must be an email address, e.g. ana@agency.example',
    cli: '--email must be an email address, e.g. ana@agency.example',
  }),
  USER_NAME_INVALID: spec({
    status: 400,
    detail: 'The name must be 1 to 80 characters of text, e.g. Ana García',
    cli: '--name must be 1 to 80 characters of text, e.g. "Ana García"',
  }),
  USER_EMAIL_TAKEN: spec<{ email: string }>({ status: 409, detail: ({ email }) => `A user with email ${email} already exists` }),
  USER_ROLE_UNKNOWN: spec({ status: 400, detail: 'The role must be owner or agent', cli: '--role must be owner or agent' }),
  USER_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No user with id ${id}` }),
  // Agents' calendars (CONTRACT §20): a private calendar URL is made only for a user who can sign in.
  CALENDAR_USER_DISABLED: spec<{ id: number }>({
    status: 409,
    detail: ({ id }) => `User ${id} is disabled: a calendar URL is made only for an active user`,
  }),
  FOLLOW_UP_TYPE_UNKNOWN: spec<{ types: readonly string[]; aliases: readonly string[] }>({
    status: 400,
    detail: ({ types, aliases }) =>
      `The lead type must be one of: ${types.join(', ')} (or an alias the API accepts: ${aliases.join(', ')})`,
    cli: ({ types, aliases }) => `--type must be one of: ${types.join(', ')} (or an alias the API accepts: ${aliases.join(', ')})`,
  }),
  FOLLOW_UP_PERIOD: spec({
    status: 400,
    detail: 'The follow-up period must be a whole number of days from 1 to 3650',
    cli: '--every-days must be a whole number of days from 1 to 3650',
  }),
  FOLLOW_UP_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No follow-up with id ${id}` }),
  FOLLOW_UP_NOT_DUE: spec<{ id: number; state: string }>({
    status: 409,
    detail: ({ id, state }) => `Follow-up ${id} is not due: it is ${state}`,
  }),
  CHANNEL_PROVIDER: spec<{ providers: readonly string[] }>({
    status: 400,
    detail: ({ providers }) => `The provider must be one of: ${providers.join(', ')}`,
    cli: ({ providers }) => `--provider must be one of: ${providers.join(', ')}`,
  }),
  CHANNEL_PHONE_NUMBER_ID_BLANK: spec({
    status: 400,
    detail: 'The phone number id must not be blank',
    cli: '--phone-number-id must not be blank',
  }),
  CHANNEL_TEMPLATE_BLANK: spec({ status: 400, detail: 'The template name must not be blank', cli: '--template must not be blank' }),
  CHANNEL_TEMPLATES: spec<{ reason: string }>({
    status: 400,
    detail: ({ reason }) => `The templates by purpose are not valid: ${reason}`,
    cli: ({ reason }) => `--template-for: ${reason}`,
  }),
  CHANNEL_TOKEN_ENV_NOT_A_NAME: spec({
    status: 400,
    detail: 'The access token must come from an environment variable named for it, not be given as the name',
    cli: '--token-env must be the NAME of an environment variable holding the token, not the token',
  }),
  CHANNEL_TOKEN_ENV_UNSET: spec<{ name: string }>({
    status: 400,
    detail: ({ name }) => `The environment variable ${name} that should hold the access token is not set`,
    cli: ({ name }) => `the environment variable ${name} named by --token-env is not set`,
  }),
  CHANNEL_BASE_URL: spec({
    status: 400,
    detail: 'The Graph API base URL must be an https URL on graph.facebook.com, or on a host INMO_CHANNEL_HOSTS names',
    cli: '--base-url must be an https URL on graph.facebook.com, or on a host INMO_CHANNEL_HOSTS names',
  }),
  CHANNEL_TOKEN_REQUIRED: spec({
    status: 400,
    detail:
      'An access token is needed: none is stored, or the base URL has changed (a stored token goes only to the address it was saved for)',
  }),
  CHANNEL_SECRET_ENV_NOT_A_NAME: spec<{ option: string }>({
    status: 400,
    detail: () => 'The secret must come from an environment variable named for it, not be given as the name',
    cli: ({ option }) => `${option} must be the NAME of an environment variable holding the secret, not the secret`,
  }),
  CHANNEL_SECRET_ENV_UNSET: spec<{ option: string; name: string }>({
    status: 400,
    detail: ({ name }) => `The environment variable ${name} that should hold the secret is not set`,
    cli: ({ option, name }) => `the environment variable ${name} named by ${option} is not set`,
  }),
  CHANNEL_LISTING_URL: spec({
    status: 400,
    detail: 'The listing URL must be an http(s) URL with {id} (the property id) or {ref} (its external reference) in it',
    cli: '--listing-url must be an http(s) URL with {id} (the property id) or {ref} (its external reference) in it',
  }),
  CHANNEL_PHONE_NUMBER_ID_TAKEN: spec<{ id: number }>({
    status: 409,
    detail: ({ id }) => `Business ${id} has already connected this phone number id: a number's webhooks must reach one business`,
  }),
  CHANNEL_NOT_CONNECTED: spec<{ id: number }>({ status: 404, detail: ({ id }) => `Business ${id} has no channel connected` }),
  EMAIL_SMTP_URL: spec({
    status: 400,
    detail: 'The SMTP server must be given as smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (TLS)',
    cli: '--url must look like smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (TLS)',
  }),
  EMAIL_SMTP_PRIVATE: spec({
    status: 400,
    detail: 'The SMTP server is not at a public address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)',
  }),
  EMAIL_FROM: spec({ status: 400, detail: 'The From address must be an e-mail address', cli: '--from must be an e-mail address' }),
  EMAIL_REPLY_TO: spec({
    status: 400,
    detail: 'The Reply-To address must be an e-mail address',
    cli: '--reply-to must be an e-mail address',
  }),
  EMAIL_TO: spec({ status: 400, detail: 'The recipient must be an e-mail address' }),
  EMAIL_NOT_CONNECTED: spec<{ id: number }>({
    status: 404,
    detail: ({ id }) => `Business ${id} sends no e-mail: connect an SMTP server (inmo email connect) or set INMO_SMTP_URL`,
  }),
  ASSISTANT_URL: spec({
    status: 400,
    detail: "The assistant's URL must be an http(s) URL of an OpenAI-compatible API (e.g. https://api.openai.com/v1)",
    cli: '--url must be an http(s) URL of an OpenAI-compatible API (e.g. https://api.openai.com/v1)',
  }),
  ASSISTANT_MODEL_BLANK: spec({ status: 400, detail: 'The model name must not be blank', cli: '--model must not be blank' }),

  // Conversations (CONTRACT §10).
  LEAD_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: 'Lead not found', cli: ({ id }) => `No lead with id ${id}` }),
  CONVERSATION_NOT_FOUND: spec<{ id: number }>({
    status: 404,
    detail: ({ id }) => `Lead ${id} has no conversation: it has not written on WhatsApp`,
  }),
  REPLY_BLANK: spec({ status: 400, detail: 'The reply must not be blank' }),
  REPLY_TOO_LONG: spec<{ max: number }>({
    status: 400,
    detail: ({ max }) => `The reply must be at most ${max} characters (WhatsApp's limit)`,
  }),
  REPLY_NO_CHANNEL: spec({ status: 409, detail: 'The business has no WhatsApp channel connected' }),
  REPLY_NO_EMAIL: spec({ status: 409, detail: 'The lead has no e-mail address to reply to' }),
  REPLY_EMAIL_OFF: spec({
    status: 409,
    detail: 'The business sends no e-mail: connect an SMTP server (inmo email connect) or set INMO_SMTP_URL',
  }),
  REPLY_OPTED_OUT: spec({
    status: 409,
    detail: 'The lead opted out of messages; resume the conversation only if they asked to be contacted again',
    cli: 'The lead opted out of messages; resume the conversation with --opted-in only if they asked to be contacted again',
  }),
  RESUME_OPTED_OUT: spec<{ id: number }>({
    status: 409,
    detail: ({ id }) => `Lead ${id} opted out of messages: resume only if they asked to be contacted again`,
    cli: ({ id }) => `Lead ${id} opted out of messages: resume with --opted-in only if they asked to be contacted again`,
  }),
  REPLY_WINDOW_CLOSED: spec<{ closedAt: string | null }>({
    status: 409,
    detail: ({ closedAt }) =>
      closedAt === null
        ? "The lead has not written: WhatsApp allows a free-form reply only within 24 hours of the lead's last message"
        : `WhatsApp's 24-hour window closed at ${closedAt}: a free-form reply is allowed only within 24 hours of the lead's last message`,
  }),

  // Leads worked in the console (CONTRACT §16).
  LEAD_STATUS_INVALID: spec({
    status: 400,
    detail: 'The status must be one of new, searching_property, active_negotiation, closed, inactive',
  }),
  LEAD_NOTE_BLANK: spec({ status: 400, detail: 'The note must not be blank' }),
  FOLLOW_UP_DAY: spec({ status: 400, detail: 'A follow-up moves to a day (YYYY-MM-DD) after today, within 10 years' }),
  LEAD_ASSIGNEE_UNKNOWN: spec({ status: 400, detail: 'The lead can be assigned only to an active user of the business' }),
  LEAD_ASSIGN_FORBIDDEN: spec({
    status: 403,
    detail: 'Only an owner assigns leads: an agent may take a lead that nobody handles',
  }),

  // Portal e-mails in (CONTRACT §19): `POST /webhooks/email/<token>` and its addresses.
  EMAIL_CONTENT_TYPE: spec({
    status: 415,
    detail: 'Send the e-mail as it was received, with Content-Type: message/rfc822',
  }),
  EMAIL_TOO_LARGE: spec({ status: 413, detail: 'An e-mail may be at most 10 MiB (10,485,760 bytes)' }),
  EMAIL_EMPTY: spec({ status: 400, detail: 'The body is empty: send the e-mail as it was received (RFC 5322)' }),
  INBOUND_EMAIL_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No inbound e-mail address with id ${id}` }),
  EMAIL_MESSAGE_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No e-mail ${id} waits to be read by an agent` }),
  EMAIL_MESSAGE_HANDLED: spec<{ id: number }>({ status: 409, detail: ({ id }) => `E-mail ${id} was handled by someone else first` }),
  EMAIL_SOURCE: spec({ status: 422, detail: 'The source of a lead from an e-mail is idealista, fotocasa, habitaclia, pisos.com or email' }),
  EMAIL_PULL_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: ({ id }) => `No e-mail pull with id ${id}` }),
  EMAIL_PULL_URL: spec({
    status: 400,
    detail:
      'A mailbox URL must be imaps://user:password@host[:port]/MAILBOX on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows imap:// and private, loopback or link-local addresses)',
    cli: '--url must be imaps://user:password@host[:port]/MAILBOX on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows imap:// and private, loopback or link-local addresses)',
  }),
  EMAIL_PULL_PERIOD: spec({ status: 400, detail: 'A mailbox is pulled every 1 to 10,080 minutes (a week)' }),

  // Viewings (CONTRACT §20).
  VIEWING_NOT_FOUND: spec<{ id: number }>({ status: 404, detail: 'Viewing not found', cli: ({ id }) => `No viewing with id ${id}` }),
  VIEWING_SLOT_TAKEN: spec({ status: 409, detail: SLOT_TAKEN_DETAIL }),
  VIEWING_LEAD_BUSY: spec({ status: 409, detail: 'The lead has another viewing at this time' }),
  VIEWING_REQUESTS_LIMIT: spec<{ seconds: number }>({
    status: 429,
    detail: ({ seconds }) => `Too many viewing requests through this key or page in the last 24 hours: retry in ${seconds} s`,
  }),
  VIEWING_ACTION_REFUSED: spec<{ action: string; status: string }>({
    status: 409,
    detail: ({ action, status }) => `A viewing that is ${status} cannot take the action ${action}`,
  }),
  VISIT_SHEET_SIGNED: spec({ status: 409, detail: 'The visit sheet of this viewing is signed already; a signed sheet is never changed' }),
  VISIT_SHEET_REFUSED: spec<{ status: string }>({
    status: 409,
    detail: ({ status }) => `A viewing that is ${status} takes no visit sheet`,
  }),
  // Mandates (CONTRACT §24): the console's and the worker's; none reaches the external API.
  MANDATE_NOT_FOUND: spec({ status: 404, detail: 'No such mandate of the business' }),
  MANDATE_NO_OWNER: spec({
    status: 422,
    detail: 'A mandate is drafted for the listing’s owner: link a propietario lead to the listing first',
  }),
  MANDATE_SIGNED: spec({ status: 409, detail: 'A signed mandate is never changed: draft a new version and sign it' }),
  MANDATE_NOT_SIGNED: spec({ status: 409, detail: 'Only a signed mandate can be ended' }),
  MANDATE_DRAFT_CHANGED: spec({ status: 409, detail: 'The draft was saved again since it was shown: read its terms and sign again' }),
  OWNER_REPORT_DAYS: spec({ status: 422, detail: 'An owner’s reports go every 7, 14 or 30 days' }),
  MANDATE_ENDS_IN_PAST: spec({ status: 422, detail: 'The mandate’s last day has passed: change its dates before it is signed' }),
  MANDATE_END_REASON: spec({ status: 422, detail: 'Say why the mandate ends, in at most 500 characters' }),
  MANDATE_CLAUSE_TOO_LONG: spec({ status: 422, detail: 'The mandate clause is at most 6000 characters' }),
  MANDATE_LINK_NO_EMAIL: spec({ status: 422, detail: 'The owner has no e-mail address to send the signing link to' }),
  VALUATION_HOME_UNKNOWN: spec({ status: 422, detail: 'A home is valued by its property type and size: the listing has none' }),
  VALUATION_NOT_OWNER: spec({
    status: 422,
    detail: 'A valuation visit is booked for an owner (a propietario lead given by lead_id) at a listing linked to that owner',
  }),
  VIEWING_DURATION: spec({ status: 400, detail: 'A viewing lasts from 5 to 240 minutes' }),
  VIEWING_AGENT_UNKNOWN: spec({ status: 400, detail: 'A viewing can be given only to an active user of the business' }),
  VIEWING_FEEDBACK_INTEREST: spec({ status: 400, detail: 'The interest of a viewing’s feedback is a whole number from 1 to 5' }),
  TIME_ZONE_INVALID: spec({
    status: 400,
    detail: 'The time zone must be a name of the IANA time zone database, such as Europe/Madrid',
    cli: '--timezone must be a name of the IANA time zone database, such as Europe/Madrid',
  }),
  VIEWING_HOURS_INVALID: spec<{ reason: string }>({ status: 400, detail: ({ reason }) => `Invalid viewing hours: ${reason}` }),

  // Webhooks (CONTRACT §10).
  WEBHOOK_SIGNATURE: spec({ status: 401, detail: 'Invalid or missing X-Hub-Signature-256' }),
  WEBHOOK_VERIFY: spec({ status: 403, detail: 'Verification failed' }),
} as const;

export type ErrorCode = keyof typeof ERRORS;

type ParamsOf<C extends ErrorCode> = (typeof ERRORS)[C] extends ErrorSpec<infer P> ? P : never;

/** An error of the catalogue: its code, status, detail and headers. */
export class InmoError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  /** What the CLI prints: the message naming the option at fault, where the catalogue has one. */
  readonly cliMessage: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: C,
    ...[params, extraHeaders]: ParamsOf<C> extends void
      ? [params?: void, headers?: Record<string, string>]
      : [params: ParamsOf<C>, headers?: Record<string, string>]
  ) {
    const entry = ERRORS[code] as ErrorSpec<ParamsOf<C>>;
    const say = (text: string | ((params: ParamsOf<C>) => string)) => (typeof text === 'function' ? text(params as ParamsOf<C>) : text);
    super(say(entry.detail));
    this.cliMessage = say(entry.cli ?? entry.detail);
    this.name = `InmoError(${code})`;
    this.status = entry.status;
    this.headers = { ...entry.headers, ...extraHeaders };
  }

  /** The `detail` of the `{"detail": …}` body. */
  get detail(): string {
    return this.message;
  }

  /** Records the unexpected failure this error stands for (logged, never shown to a client). */
  because(cause: unknown): this {
    this.cause = cause;
    return this;
  }
}

export type Loc = Array<string | number>;

/** One fault, as FastAPI returns it inside `detail` (validation/validator.ts finds them). */
export interface ValidationIssue {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** A request whose path, query or body breaks the schema: 422 with every fault, Pydantic-shaped (CONTRACT §2). */
export class RequestValidationError extends Error {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(`${issues.length} invalid field(s)`);
    this.name = 'RequestValidationError';
  }
}
