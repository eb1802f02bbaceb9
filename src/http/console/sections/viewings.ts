/**
 * Viewings in the console (CONTRACT §20, issue 44), for owners and agents alike:
 *
 * - `GET /agenda` (query `date` `YYYY-MM-DD`, today by default; `view` `day` or `week`, Monday to
 *   Sunday; `user` `me`, `all` or a user's id, `me` by default for agents and `all` for owners):
 *   the viewings of that day or week in the business's time zone, a list per day, with the way
 *   to the day or week before and after;
 * - `GET /viewings/:id`: a viewing's page, its details, the changes its status allows, a new time
 *   and the agent's feedback;
 * - `POST /viewings/:id`, `action` = `confirm`, `cancel`, `done`, `no_show`, `reschedule` (`date`,
 *   `time`, the business's local ones) or `feedback` (`interest` 1–5, `comment`): done through
 *   services/viewings/ (events `viewing.updated`), then 303 to `back`: "Hoy" (`today`), the
 *   viewing's page (`viewing`), an agenda's URL, else the lead's page. Refused, nothing changes:
 *   a time or feedback the form holds wrong is the viewing's page again with the reason beside
 *   the field (422; a time the agent has taken too), an action the status does not allow is the
 *   page posted from with the reason (409), an unknown viewing 404.
 *
 * - `POST /viewings/:id/sheet` (`visitor_name`, `document_type` `dni`|`nie`|`other`,
 *   `document_number`, `signature`: a `data:image/png;base64,…` URL from the page's canvas,
 *   assets/signature.js): the visit sheet signed on the agent's screen (services/viewings/visit-sheet.ts),
 *   then 303 to the viewing's page. What the form holds wrong is the page again with the reason
 *   beside the field (422, nothing stored: a DNI or NIE whose letter is not its number's, a
 *   signature that is no PNG, blank or too large); a sheet signed before or a cancelled viewing 409.
 * - `GET /viewings/:id/sheet.pdf`: the sheet as an A4 PDF in the console's language; a viewing not
 *   signed on the screen gets the blank sheet to sign on paper.
 *
 * A viewing is booked from the lead's page and the listing's (sections/leads.ts,
 * sections/listings.ts, through viewing-form.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { nextStatus } from '../../../domain/viewings/status.ts';
import { InmoError } from '../../../errors.ts';
import { VIEWING_COMMENT_MAX, ViewingActionForm } from '../../../schemas/console-forms.ts';
import { assignableUsers } from '../../../services/leads/pipeline.ts';
import { agendaOf, rescheduleFromConsole, viewingInFull, ViewingFormError, type NamedViewing } from '../../../services/viewings/console.ts';
import { changeViewing } from '../../../services/viewings/transitions.ts';
import {
  signVisitSheet,
  takesSheet,
  visitSheetClause,
  visitSheetOf,
  visitSheetPdf,
  VisitSheetFormError,
  type SheetInput,
  type VisitSheetField,
  type VisitSheetReason,
} from '../../../services/viewings/visit-sheet.ts';
import { VISITOR_NAME_MAX, type DocumentType } from '../../../domain/viewings/visit-sheet.ts';
import { csrfCheckedRoute, field, idParam, query, readForm, type ConsoleDeps } from '../forms.ts';
import type { MessageKey, Translate } from '../i18n.ts';
import { businessTime } from '../local-time.ts';
import { render, sendPdf } from '../page.ts';
import { faultsOf, typedTime } from '../viewing-form.ts';
import { todayPage } from './overview.ts';

/** The changes of status a button makes, without a time or notes. */
const SIMPLE_ACTIONS = ['confirm', 'cancel', 'done', 'no_show'] as const;

/** What a refused viewing action tells the user. */
const VIEWING_PROBLEMS: Partial<Record<string, MessageKey>> = {
  VIEWING_NOT_FOUND: 'viewing_not_found',
  VIEWING_ACTION_REFUSED: 'viewing_action_refused',
  VIEWING_SLOT_TAKEN: 'viewing_confirm_taken',
};

/** What a refused visit sheet tells the agent. */
const SHEET_PROBLEMS: Partial<Record<string, MessageKey>> = {
  VISIT_SHEET_SIGNED: 'visit_sheet_signed',
  VISIT_SHEET_REFUSED: 'visit_sheet_refused',
};

/** The largest signing form taken, bytes: the signature's 256 KB PNG in base64, URL-encoded, and the fields. */
export const SHEET_FORM_MAX_BYTES = 1024 * 1024;

/** The words of a refused field of a signing form: a visit sheet's, a mandate's (sections/mandates.ts). */
export function sheetFault(t: Translate, field: VisitSheetField, reason: VisitSheetReason, type: string): string {
  switch (reason) {
    case 'required':
      return t(
        field === 'visitor_name'
          ? 'sheet_fault_name_required'
          : field === 'document_type'
            ? 'sheet_fault_type_required'
            : 'sheet_fault_number_required',
      );
    case 'too_long':
      return t('sheet_fault_name_too_long', { max: VISITOR_NAME_MAX });
    case 'format':
      return t(type === 'dni' ? 'sheet_fault_dni_format' : type === 'nie' ? 'sheet_fault_nie_format' : 'sheet_fault_other_format');
    case 'letter':
      return t('sheet_fault_letter');
    case 'missing':
      return t('sheet_fault_signature_missing');
    case 'blank':
      return t('sheet_fault_signature_blank');
    case 'too_large':
      return t('sheet_fault_signature_too_large');
    case 'not_png':
      return t('sheet_fault_signature_not_png');
  }
}

/** Where an action may return to besides "Hoy", the viewing and the lead: an agenda of the console, nowhere else. */
const AGENDA_BACK = /^\/console\/agenda(\?[^\s#\\]*)?$/;

/** The feedback form's refusals, field by field (nothing stored). */
class FeedbackFault extends Error {
  constructor(readonly faults: Partial<Record<'interest' | 'comment', string>>) {
    super('feedback refused');
  }
}

/** The forms of a viewing's page, as typed (after a refusal) or as the viewing stands. */
interface ViewingForms {
  reschedule?: { values: { date: string; time: string }; faults: Partial<Record<string, string>> };
  feedback?: { values: { interest: string; comment: string }; faults: Partial<Record<string, string>> };
  /** The visit sheet as typed (`signature`: one that was taken, drawn back in the box), or a refusal of the whole sheet. */
  sheet?: { values: SheetInput; faults: Partial<Record<string, string>> };
  sheetProblem?: MessageKey;
}

export async function viewingPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  app.get('/agenda', async (request, reply) => {
    const session = request.consoleSession!;
    const q = query(request);
    const users = await assignableUsers(db, session.businessId);
    const byDefault = session.role === 'agent' ? 'me' : 'all';
    // `me`, `all` or one of the business's users; anything else is the default.
    const user = q.user === 'me' || q.user === 'all' || users.some((u) => String(u.id) === q.user) ? (q.user as string) : byDefault;
    const view = q.view === 'week' ? 'week' : 'day';
    const agenda = await agendaOf(db, session.businessId, {
      date: q.date,
      view,
      userId: user === 'all' ? null : user === 'me' ? session.userId : Number(user),
    });
    const link = (change: { date?: string; view?: string }) =>
      `/console/agenda?${new URLSearchParams({ date: agenda.date, view, user, ...change })}`;
    return render(reply, 'agenda', {
      title: request.t('agenda_title'),
      agenda,
      time: businessTime(agenda.zone, request.consoleLanguage),
      users,
      user,
      link,
    });
  });

  /** A viewing's page; a viewing of another business, or none, is a 404. */
  const viewingPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    status = 200,
    problem: MessageKey | null = null,
    forms: ViewingForms = {},
  ) => {
    const session = request.consoleSession!;
    let found: Awaited<ReturnType<typeof viewingInFull>>;
    try {
      found = await viewingInFull(db, session.businessId, id);
    } catch (error) {
      if (error instanceof InmoError && error.code === 'VIEWING_NOT_FOUND') throw new InmoError('NOT_FOUND');
      throw error;
    }
    const { clock, viewing } = found;
    const time = businessTime(clock.zone, request.consoleLanguage);
    const sheet = await visitSheetOf(db, session.businessId, viewing.id);
    const documentLabel = (type: DocumentType) =>
      request.t(type === 'dni' ? 'sheet_document_dni' : type === 'nie' ? 'sheet_document_nie' : 'sheet_document_other');
    const saved = (request.query as Record<string, string | undefined>).saved;
    return render(
      reply,
      'viewing',
      {
        title: request.t('viewing_title', { day: time.dayOf(viewing.starts_at), hour: time.hour(viewing.starts_at) }),
        viewing,
        time,
        problem,
        saved: saved === '1' && status === 200,
        actions: SIMPLE_ACTIONS.filter((action) => nextStatus(viewing.status, action) !== null),
        canReschedule: nextStatus(viewing.status, 'reschedule') !== null,
        canFeedback: nextStatus(viewing.status, 'feedback') !== null,
        reschedule: forms.reschedule ?? {
          values: { date: time.dateOf(viewing.starts_at), time: time.hour(viewing.starts_at) },
          faults: {},
        },
        feedback: forms.feedback ?? {
          values: { interest: viewing.feedback ? String(viewing.feedback.interest) : '', comment: viewing.feedback?.comment ?? '' },
          faults: {},
        },
        commentMax: VIEWING_COMMENT_MAX,
        sheet,
        canSign: sheet === null && takesSheet(viewing.status),
        clause: (await visitSheetClause(db, session.businessId)).text,
        sheetForm: forms.sheet ?? { values: { visitor_name: '', document_type: 'dni', document_number: '', signature: '' }, faults: {} },
        sheetSaved: saved === 'sheet' && status === 200,
        sheetProblem: forms.sheetProblem ?? null,
        documentLabel,
        nameMax: VISITOR_NAME_MAX,
      },
      status,
    );
  };

  app.get<{ Params: { id: string } }>('/viewings/:id', async (request, reply) => {
    const id = idParam(request.params.id);
    if (id === null) throw new InmoError('NOT_FOUND');
    return viewingPage(request, reply, id);
  });

  app.post<{ Params: { id: string } }>('/viewings/:id', csrfChecked, async (request, reply) => {
    const session = request.consoleSession!;
    const { value, faults } = readForm(request.body, ViewingActionForm);
    const id = idParam(request.params.id) ?? 0;
    const fromToday = value.back === 'today';
    const at = { date: value.date.trim(), time: typedTime(value.time) };
    try {
      const viewing = await act(session.businessId, id, value, faults, at, request.t);
      const to =
        value.back === 'today'
          ? '/console#h-viewings'
          : value.back === 'viewing'
            ? `/console/viewings/${viewing.id}?saved=1`
            : AGENDA_BACK.test(value.back)
              ? value.back
              : `/console/leads/${viewing.lead_id}#h-viewings`;
      return await reply.code(303).header('location', to).send();
    } catch (error) {
      if (error instanceof ViewingFormError) {
        request.errorCode = 'VIEWING_FORM';
        return viewingPage(request, reply, id, 422, null, { reschedule: { values: at, faults: faultsOf(request.t, error) } });
      }
      if (error instanceof FeedbackFault) {
        request.errorCode = 'VIEWING_FORM';
        return viewingPage(request, reply, id, 422, null, {
          feedback: { values: { interest: value.interest, comment: value.comment }, faults: error.faults },
        });
      }
      const problem = error instanceof InmoError ? VIEWING_PROBLEMS[error.code] : undefined;
      if (problem === undefined || !(error instanceof InmoError)) throw error;
      request.errorCode = error.code;
      if (fromToday) return todayPage(db, request, reply, error.status, problem);
      return viewingPage(request, reply, id, error.status, problem);
    }
  });

  // The visit sheet signed on the agent's screen (CONTRACT §20).
  app.post<{ Params: { id: string } }>(
    '/viewings/:id/sheet',
    { ...csrfChecked, bodyLimit: SHEET_FORM_MAX_BYTES },
    async (request, reply) => {
      const session = request.consoleSession!;
      const id = idParam(request.params.id);
      if (id === null) throw new InmoError('NOT_FOUND');
      const input: SheetInput = {
        visitor_name: field(request.body, 'visitor_name'),
        document_type: field(request.body, 'document_type'),
        document_number: field(request.body, 'document_number'),
        signature: field(request.body, 'signature'),
      };
      const values = { visitor_name: input.visitor_name, document_type: input.document_type, document_number: input.document_number };
      try {
        await signVisitSheet(db, session.businessId, id, input, session.userId);
      } catch (error) {
        if (error instanceof VisitSheetFormError) {
          request.errorCode = 'VISIT_SHEET_FORM';
          const faults: Partial<Record<string, string>> = {};
          for (const [name, reason] of Object.entries(error.faults))
            faults[name] = sheetFault(request.t, name as VisitSheetField, reason, input.document_type);
          // A signature that was taken is drawn back in the box: the visitor need not sign again for a typo.
          const signature = error.faults.signature === undefined ? input.signature : '';
          return viewingPage(request, reply, id, 422, null, { sheet: { values: { ...values, signature }, faults } });
        }
        if (error instanceof InmoError && error.code === 'VIEWING_NOT_FOUND') throw new InmoError('NOT_FOUND');
        const problem = error instanceof InmoError ? SHEET_PROBLEMS[error.code] : undefined;
        if (problem === undefined || !(error instanceof InmoError)) throw error;
        request.errorCode = error.code;
        return viewingPage(request, reply, id, error.status, null, {
          sheet: { values: { ...values, signature: '' }, faults: {} },
          sheetProblem: problem,
        });
      }
      return reply.code(303).header('location', `/console/viewings/${id}?saved=sheet#h-sheet`).send();
    },
  );

  // The visit sheet as an A4 PDF: signed, or blank to sign on paper.
  app.get<{ Params: { id: string } }>('/viewings/:id/sheet.pdf', async (request, reply) => {
    const id = idParam(request.params.id);
    if (id === null) throw new InmoError('NOT_FOUND');
    let sheet: Awaited<ReturnType<typeof visitSheetPdf>>;
    try {
      sheet = await visitSheetPdf(db, request.consoleSession!.businessId, id, request.consoleLanguage);
    } catch (error) {
      if (error instanceof InmoError && error.code === 'VIEWING_NOT_FOUND') throw new InmoError('NOT_FOUND');
      throw error;
    }
    return sendPdf(reply, sheet.pdf, sheet.fileName);
  });

  /** Does `value.action` to viewing `id`, with the words of `t` for a refused field. @returns the viewing after it. */
  const act = async (
    businessId: number,
    id: number,
    value: Static<typeof ViewingActionForm>,
    faults: Array<{ field: string }>,
    at: { date: string; time: string },
    t: Translate,
  ): Promise<Pick<NamedViewing, 'id' | 'lead_id'>> => {
    const action = value.action;
    if ((SIMPLE_ACTIONS as readonly string[]).includes(action)) {
      return changeViewing(db, businessId, id, { action: action as (typeof SIMPLE_ACTIONS)[number] });
    }
    if (action === 'reschedule') return rescheduleFromConsole(db, businessId, id, at);
    if (action === 'feedback') {
      const refused: FeedbackFault['faults'] = {};
      if (!/^[1-5]$/.test(value.interest)) refused.interest = t('viewing_fault_interest');
      if (faults.some((f) => f.field === 'comment')) refused.comment = t('viewing_fault_comment', { max: VIEWING_COMMENT_MAX });
      if (Object.keys(refused).length) {
        // A viewing not done takes no feedback: that is the reason given, not the form's.
        const { viewing } = await viewingInFull(db, businessId, id);
        if (nextStatus(viewing.status, 'feedback') === null)
          throw new InmoError('VIEWING_ACTION_REFUSED', { action, status: viewing.status });
        throw new FeedbackFault(refused);
      }
      return changeViewing(db, businessId, id, { action: 'feedback', interest: Number(value.interest), comment: value.comment });
    }
    throw new InmoError('VIEWING_ACTION_REFUSED', { action, status: '' });
  };
}
