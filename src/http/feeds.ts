/**
 * `GET /feeds/<token>/kyero.xml` (CONTRACT §15) and `GET /feeds/<token>/idealista.json` (§22): a
 * published feed, with no key (portals fetch a URL). A token that names no live feed, or a file
 * name that is not its format's, is a 404 like any unknown path.
 *
 * The strong `ETag` names the catalogue version the document was read at (the same version
 * always gives the same bytes), so `If-None-Match` is answered 304 before anything is built. A
 * document already built for that version is sent from memory (its gzip form made once, when it
 * was built); otherwise it is sent as it is built, compressed on the way, and kept. A change to
 * the catalogue while it is sent cuts the response short (services/catalogue/feeds/published-feeds.ts), so no client
 * keeps bytes under an ETag they are not.
 */
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { ChangeWatch } from '../db/change-watch.ts';
import type { Db } from '../db/database.ts';
import { FEED_FILES, FEED_FORMATS } from '../domain/catalogue/feed-formats.ts';
import { feedDocument, feedVersion } from '../services/catalogue/feeds/published-feeds.ts';
import { noneMatch } from './conditional.ts';

/** Registers the feed routes on the root instance, one per format. */
export function feedRoutes(app: FastifyInstance, db: Db, changes: ChangeWatch): void {
  for (const format of FEED_FORMATS) {
    const { file, type } = FEED_FILES[format];
    app.get<{ Params: { token: string } }>(`/feeds/:token/${file}`, { schema: { hide: true }, compress: false }, async (request, reply) => {
      const notFound = () => reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
      const live = await feedVersion(db, request.params.token, changes.stamp());
      if (!live || live.feed.format !== format) return notFound();
      const accepted = request.headers['accept-encoding'];
      const coding = typeof accepted === 'string' && negotiate(accepted, ['gzip']) === 'gzip' ? 'gzip' : null;
      const etag = (version: string) => (coding ? `"${format}-${version}-gzip"` : `"${format}-${version}"`);
      reply.header('cache-control', 'public, no-cache').header('vary', 'Accept-Encoding').header('x-content-type-options', 'nosniff');
      const ifNoneMatch = request.headers['if-none-match'];
      if (typeof ifNoneMatch === 'string' && noneMatch(ifNoneMatch, `${format}-${live.version}`)) {
        return reply.code(304).header('etag', etag(live.version)).send();
      }
      const feed = await feedDocument(db, live.feed);
      if (!feed) return notFound();
      // The version the document was read at (a change may have come in between).
      reply.header('etag', etag(feed.version)).type(type);
      if ('document' in feed) {
        if (!coding) return reply.send(feed.document);
        return reply.header('content-encoding', 'gzip').send(await feed.gzipped);
      }
      const stream = Readable.from(feed.chunks());
      if (!coding) return reply.send(stream);
      // A document cut short (the catalogue changed while it was sent) must cut the response too.
      const gzipped = createGzip();
      stream.on('error', (error) => gzipped.destroy(error));
      return reply.header('content-encoding', 'gzip').send(stream.pipe(gzipped));
    });
  }
}
