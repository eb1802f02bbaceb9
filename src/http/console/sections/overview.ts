/**
 * The overview, `GET /`: counts of leads, recent leads, public listings and active keys.
 */
import type { FastifyInstance } from 'fastify';
import { workspaceFigures } from '../../../services/leads/leads.ts';
import { render } from '../page.ts';
import type { ConsoleDeps } from '../forms.ts';

export async function overviewPage(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  app.get('/', async (request, reply) =>
    render(reply, 'overview', { counts: await workspaceFigures(db, request.consoleSession!.businessId) }),
  );
}
