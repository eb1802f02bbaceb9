/**
 * The user's own calendar URL (CONTRACT §20 "Agents' calendars"), for every user:
 *
 * - `GET /calendar`: whether they have a live URL (and since when, in the business's time zone),
 *   and how to add it to a phone;
 * - `POST /calendar`: makes a new URL, revoking the one before, and shows it this once (201) with
 *   a `webcal://` link that subscribes the device the page is open on;
 * - `POST /calendar/revoke`: revokes it (303 back to the page).
 *
 * Both forms pass the CSRF check first. The URL is written under `INMO_PUBLIC_URL`, else the
 * origin the request reached (http/origin.ts); it is never shown again, since only its token's
 * hash is kept (services/viewings/calendar.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { calendarUrlState, makeCalendarUrl, revokeCalendarUrl } from '../../../services/viewings/calendar.ts';
import { businessClock } from '../../../services/viewings/clock.ts';
import { serverOrigin } from '../../origin.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, query, type ConsoleDeps } from '../forms.ts';

/** A date and time as the agency reads it: in the business's time zone, in the page's language. */
function localWhen(instant: string, zone: string, language: string): string {
  return new Intl.DateTimeFormat(language === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(
    new Date(instant),
  );
}

export async function calendarPages(app: FastifyInstance, { db, publicUrl }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const calendarPage = async (reply: FastifyReply, status = 200, newUrl: string | null = null) => {
    const request = reply.request;
    const { businessId, userId } = request.consoleSession!;
    const live = await calendarUrlState(db, businessId, userId);
    const { zone } = await businessClock(db, businessId);
    return render(
      reply,
      'calendar',
      {
        title: request.t('calendar_title'),
        liveSince: live && localWhen(live.created_at, zone, request.consoleLanguage),
        newUrl,
        webcalUrl: newUrl && newUrl.replace(/^https?:/, 'webcal:'),
        revoked: query(request).revoked === '1' && live === null,
      },
      status,
    );
  };

  app.get('/calendar', async (_request, reply) => calendarPage(reply));

  app.post('/calendar', { ...csrfChecked }, async (request, reply) => {
    const { businessId, userId } = request.consoleSession!;
    const made = await makeCalendarUrl(db, userId, businessId, { type: 'user', id: userId });
    // Shown here only: the page is not cached (no-store) and the token is kept only as a hash.
    return calendarPage(reply, 201, `${serverOrigin(request, publicUrl)}${made.path}`);
  });

  app.post('/calendar/revoke', { ...csrfChecked }, async (request, reply) => {
    const { businessId, userId } = request.consoleSession!;
    await revokeCalendarUrl(db, userId, businessId, { type: 'user', id: userId });
    return reply.code(303).header('location', '/console/calendar?revoked=1').send();
  });
}
