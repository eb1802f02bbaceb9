/** GET /me (spec §4.6): which business and scopes the key belongs to. */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { Me } from '../../schemas/api.ts';
import { apiRoute } from '../route.ts';

export function meRoutes(app: FastifyInstance, db: Db): void {
  apiRoute(app, db, {
    method: 'GET',
    url: '/me',
    scope: null,
    operationId: 'getKeyContext',
    tags: ['keys'],
    summary: 'Get key context',
    description: 'Any active key may call it; no scope is needed.',
    querystring: Type.Object({}),
    params: Type.Object({}),
    responses: { 200: Me },
    handler: async ({ key }) => ({
      status: 'ok',
      user: { company_name: key.businessName, scopes: key.scopes, auth_method: 'api_key' },
    }),
  });
}
