/** GET /leads (spec §4.1, CONTRACT §1, §6). */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { LeadPage, LeadsQuery } from '../../schemas/api.ts';
import { listLeadsPage } from '../../services/leads.ts';
import { apiRoute } from '../route.ts';

export function leadRoutes(app: FastifyInstance, db: Db): void {
  apiRoute(app, db, {
    method: 'GET',
    url: '/leads',
    scope: 'leads:read',
    operationId: 'listLeads',
    tags: ['leads'],
    summary: 'List leads',
    description: 'The business’s leads, newest first (`created_at` desc, then `id` desc).',
    querystring: LeadsQuery,
    params: Type.Object({}),
    responses: { 200: LeadPage },
    handler: async ({ key, query }) => listLeadsPage(db, key.businessId, query.limit ?? 100, query.offset ?? 0),
  });
}
