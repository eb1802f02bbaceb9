/**
 * `GET /calendar/<token>.ics` (CONTRACT §20 "Agents' calendars"): a console user's viewings as an
 * iCalendar document, with no key or cookie (a phone's calendar fetches a URL): the token in the
 * path is the credential. A token that opens nothing (malformed, unknown, revoked, its user
 * disabled) is the 404 of any unknown path, and says nothing more. The token is never logged: the
 * request's log line names the route's pattern.
 *
 * `Content-Type: text/calendar; charset=utf-8`; a strong `ETag` of the bytes, `Cache-Control:
 * private, no-cache`, 304 to a matching `If-None-Match`, and br or gzip when accepted, as the
 * API's conditional reads (http/conditional.ts). The document is rebuilt only when what it shows
 * changed (services/viewings/calendar.ts), so a phone polling it costs two indexed reads.
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { InmoError } from '../errors.ts';
import { calendarDocument } from '../services/viewings/calendar.ts';
import { conditionalRoute } from './conditional.ts';
import { serverOrigin } from './origin.ts';

/** The route's path: the file name is `<token>.ics`. */
export const CALENDAR_ROUTE = '/calendar/:file';

/** The host of the events' UIDs: `INMO_PUBLIC_URL`'s, else `inmo` (never a request's `Host`, which its sender chooses). */
export function calendarHost(publicUrl: string | null): string {
  return publicUrl === null ? 'inmo' : new URL(publicUrl).hostname;
}

/** Registers the calendar route on the root instance. */
export function calendarRoutes(app: FastifyInstance, db: Db, publicUrl: string | null): void {
  const host = calendarHost(publicUrl);
  app.get<{ Params: { file: string } }>(CALENDAR_ROUTE, { schema: { hide: true }, ...conditionalRoute() }, async (request, reply) => {
    const file = request.params.file;
    const body = file.endsWith('.ics')
      ? await calendarDocument(db, file.slice(0, -'.ics'.length), { host, origin: serverOrigin(request, publicUrl) })
      : null;
    if (body === null) throw new InmoError('NOT_FOUND');
    return reply.type('text/calendar; charset=utf-8').header('x-content-type-options', 'nosniff').send(body);
  });
}
