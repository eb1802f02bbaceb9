/**
 * The website kit's script (issue 30, CONTRACT §17), for any site to load:
 * - `GET /embed/v1/inmo.js`: the current module, `Cache-Control: public, max-age=300`;
 * - `GET /embed/v1/inmo.<hash>.js`: the same bytes under their hash, cached for good
 *   (`immutable`): the copy `inmo embed snippet` pastes, with its SRI `integrity`.
 * Both are sent with `Access-Control-Allow-Origin: *`, which a `crossorigin="anonymous"` script
 * with `integrity` needs, and answered 304 to a matching `If-None-Match`.
 * - `GET /embed/demo?key=AC_PUB_…`: a page of this server showing the elements over the key's
 *   business's catalogue (`npm start` prints its link with a publishable key for this origin),
 *   the Eta template `views/embed-demo.eta` ({@link embedDemoRoute}).
 */
import type { FastifyInstance } from 'fastify';
import { parseApiKey } from '../domain/access/api-key.ts';
import { embedBundle } from '../services/integrations/website-kit-bundle.ts';
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

/**
 * Registers `GET /embed/demo` on the public pages' instance (http/public-pages.ts, where
 * @fastify/view renders `views/embed-demo.eta` in the pages' layout): the catalogue and the rental
 * form over the key `key` (a publishable key, 200), or how to open the page with one (400).
 */
export function embedDemoRoute(pages: FastifyInstance): void {
  pages.get<{ Querystring: { key?: string } }>('/embed/demo', { schema: { hide: true } }, async (request, reply) => {
    const key = typeof request.query.key === 'string' ? request.query.key.trim() : '';
    const { hash, integrity } = await embedBundle();
    const origin = `${request.protocol}://${request.host}`;
    const valid = parseApiKey(key)?.publishable === true;
    reply
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      // Only this server: the elements' styles live in their shadow roots' <style>.
      .header(
        'content-security-policy',
        "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
      );
    const page = { origin, api: `${origin}/v1/ext`, key: valid ? key : null, script: `/embed/v1/inmo.${hash}.js`, integrity };
    return reply
      .code(valid ? 200 : 400)
      .type('text/html; charset=utf-8')
      .view('embed-demo.eta', { ...page, lang: 'es', title: 'Demo del kit web de inmo', icon: true, bodyClass: null });
  });
}
