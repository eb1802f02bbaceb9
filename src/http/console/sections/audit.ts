/**
 * The audit trail (owners; issue 31, CONTRACT §18): `GET /audit`, newest first, 50 a page
 * (`before`: the entries older than that one). Who is named as the console shows people: a
 * user by e-mail, a key by its name and id; the entry itself holds ids only.
 */
import type { FastifyInstance } from 'fastify';
import { listAudit } from '../../../services/access/audit.ts';
import { listApiKeys } from '../../../services/access/api-keys.ts';
import { displayName, listUsers } from '../../../services/access/console-users.ts';
import { render } from '../page.ts';
import { query, type ConsoleDeps } from '../forms.ts';

const PER_PAGE = 50;

export async function auditPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  app.get('/audit', { config: { consoleAccess: 'owner' } }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const before = query(request).before;
    const older = /^\d{1,10}$/.test(before ?? '') ? Number(before) : undefined;
    const entries = await listAudit(db, businessId, { limit: PER_PAGE + 1, before: older });
    const page = entries.slice(0, PER_PAGE);
    const names = new Map((await listUsers(db, businessId)).map((u) => [String(u.id), displayName(u)]));
    const keys = new Map((await listApiKeys(db, businessId)).map((k) => [k.key_id, k.name]));
    return render(reply, 'audit', {
      entries: page,
      names,
      keys,
      next: entries.length > PER_PAGE ? `/console/audit?before=${page.at(-1)!.id}` : null,
      first: older === undefined ? null : '/console/audit',
    });
  });
}
