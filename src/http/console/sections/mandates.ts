/**
 * A listing's mandate in the console (issue 58 item 3, CONTRACT §24), the rules being
 * services/owners/mandates.ts's:
 *
 * - `GET /properties/:id/mandate`: the version in force (with Hoy's warning when it ends within 30
 *   days), the draft's terms form (the draft's, else the version in force's, else the listing's
 *   defaults), the draft's signing on the screen (name, document, signature drawn with the finger,
 *   assets/signature.js, as a visit sheet's), ending a signed mandate early, every version with its PDF;
 * - `POST /properties/:id/mandate`: the draft saved (303), or the form again with the reason beside
 *   each field (422, nothing stored); a listing without an owner is refused in words (422);
 * - `POST /properties/:id/mandate/sign`: the draft signed on the screen (303), or the signing form
 *   again with the reasons (422); a version signed meanwhile 409;
 * - `POST /properties/:id/mandate/link`: the draft's one-use link e-mailed to the owner (303), or
 *   why it cannot be (no address, no outgoing e-mail: 422);
 * - `POST /properties/:id/mandate/end`: the version in force ended with the agent's reason;
 * - `GET /properties/:id/mandate.pdf?version=N`: a version (by default the draft, else the one in
 *   force) as an A4 PDF in the console's language.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatPercent, termsForm, TERM_FIELDS, type TermField, type TermFault, type TermsForm } from '../../../domain/owners/mandates.ts';
import { InmoError } from '../../../errors.ts';
import {
  endMandate,
  END_REASON_MAX,
  MandateFormError,
  mandateOfListing,
  mandatePdf,
  saveMandateDraft,
  signMandate,
} from '../../../services/owners/mandates.ts';
import { sendMandateLink } from '../../../services/owners/mandate-links.ts';
import { VisitSheetFormError, type SheetInput, type VisitSheetField } from '../../../services/viewings/visit-sheet.ts';
import { csrfCheckedRoute, field, idParam, query, type ConsoleDeps } from '../forms.ts';
import type { MessageKey, Translate } from '../i18n.ts';
import { businessTime } from '../local-time.ts';
import { render, sendPdf } from '../page.ts';
import { sheetFault, SHEET_FORM_MAX_BYTES } from './viewings.ts';

/** What a refusal of the whole page tells the agent. */
const MANDATE_PROBLEMS: Partial<Record<string, MessageKey>> = {
  MANDATE_NO_OWNER: 'mandate_no_owner',
  MANDATE_SIGNED: 'mandate_signed_already',
  MANDATE_DRAFT_CHANGED: 'mandate_draft_changed',
  MANDATE_NOT_SIGNED: 'mandate_not_signed',
  MANDATE_END_REASON: 'mandate_end_reason',
  MANDATE_NOT_FOUND: 'mandate_not_found',
  MANDATE_LINK_NO_EMAIL: 'mandate_link_no_email',
  MANDATE_ENDS_IN_PAST: 'mandate_ends_in_past',
};

/** The words of a refused term. */
function termFault(t: Translate, field: TermField, fault: TermFault): string {
  const keys: Record<TermFault, MessageKey> = {
    required: 'mandate_fault_required',
    choice: 'mandate_fault_choice',
    number: 'mandate_fault_number',
    percent: 'mandate_fault_percent',
    date: 'mandate_fault_date',
    order: 'mandate_fault_order',
    too_long: 'mandate_fault_too_long',
  };
  return field === 'fee_value' && fault === 'number' ? t('mandate_fault_fee_amount') : t(keys[fault]);
}

/** The page's forms as typed, after a refusal. */
interface MandateForms {
  terms?: { values: TermsForm; faults: Partial<Record<string, string>> };
  sign?: { values: SheetInput; faults: Partial<Record<string, string>> };
  problem?: MessageKey;
  endReason?: string;
}

export async function mandatePages(app: FastifyInstance, { db, onJobsQueued }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  /** The listing's id of the path. @throws InmoError NOT_FOUND for a path that names none. */
  const listingId = (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = idParam(request.params.id);
    if (id === null) throw new InmoError('NOT_FOUND');
    return id;
  };

  const mandatePage = async (request: FastifyRequest, reply: FastifyReply, id: number, status = 200, forms: MandateForms = {}) => {
    const session = request.consoleSession!;
    let state: Awaited<ReturnType<typeof mandateOfListing>>;
    try {
      state = await mandateOfListing(db, session.businessId, id);
    } catch (error) {
      if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') throw new InmoError('NOT_FOUND');
      throw error;
    }
    const saved = query(request).saved;
    return render(
      reply,
      'mandate',
      {
        title: request.t('mandate_title', { ref: state.listing.external_ref }),
        ...state,
        time: businessTime(state.zone, request.consoleLanguage),
        termsForm: forms.terms ?? { values: termsForm(state.terms), faults: {} },
        signForm: forms.sign ?? {
          values: { visitor_name: state.owner?.name ?? '', document_type: 'dni', document_number: '', signature: '' },
          faults: {},
        },
        problem: forms.problem ?? null,
        endReason: forms.endReason ?? '',
        endReasonMax: END_REASON_MAX,
        saved: saved === 'draft' || saved === 'signed' || saved === 'ended' || saved === 'link' ? saved : null,
        percent: formatPercent,
        locale: request.consoleLanguage === 'es' ? 'es-ES' : 'en-GB',
      },
      status,
    );
  };

  /** A refusal of the whole page, said at its top. */
  const refused = (request: FastifyRequest, reply: FastifyReply, id: number, error: unknown, forms: MandateForms = {}) => {
    const problem = error instanceof InmoError ? MANDATE_PROBLEMS[error.code] : undefined;
    if (problem === undefined || !(error instanceof InmoError)) throw error;
    request.errorCode = error.code;
    return mandatePage(request, reply, id, error.status, { ...forms, problem });
  };

  app.get<{ Params: { id: string } }>('/properties/:id/mandate', async (request, reply) => mandatePage(request, reply, listingId(request)));

  app.post<{ Params: { id: string } }>('/properties/:id/mandate', csrfChecked, async (request, reply) => {
    const id = listingId(request);
    const session = request.consoleSession!;
    const values = Object.fromEntries(TERM_FIELDS.map((name) => [name, field(request.body, name)])) as TermsForm;
    try {
      await saveMandateDraft(db, session.businessId, id, values, { type: 'user', id: session.userId });
    } catch (error) {
      if (error instanceof MandateFormError) {
        request.errorCode = 'MANDATE_FORM';
        const faults = Object.fromEntries(
          Object.entries(error.faults).map(([name, fault]) => [name, termFault(request.t, name as TermField, fault)]),
        );
        return mandatePage(request, reply, id, 422, { terms: { values, faults } });
      }
      if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') throw new InmoError('NOT_FOUND');
      return refused(request, reply, id, error, { terms: { values, faults: {} } });
    }
    return reply.code(303).header('location', `/console/properties/${id}/mandate?saved=draft#h-draft`).send();
  });

  app.post<{ Params: { id: string } }>(
    '/properties/:id/mandate/sign',
    { ...csrfChecked, bodyLimit: SHEET_FORM_MAX_BYTES },
    async (request, reply) => {
      const id = listingId(request);
      const session = request.consoleSession!;
      const input: SheetInput = {
        visitor_name: field(request.body, 'visitor_name'),
        document_type: field(request.body, 'document_type'),
        document_number: field(request.body, 'document_number'),
        signature: field(request.body, 'signature'),
      };
      const state = await mandateOfListing(db, session.businessId, id).catch((error: unknown) => {
        if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') throw new InmoError('NOT_FOUND');
        throw error;
      });
      try {
        if (state.draft === null) throw new InmoError('MANDATE_SIGNED');
        const shown = field(request.body, 'draft_at');
        await signMandate(db, session.businessId, state.draft.id, input, {
          by: 'screen',
          userId: session.userId,
          // A form of before this field's time (or without it) is not checked.
          ...(shown ? { shown } : {}),
        });
      } catch (error) {
        if (error instanceof VisitSheetFormError) {
          request.errorCode = 'MANDATE_SIGN_FORM';
          const faults: Partial<Record<string, string>> = {};
          for (const [name, reason] of Object.entries(error.faults))
            faults[name] = sheetFault(request.t, name as VisitSheetField, reason, input.document_type);
          // A signature that was taken is drawn back in the box: the owner need not sign again for a typo.
          const signature = error.faults.signature === undefined ? input.signature : '';
          return mandatePage(request, reply, id, 422, { sign: { values: { ...input, signature }, faults } });
        }
        return refused(request, reply, id, error);
      }
      return reply.code(303).header('location', `/console/properties/${id}/mandate?saved=signed#h-current`).send();
    },
  );

  // The draft's one-use link e-mailed to the owner (services/owners/mandate-links.ts).
  app.post<{ Params: { id: string } }>('/properties/:id/mandate/link', csrfChecked, async (request, reply) => {
    const id = listingId(request);
    try {
      await sendMandateLink(db, request.consoleSession!.businessId, id);
    } catch (error) {
      if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') throw new InmoError('NOT_FOUND');
      return refused(request, reply, id, error);
    }
    onJobsQueued();
    return reply.code(303).header('location', `/console/properties/${id}/mandate?saved=link#h-sign`).send();
  });

  app.post<{ Params: { id: string } }>('/properties/:id/mandate/end', csrfChecked, async (request, reply) => {
    const id = listingId(request);
    const session = request.consoleSession!;
    const reason = field(request.body, 'reason');
    const state = await mandateOfListing(db, session.businessId, id).catch((error: unknown) => {
      if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') throw new InmoError('NOT_FOUND');
      throw error;
    });
    try {
      if (state.current === null) throw new InmoError('MANDATE_NOT_SIGNED');
      await endMandate(db, session.businessId, state.current.id, reason, { type: 'user', id: session.userId });
    } catch (error) {
      return refused(request, reply, id, error, { endReason: reason });
    }
    return reply.code(303).header('location', `/console/properties/${id}/mandate?saved=ended#h-versions`).send();
  });

  app.get<{ Params: { id: string } }>('/properties/:id/mandate.pdf', async (request, reply) => {
    const id = listingId(request);
    const asked = query(request).version;
    const version = asked === undefined ? undefined : idParam(asked);
    if (version === null) throw new InmoError('NOT_FOUND');
    let made: Awaited<ReturnType<typeof mandatePdf>>;
    try {
      made = await mandatePdf(db, request.consoleSession!.businessId, id, request.consoleLanguage, version);
    } catch (error) {
      if (error instanceof InmoError && (error.code === 'PROPERTY_NOT_FOUND' || error.code === 'MANDATE_NOT_FOUND'))
        throw new InmoError('NOT_FOUND');
      throw error;
    }
    return sendPdf(reply, made.pdf, made.fileName);
  });
}
