/**
 * The website kit's script (issue 30, CONTRACT §17), for any site to load:
 * - `GET /embed/v1/inmo.js`: the current module, `Cache-Control: public, max-age=300`;
 * - `GET /embed/v1/inmo.<hash>.js`: the same bytes under their hash, cached for good
 *   (`immutable`): the copy `inmo embed snippet` pastes, with its SRI `integrity`.
 * Both are sent with `Access-Control-Allow-Origin: *`, which a `crossorigin="anonymous"` script
 * with `integrity` needs, and answered 304 to a matching `If-None-Match`.
 */
import type { FastifyInstance } from 'fastify';
import { embedBundle } from '../services/embed-bundle.ts';
import { noneMatch } from './conditional.ts';

/** Registers the script's routes on the root instance. */
export function embedRoutes(app: FastifyInstance): void {
  app.get<{ Params: { file: string } }>('/embed/v1/:file', { schema: { hide: true } }, async (request, reply) => {
    const name = /^inmo(?:\.([0-9a-f]{16}))?\.js$/.exec(request.params.file);
    const bundle = await embedBundle();
    if (!name || (name[1] !== undefined && name[1] !== bundle.hash)) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    }
    reply
      .header('cache-control', name[1] ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
      .header('etag', `"${bundle.hash}"`)
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff');
    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && noneMatch(ifNoneMatch, bundle.hash)) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(bundle.code);
  });
}
