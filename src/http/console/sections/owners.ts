/**
 * The owner board (issue 58 item 2; CONTRACT §24 "captación"): `GET /owners` shows the business's
 * owners, leads of type `propietario`, in one column per stage (domain/leads/owner-stages.ts);
 * `POST /owners/:lead_id/stage` moves one (services/leads/owners.ts `moveOwnerStage`) and comes
 * back to the board, or shows it again with the reason and status 422, nothing changed.
 * `GET /leads/:lead_id/valuation.pdf?property=ID` is the valuation report of the owner's listing
 * (services/owners/valuations.ts); a listing not the owner's is a 404.
 * `GET /leads/:lead_id/reports/:report_id` is a report sent to the owner, as the owner's page shows
 * it (http/routes/owner-report.ts); another owner's is a 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OWNER_STAGES } from '../../../domain/leads/owner-stages.ts';
import { InmoError } from '../../../errors.ts';
import { moveOwnerStage, ownerBoard } from '../../../services/leads/owners.ts';
import { valuationPdf } from '../../../services/owners/valuations.ts';
import { readReportOfOwner } from '../../../services/owners/owner-report-pages.ts';
import { renderReportPage } from '../../routes/owner-report.ts';
import { csrfCheckedRoute, field, idParam, query, type ConsoleDeps } from '../forms.ts';
import { labelOf, OWNER_STAGE_LABEL } from '../labels.ts';
import { render, sendPdf } from '../page.ts';

/** The refusals the board explains, with their words. */
const REFUSALS = {
  OWNER_STAGE_NOT_PROPIETARIO: 'owners_not_propietario',
  OWNER_STAGE_UNKNOWN: 'owners_stage_unknown',
} as const;

export async function ownerPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const board = async (request: FastifyRequest, reply: FastifyReply, fault: string | null, status = 200) => {
    const shown = await ownerBoard(db, request.consoleSession!.businessId);
    // After a move (`?moved=<lead id>`): the owner and the stage it is at now, read again, never carried in the URL.
    const movedId = fault === null ? idParam(query(request).moved ?? '') : null;
    const moved = movedId === null ? undefined : shown.columns.flatMap((c) => c.owners).find((o) => o.id === movedId);
    const notice = moved
      ? request.t('owners_moved', {
          name: moved.name || request.t('owners_unnamed'),
          stage: labelOf(request.t, OWNER_STAGE_LABEL, moved.stage),
        })
      : null;
    return render(reply, 'owners', { board: shown, stages: OWNER_STAGES, notice, fault }, status);
  };

  app.get('/owners', async (request, reply) => board(request, reply, null));

  app.post<{ Params: { lead_id: string } }>('/owners/:lead_id/stage', csrfChecked, async (request, reply) => {
    const leadId = idParam(request.params.lead_id);
    if (leadId === null) throw new InmoError('NOT_FOUND');
    const session = request.consoleSession!;
    try {
      await moveOwnerStage(db, {
        businessId: session.businessId,
        leadId,
        stage: field(request.body, 'stage'),
        actor: { type: 'user', id: session.userId },
      });
    } catch (error) {
      if (!(error instanceof InmoError) || !(error.code in REFUSALS)) throw error;
      request.errorCode = error.code;
      return board(request, reply, request.t(REFUSALS[error.code as keyof typeof REFUSALS]), 422);
    }
    return reply.code(303).header('location', `/console/owners?moved=${leadId}#owner-${leadId}`).send();
  });

  // A report sent to an owner (CONTRACT §24), as the owner sees it: in the owner's language, as composed.
  app.get<{ Params: { lead_id: string; report_id: string } }>('/leads/:lead_id/reports/:report_id', async (request, reply) => {
    const leadId = idParam(request.params.lead_id);
    const reportId = idParam(request.params.report_id);
    if (leadId === null || reportId === null) throw new InmoError('NOT_FOUND');
    const page = await readReportOfOwner(db, request.consoleSession!.businessId, leadId, reportId);
    if (page === null) throw new InmoError('NOT_FOUND');
    return reply.code(200).type('text/html; charset=utf-8').send(renderReportPage(page));
  });

  // The valuation report of an owner's listing (CONTRACT §24): an A4 PDF in the console's language.
  app.get<{ Params: { lead_id: string } }>('/leads/:lead_id/valuation.pdf', async (request, reply) => {
    const leadId = idParam(request.params.lead_id);
    const propertyId = idParam(query(request).property ?? '');
    if (leadId === null || propertyId === null) throw new InmoError('NOT_FOUND');
    let made: Awaited<ReturnType<typeof valuationPdf>>;
    try {
      made = await valuationPdf(db, request.consoleSession!.businessId, leadId, propertyId, request.consoleLanguage);
    } catch (error) {
      if (error instanceof InmoError && (error.code === 'LEAD_NOT_FOUND' || error.code === 'PROPERTY_NOT_FOUND'))
        throw new InmoError('NOT_FOUND');
      throw error;
    }
    return sendPdf(reply, made.pdf, made.fileName);
  });
}
