/**
 * "Hoy", `GET /` (issue 47, CONTRACT §23): the user's viewings of today (confirmed from there:
 * sections/viewings.ts's `POST /viewings/:id` with `back=today`), follow-ups due or overdue
 * (done and put off from the list: leads.ts's forms with `back=today`), conversations waiting
 * for an agent, new leads nobody has taken (take one: `/leads/:id/assign` with the user's id),
 * requests that came again, e-mails not understood; then the workspace's counts (active keys
 * for owners only), and for owners the last 30 days' figures (views/_owner-figures.eta).
 * Times are the business's (its time zone).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import type { Db } from '../../../db/database.ts';
import { ownerFigures } from '../../../services/console/owner-figures.ts';
import { todayOf } from '../../../services/console/today.ts';
import { workspaceFigures } from '../../../services/leads/leads.ts';
import type { MessageKey } from '../i18n.ts';
import { ownerFiguresView } from '../owner-figures-view.ts';
import { render } from '../page.ts';
import type { ConsoleDeps } from '../forms.ts';

/**
 * Renders "Hoy" for the session's user; with `problem`, the reason a form posted from it was
 * refused (the page's status is then the refusal's).
 */
export async function todayPage(db: Db, request: FastifyRequest, reply: FastifyReply, status = 200, problem: MessageKey | null = null) {
  const session = request.consoleSession!;
  const [today, counts, figures] = await Promise.all([
    todayOf(db, { businessId: session.businessId, userId: session.userId, role: session.role }),
    workspaceFigures(db, session.businessId),
    // The last 30 days' figures are the owner's alone (CONTRACT §23).
    session.role === 'owner' ? ownerFigures(db, session.businessId) : null,
  ]);
  const locale = request.consoleLanguage === 'es' ? 'es-ES' : 'en-GB';
  const inZone = (instant: string) => DateTime.fromISO(instant, { zone: today.zone }).setLocale(locale);
  return render(
    reply,
    'overview',
    {
      today,
      counts,
      figures: figures && ownerFiguresView(figures, request.t, request.consoleLanguage),
      problem,
      dayLabel: DateTime.fromISO(today.day, { zone: today.zone }).setLocale(locale).toLocaleString(DateTime.DATE_HUGE),
      hour: (instant: string) => inZone(instant).toLocaleString(DateTime.TIME_24_SIMPLE),
      whenLocal: (instant: string) => inZone(instant).toLocaleString(DateTime.DATETIME_MED),
    },
    status,
  );
}

export async function overviewPage(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  app.get('/', async (request, reply) => todayPage(db, request, reply));
}
