/**
 * The business's settings (owners; CONTRACT §20): `GET /settings` shows them, `POST /settings`
 * (field `visit_sheet_clause`) saves them. For now one: the clause printed on every visit sheet
 * and signed by the visitor (services/viewings/visit-sheet.ts): empty goes back to the default
 * clause in Spanish; longer than CLAUSE_MAX characters is refused beside the field (422, nothing
 * stored). Sheets signed before keep the clause they were signed with.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CLAUSE_MAX } from '../../../domain/viewings/visit-sheet.ts';
import { setVisitSheetClauseText, visitSheetClause, VisitSheetFormError } from '../../../services/viewings/visit-sheet.ts';
import { csrfCheckedRoute, field, type ConsoleDeps } from '../forms.ts';
import { render } from '../page.ts';

export async function settingsPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const page = async (request: FastifyRequest, reply: FastifyReply, typed?: { clause: string; fault: string }) => {
    const clause = await visitSheetClause(db, request.consoleSession!.businessId);
    return render(
      reply,
      'settings',
      {
        title: request.t('settings_title'),
        clause: typed?.clause ?? clause.text,
        custom: clause.custom,
        fault: typed?.fault ?? null,
        clauseMax: CLAUSE_MAX,
        saved: (request.query as Record<string, string | undefined>).saved === '1' && typed === undefined,
      },
      typed ? 422 : 200,
    );
  };

  app.get('/settings', { config: { consoleAccess: 'owner' } }, async (request, reply) => page(request, reply));

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
}
