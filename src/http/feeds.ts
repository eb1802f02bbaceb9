/**
 * `GET /feeds/<token>/kyero.xml` (CONTRACT §15): a published feed, with no key (portals fetch a
 * URL). A token that names no live feed is a 404 like any unknown path. The document has a
 * strong `ETag`, answers 304 to `If-None-Match`, and is compressed when the client accepts it
 * (http/conditional.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { feedDocument } from '../services/feeds.ts';
import { conditionalRoute } from './conditional.ts';

/** Registers the feed route on the root instance. */
export function feedRoutes(app: FastifyInstance, db: Db): void {
  app.get<{ Params: { token: string } }>(
    '/feeds/:token/kyero.xml',
    { schema: { hide: true }, ...conditionalRoute() },
    async (request, reply) => {
      const document = await feedDocument(db, request.params.token);
      if (!document) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
      return reply.type('application/xml; charset=utf-8').header('x-content-type-options', 'nosniff').send(document);
    },
  );
}
