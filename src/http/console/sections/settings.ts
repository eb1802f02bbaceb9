/**
 * The business's settings (owners; CONTRACT §20): `GET /settings` shows them.
 *
 * - `POST /settings/clock` (fields `timezone`, `hours_mon` … `hours_sun`): the business's time
 *   zone (an IANA name) and viewing hours, each day's periods written `10:00-14:00, 16:00-20:00`
 *   (blank: no viewings that day). Every time the console, the notices and the calendars show is
 *   in that zone; viewings are offered within those hours (services/viewings/clock.ts). A zone
 *   or a day that cannot be read is refused beside its field (422, nothing stored).
 * - `POST /settings/mandate` (field `mandate_clause`): the clause printed on the agency's mandates
 *   (CONTRACT §24), as the visit sheet's below (MANDATE_CLAUSE_MAX characters); versions signed
 *   before keep theirs.
 * - `POST /settings` (field `visit_sheet_clause`): the clause printed on every visit sheet and
 *   signed by the visitor (services/viewings/visit-sheet.ts): empty goes back to the default
 *   clause in Spanish; longer than CLAUSE_MAX characters is refused beside the field (422, nothing
 *   stored). Sheets signed before keep the clause they were signed with.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CLAUSE_MAX } from '../../../domain/viewings/visit-sheet.ts';
import { checkViewingHours, WEEKDAYS, type LocalPeriod, type ViewingHours, type Weekday } from '../../../domain/viewings/hours.ts';
import { InmoError } from '../../../errors.ts';
import { businessClock, checkedTimeZone, setBusinessClockBy } from '../../../services/viewings/clock.ts';
import type { MessageKey } from '../i18n.ts';
import { setVisitSheetClauseText, visitSheetClause, VisitSheetFormError } from '../../../services/viewings/visit-sheet.ts';
import { mandateClause, setMandateClauseText } from '../../../services/owners/mandates.ts';
import { MANDATE_CLAUSE_MAX } from '../../../domain/owners/mandates.ts';
import { csrfCheckedRoute, field, type ConsoleDeps } from '../forms.ts';
import { render } from '../page.ts';

/** Every time zone of the IANA database this Node knows, for the zone field's suggestions. */
const TIME_ZONES = Intl.supportedValuesOf('timeZone');

/** A day's periods as the form shows them: `10:00-14:00, 16:00-20:00`. */
const periodsText = (periods: readonly LocalPeriod[] | undefined) => (periods ?? []).map(([from, to]) => `${from}-${to}`).join(', ');

/** A day's periods as typed (`10:00-14:00, 16:00-20:00`; `9:30` read as `09:30`), or null when a part is not a period. */
export function readPeriods(text: string): Array<[string, string]> | null {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const periods: Array<[string, string]> = [];
  for (const part of trimmed.split(/\s*[,;]\s*/)) {
    const match = /^(\d{1,2}):(\d{2})\s*[-–—]\s*(\d{1,2}):(\d{2})$/.exec(part);
    if (!match) return null;
    periods.push([`${match[1].padStart(2, '0')}:${match[2]}`, `${match[3].padStart(2, '0')}:${match[4]}`]);
  }
  return periods;
}

/** The clock form as typed: the zone and each day's text. */
interface ClockForm {
  timezone: string;
  hours: Record<Weekday, string>;
}

export async function settingsPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    typed?: { clause: string; fault: string },
    clockTyped?: { form: ClockForm; faults: Partial<Record<'timezone' | Weekday, MessageKey>> },
    mandateTyped?: { clause: string; fault: string },
  ) => {
    const businessId = request.consoleSession!.businessId;
    const [clause, clock, mandate] = await Promise.all([
      visitSheetClause(db, businessId),
      businessClock(db, businessId),
      mandateClause(db, businessId),
    ]);
    const query = request.query as Record<string, string | undefined>;
    const refused = typed !== undefined || clockTyped !== undefined || mandateTyped !== undefined;
    return render(
      reply,
      'settings',
      {
        title: request.t('settings_title'),
        clause: typed?.clause ?? clause.text,
        custom: clause.custom,
        fault: typed?.fault ?? null,
        clauseMax: CLAUSE_MAX,
        saved: query.saved === '1' && !refused,
        clockSaved: query.saved === 'clock' && !refused,
        mandateSaved: query.saved === 'mandate' && !refused,
        mandateClause: mandateTyped?.clause ?? mandate.text,
        mandateCustom: mandate.custom,
        mandateFault: mandateTyped?.fault ?? null,
        mandateClauseMax: MANDATE_CLAUSE_MAX,
        clock: clockTyped?.form ?? {
          timezone: clock.zone,
          hours: Object.fromEntries(WEEKDAYS.map((day) => [day, periodsText((clock.hours as ViewingHours)[day])])),
        },
        clockFaults: Object.fromEntries(Object.entries(clockTyped?.faults ?? {}).map(([name, key]) => [name, request.t(key)])),
        weekdays: WEEKDAYS,
        timeZones: TIME_ZONES,
      },
      refused ? 422 : 200,
    );
  };

  app.get('/settings', { config: { consoleAccess: 'owner' } }, async (request, reply) => page(request, reply));

  app.post('/settings/clock', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const session = request.consoleSession!;
    const form: ClockForm = {
      timezone: field(request.body, 'timezone').trim(),
      hours: Object.fromEntries(WEEKDAYS.map((day) => [day, field(request.body, `hours_${day}`)])) as Record<Weekday, string>,
    };
    const faults: Partial<Record<'timezone' | Weekday, MessageKey>> = {};
    try {
      checkedTimeZone(form.timezone);
    } catch (error) {
      if (!(error instanceof InmoError)) throw error;
      faults.timezone = 'settings_timezone_invalid';
    }
    const hours: Partial<Record<Weekday, Array<[string, string]>>> = {};
    for (const day of WEEKDAYS) {
      const periods = readPeriods(form.hours[day]);
      if (periods === null || 'error' in checkViewingHours({ [day]: periods })) faults[day] = 'settings_hours_invalid';
      else if (periods.length > 0) hours[day] = periods;
    }
    if (Object.keys(faults).length > 0) {
      request.errorCode = 'SETTINGS_FORM';
      return page(request, reply, undefined, { form, faults });
    }
    await setBusinessClockBy(db, session.businessId, { timezone: form.timezone, hours }, { type: 'user', id: session.userId });
    return reply.code(303).header('location', '/console/settings?saved=clock').send();
  });

  app.post('/settings', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const session = request.consoleSession!;
    const clause = field(request.body, 'visit_sheet_clause');
    try {
      await setVisitSheetClauseText(db, session.businessId, clause, { type: 'user', id: session.userId });
    } catch (error) {
      if (!(error instanceof VisitSheetFormError)) throw error;
      request.errorCode = 'SETTINGS_FORM';
      return page(request, reply, { clause, fault: request.t('settings_clause_too_long', { max: CLAUSE_MAX }) });
    }
    return reply.code(303).header('location', '/console/settings?saved=1').send();
  });

  // The clause printed on the agency's mandates (CONTRACT §24).
  app.post('/settings/mandate', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const session = request.consoleSession!;
    const clause = field(request.body, 'mandate_clause');
    try {
      await setMandateClauseText(db, session.businessId, clause, { type: 'user', id: session.userId });
    } catch (error) {
      if (!(error instanceof InmoError) || error.code !== 'MANDATE_CLAUSE_TOO_LONG') throw error;
      request.errorCode = error.code;
      return page(request, reply, undefined, undefined, {
        clause,
        fault: request.t('settings_clause_too_long', { max: MANDATE_CLAUSE_MAX }),
      });
    }
    return reply.code(303).header('location', '/console/settings?saved=mandate#h-mandate-clause').send();
  });
}
