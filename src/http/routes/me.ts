/** GET /me (spec §4.6): which business and scopes the key belongs to. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Me } from '../../schemas/api.ts';

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      config: { scope: null },
      schema: {
        operationId: 'getKeyContext',
        tags: ['keys'],
        summary: 'Get key context',
        description: 'Any active key may call it; no scope is needed.',
        querystring: Type.Object({}),
        response: { 200: Me },
      },
    },
    async (request) => {
      const key = request.apiKey!;
      return { status: 'ok' as const, user: { company_name: key.businessName, scopes: key.scopes, auth_method: 'api_key' as const } };
    },
  );
};
