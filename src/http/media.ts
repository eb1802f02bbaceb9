/**
 * `GET /media/<key>` (CONTRACT §14): listings' photos from the media store (media/store.ts),
 * with immutable cache headers (a key never changes its bytes), readable by any website that
 * shows the catalogue. Anything that is not a stored photo's key is a 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IMMUTABLE, type MediaStore } from '../media/store.ts';
import { serverOrigin } from './origin.ts';

/** Where photos are kept and how their public URLs are made. */
export interface MediaOptions {
  store: MediaStore;
  /** `INMO_MEDIA_PUBLIC_URL`: photos are linked there (the bucket, a CDN) instead of at `/media/` on this server. */
  publicUrl: string | null;
}

/**
 * The public URL of a media key: under `INMO_MEDIA_PUBLIC_URL` when set, else `/media/` on this
 * server (http/origin.ts: `INMO_PUBLIC_URL`, else the address the connection reached, never
 * the request's `Host`).
 */
export function mediaUrl(media: MediaOptions, serverUrl: string | null, request: FastifyRequest, key: string): string {
  if (media.publicUrl !== null) return `${media.publicUrl}/${key}`;
  return `${serverOrigin(request, serverUrl)}/media/${key}`;
}

/** Registers `GET /media/*` (and its HEAD) on the root instance. */
export function mediaRoutes(app: FastifyInstance, media: MediaOptions): void {
  app.get('/media/*', { schema: { hide: true } }, async (request, reply) => {
    const object = await media.store.get((request.params as { '*': string })['*']);
    if (!object) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    return reply
      .header('content-type', object.contentType)
      .header('content-length', object.bytes)
      .header('cache-control', IMMUTABLE)
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(object.body);
  });
}
