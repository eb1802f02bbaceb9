/**
 * What the console's sections share (sections/): what a section needs to register its pages,
 * reading form fields and query parameters, dates and ids of the URL, and the CSRF check every
 * form passes before its handler.
 */
import type { Limits } from '../../limits.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { validateValue, type ValidationIssue } from '../../validation/validator.ts';
import type { Db } from '../../db/database.ts';
import type { InboundSmtpSettings, OutboundPolicy } from '../../config.ts';
import type { MediaOptions } from '../media.ts';

/** What every section of the console is registered with (plugin.ts). */
export interface ConsoleDeps {
  db: Db;
  /** Called after a form queued jobs (an agent's reply): the in-process worker wakes. */
  onJobsQueued: () => void;
  /** Where outgoing requests (a channel's test message) may go (config.ts). */
  outbound: OutboundPolicy;
  /** Where listings' photos are kept and linked (http/media.ts). */
  media: MediaOptions;
  /** `INMO_PUBLIC_URL`, or null: photo URLs then use the origin of the request. */
  publicUrl: string | null;
  /** The largest feed document a pull reads, bytes (`INMO_FEED_MAX_BYTES`). */
  feedMaxBytes: number;
  /** The share of a source's listings a pull may withdraw before it is held (`INMO_PULL_WITHDRAW_MAX_SHARE`). */
  pullWithdrawMaxShare: number;
  /** E-mail received by SMTP (CONTRACT §25), or null: the e-mail page then shows the webhook's URL instead of an address. */
  inboundSmtp: InboundSmtpSettings | null;
  /** The request limits (CONTRACT §8): a lead's edit is checked against the API's schema for them. */
  limits: Limits;
}

/** A day, ms. */
export const DAY_MS = 24 * 3600 * 1000;

type Form = Record<string, string | string[] | undefined>;

/** A form field's value (the first one when repeated), '' when absent. */
export const field = (body: unknown, name: string): string => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? '') : '';
};

/** Every value of a repeated form field (checkboxes). */
export const fields = (body: unknown, name: string): string[] => {
  const value = (body as Form | undefined)?.[name];
  return value === undefined ? [] : [value].flat();
};

/** A field of a form that its schema refused: the field's name and the fault's type (Pydantic's: `string_too_long`, `literal_error`, `int_parsing`…). */
export interface FormFault {
  field: string;
  type: string;
}

/**
 * A form body (`application/x-www-form-urlencoded`, as @fastify/formbody parses it) read by its
 * schema: each field of the schema as a string ('' when absent, the first value when repeated),
 * an array for an array field (every value of a repeated field, a checkbox group), parsed and
 * checked as query parameters are (validation/validator.ts: integers from text, literals,
 * lengths, patterns). A field left empty takes the schema's default when it has one. Fields the
 * schema does not name (`_csrf`) are ignored.
 * @returns the typed values, and the faults (none when the form is valid); a refused field
 *   keeps what was sent, so the page can show it again.
 */
export function readForm<T extends TObject>(body: unknown, schema: T): { value: Static<T>; faults: FormFault[] } {
  const value: Record<string, unknown> = {};
  const faults: FormFault[] = [];
  for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const issues: ValidationIssue[] = [];
    let sent: unknown;
    let read: unknown;
    if (property[Kind] === 'Array') {
      // Every value of the field, each checked as the item schema says.
      sent = fields(body, name);
      read = validateValue(property, sent, [name], 'json', issues);
    } else {
      sent = field(body, name);
      read = sent === '' && property.default !== undefined ? property.default : validateValue(property, sent, [name], 'query', issues);
    }
    if (issues.length > 0) faults.push({ field: name, type: issues[0].type });
    value[name] = issues.length > 0 ? sent : read;
  }
  return { value: value as Static<T>, faults };
}

/** The query parameters of a page. */
export const query = (request: FastifyRequest) => request.query as Record<string, string | undefined>;

/** A date field (YYYY-MM-DD) as the RFC 3339 instant of that day's start (UTC), or null. */
export function dayStart(text: string | undefined): string | null {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A numeric id of the URL (a lead, job or import), or null for anything else: then the page is a 404. */
export function idParam(text: string): number | null {
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/** Route options of a form: its CSRF token is checked before the handler runs. */
export function csrfCheckedRoute(app: FastifyInstance) {
  return { preHandler: app.csrfProtection };
}
