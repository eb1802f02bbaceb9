/**
 * The website kit's script (issue 30, CONTRACT §17), for any site to load:
 * - `GET /embed/v1/inmo.js`: the current module, `Cache-Control: public, max-age=300`;
 * - `GET /embed/v1/inmo.<hash>.js`: the same bytes under their hash, cached for good
 *   (`immutable`): the copy `inmo embed snippet` pastes, with its SRI `integrity`.
 * Both are sent with `Access-Control-Allow-Origin: *`, which a `crossorigin="anonymous"` script
 * with `integrity` needs, and answered 304 to a matching `If-None-Match`.
 * - `GET /embed/demo?key=AC_PUB_…`: a page of this server showing the elements over the key's
 *   business's catalogue (`npm start` prints its link with a publishable key for this origin).
 */
import type { FastifyInstance } from 'fastify';
import { escapeUTF8 } from 'entities';
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

  app.get<{ Querystring: { key?: string } }>('/embed/demo', { schema: { hide: true } }, async (request, reply) => {
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
    return reply
      .code(valid ? 200 : 400)
      .type('text/html; charset=utf-8')
      .send(demoPage(origin, valid ? key : null, `/embed/v1/inmo.${hash}.js`, integrity));
  });
}

/** The demo page: the catalogue and the rental form with `key`, or how to open it with one. */
function demoPage(origin: string, key: string | null, script: string, integrity: string): string {
  const attrs = key === null ? '' : `api="${escapeUTF8(`${origin}/v1/ext`)}" key="${escapeUTF8(key)}" lang="es"`;
  const body =
    key === null
      ? `<p>Ábrela con una clave publicable de este origen: <code>/embed/demo?key=AC_PUB_…</code> (<code>npm start</code> imprime el enlace; <code>npx inmo keys create --business 1 --publishable --origin ${escapeUTF8(origin)}</code> crea una).</p>`
      : `<section aria-labelledby="h-list"><h2 id="h-list">Nuestros inmuebles</h2><inmo-listings ${attrs}></inmo-listings></section>
<section aria-labelledby="h-rent"><h2 id="h-rent">¿Buscas piso de alquiler?</h2><inmo-rental-form ${attrs}></inmo-rental-form></section>`;
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo del kit web de inmo</title>
<script type="module" src="${escapeUTF8(script)}" integrity="${escapeUTF8(integrity)}" crossorigin="anonymous"></script>
</head><body style="font-family:system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:1rem">
<main><h1>Demo del kit web de inmo</h1>
<p>Lo que ve una agencia que pega en su web las dos líneas de <code>npx inmo embed snippet</code>.</p>
${body}</main></body></html>`;
}
