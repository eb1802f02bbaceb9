/**
 * The kinds of background job and the payload each carries (issue 56 item 3): one map, read by
 * the code that queues a job (`enqueueJob` in db/repositories/jobs.ts is generic over the kind,
 * so a payload of the wrong shape does not compile) and by the worker, which parses a claimed
 * job's stored payload once with {@link parseJobPayload} and hands the task its typed value
 * (jobs/task.ts `TaskContext.payload`).
 *
 * It sits in db/ because the services that queue jobs may not import jobs/ (docs/architecture.md).
 * A new kind is a line here, its parser in {@link PARSERS}, and its task in jobs/tasks/index.ts;
 * the compiler refuses one without the others.
 */

/**
 * Job kind → the payload its job stores (JSON in `jobs.payload`); `null` for the kinds that carry
 * none (they work on the job's `lead_id` or `business_id`).
 *
 * `send_alert` and `send_viewing_notice` are the kinds alert digests and viewing notices were
 * queued with before the outbox (services/messaging/outbox.ts) sent every message but the
 * welcome as `send_message`: rows of theirs still stored run as `send_message` does.
 */
export interface JobPayloads {
  match_lead: null;
  send_welcome: null;
  schedule_follow_ups: null;
  follow_up: { follow_up_id: number };
  rematch_catalogue: null;
  process_webhook: { event_id: number };
  /** The inbound message to answer; the row a list reply chose (domain/messaging/viewing-offer.ts), if any. */
  assistant_reply: { message_id: number; list_reply_id?: string };
  /** A queued message of the outbox (services/messaging/outbox.ts). */
  send_message: { message_id: number };
  deliver_webhook: { delivery_id: number };
  pull_feed: { source_id: number };
  process_email: { email_id: number };
  pull_email: { pull_id: number };
  /** An alias of `send_message` (rows queued before the outbox). */
  send_alert: { message_id: number };
  /** An alias of `send_message` (rows queued before the outbox). */
  send_viewing_notice: { message_id: number };
}

/** Background work (spec §6, CONTRACT §7, §10): the keys of {@link JobPayloads}. */
export type JobKind = keyof JobPayloads;

/** The kinds whose job carries no payload (queued with a lead: db/repositories/jobs.ts `enqueueLeadJobs`). */
export type PayloadlessJobKind = { [K in JobKind]: JobPayloads[K] extends null ? K : never }[JobKind];

/** What a caller gives for a kind's payload: nothing for the payloadless kinds, else the payload. */
export type PayloadOf<K extends JobKind> = JobPayloads[K] extends null ? { payload?: null } : { payload: JobPayloads[K] };

type Parser<T> = (value: unknown) => T | undefined;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is number => Number.isSafeInteger(value);

/** A payload `{<field>: id}`. */
function idPayload<F extends string>(field: F): Parser<{ [key in F]: number }> {
  return (value) => (isRecord(value) && isId(value[field]) ? ({ [field]: value[field] } as { [key in F]: number }) : undefined);
}

/** No payload: null (or an empty object, which some rows of old carry). */
const none: Parser<null> = (value) => (value === null || (isRecord(value) && Object.keys(value).length === 0) ? null : undefined);

const messagePayload = idPayload('message_id');

/** One parser per kind: the payload as stored (JSON already read) → its typed value, or undefined when it is malformed. */
const PARSERS: { [K in JobKind]: Parser<JobPayloads[K]> } = {
  match_lead: none,
  send_welcome: none,
  schedule_follow_ups: none,
  follow_up: idPayload('follow_up_id'),
  rematch_catalogue: none,
  process_webhook: idPayload('event_id'),
  assistant_reply: (value) => {
    const base = messagePayload(value);
    if (!base || !isRecord(value)) return undefined;
    const list = value.list_reply_id;
    if (list === undefined || list === null) return base;
    return typeof list === 'string' ? { ...base, list_reply_id: list } : undefined;
  },
  send_message: messagePayload,
  deliver_webhook: idPayload('delivery_id'),
  pull_feed: idPayload('source_id'),
  process_email: idPayload('email_id'),
  pull_email: idPayload('pull_id'),
  send_alert: messagePayload,
  send_viewing_notice: messagePayload,
};

/** Whether `kind` is a kind this release knows. */
export function isJobKind(kind: string): kind is JobKind {
  return Object.hasOwn(PARSERS, kind);
}

/**
 * A stored job's payload, parsed once for its kind.
 * @param text `jobs.payload` (JSON text, or null).
 * @returns `{payload}`, or `{error}` saying why it cannot be read (not JSON, or not the kind's shape).
 */
export function parseJobPayload<K extends JobKind>(kind: K, text: string | null): { payload: JobPayloads[K] } | { error: string } {
  let value: unknown = null;
  if (text !== null) {
    try {
      value = JSON.parse(text);
    } catch {
      return { error: `the payload of a ${kind} job is not JSON` };
    }
  }
  const payload = PARSERS[kind](value);
  return payload === undefined ? { error: `the payload of a ${kind} job does not have its kind's shape` } : { payload };
}
