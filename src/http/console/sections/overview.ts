/**
 * "Hoy", `GET /` (issue 47, CONTRACT §23): the user's viewings of today, follow-ups due or
 * overdue (done and put off from the list: leads.ts's forms with `back=today`), conversations
 * waiting for an agent, new leads nobody has taken (take one: `/leads/:id/assign` with the
 * user's id), requests that came again, e-mails not understood; then the workspace's counts
 * (active keys for owners only), and for owners the last 30 days' figures (views/_owner-figures.eta).
 * Times are the business's (its time zone).
 *
 * `POST /viewings/:id` (CONTRACT §20), `action` = `confirm`, `cancel`, `done` or `no_show`: the
 * viewing's status moved (services/viewings/transitions.ts), then 303 back to "Hoy" (`back=today`)
 * or the lead's page; an action its status refuses is "Hoy" again with the reason (409).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { ownerFigures } from '../../../services/console/owner-figures.ts';
import { todayOf } from '../../../services/console/today.ts';
import { workspaceFigures } from '../../../services/leads/leads.ts';
import { changeViewing } from '../../../services/viewings/transitions.ts';
import { InmoError } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { ownerFiguresView } from '../owner-figures-view.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, field, idParam, type ConsoleDeps } from '../forms.ts';

/** The viewing actions "Hoy" and the lead page post, without a time or notes. */
const SIMPLE_ACTIONS = ['confirm', 'cancel', 'done', 'no_show'] as const;

/** What a refused viewing action tells the user. */
const VIEWING_PROBLEMS: Partial<Record<string, MessageKey>> = {
  VIEWING_NOT_FOUND: 'viewing_not_found',
  VIEWING_ACTION_REFUSED: 'viewing_action_refused',
};

export async function overviewPage(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const todayPage = async (request: FastifyRequest, reply: FastifyReply, status = 200, problem: MessageKey | null = null) => {
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
  };

  app.get('/', async (request, reply) => todayPage(request, reply));

  app.post<{ Params: { id: string } }>('/viewings/:id', csrfCheckedRoute(app), async (request, reply) => {
    const session = request.consoleSession!;
    const action = field(request.body, 'action');
    const id = idParam(request.params.id) ?? 0;
    try {
      if (!(SIMPLE_ACTIONS as readonly string[]).includes(action)) throw new InmoError('VIEWING_ACTION_REFUSED', { action, status: '' });
      const viewing = await changeViewing(db, session.businessId, id, { action: action as (typeof SIMPLE_ACTIONS)[number] });
      const to = field(request.body, 'back') === 'today' ? '/console#h-viewings' : `/console/leads/${viewing.lead_id}#h-viewings`;
      return await reply.code(303).header('location', to).send();
    } catch (error) {
      const problem = error instanceof InmoError ? VIEWING_PROBLEMS[error.code] : undefined;
      if (problem === undefined || !(error instanceof InmoError)) throw error;
      request.errorCode = error.code;
      return todayPage(request, reply, error.status, problem);
    }
  });
}
