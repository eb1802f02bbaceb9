/**
 * The overview, `GET /`: counts of leads, recent leads, public listings and active keys.
 */
import type { FastifyInstance } from 'fastify';
import { countPublished } from '../../../db/repositories/properties.ts';
import { searchLeads } from '../../../db/repositories/leads.ts';
import { keyState, listApiKeys } from '../../../services/api-keys.ts';
import { render } from '../page.ts';
import { DAY_MS, type ConsoleDeps } from '../forms.ts';

export async function overviewPage(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  app.get('/', async (request, reply) => {
    const { businessId } = request.consoleSession!;
    const now = Date.now();
    const [leads, recent, properties, keys] = await Promise.all([
      searchLeads(db, businessId, {}, 0, 0),
      searchLeads(db, businessId, { createdFrom: new Date(now - 7 * DAY_MS).toISOString() }, 0, 0),
      countPublished(db, businessId, { limit: 0, offset: 0, areas: [] }),
      listApiKeys(db, businessId),
    ]);
    return render(reply, 'overview', {
      counts: {
        leads: leads.total,
        recent: recent.total,
        properties,
        keys: keys.filter((k) => keyState(k, now) === 'active').length,
      },
    });
  });
}
