/**
 * Bounds on a client's connection in time, and the courtesy of reading a refused body
 * (CONTRACT §8; docs/security.md, "Limits of a request"):
 *
 * - headers must arrive within `headersTimeoutMs` (Node's own check, run every second rather
 *   than Node's default 30 s, so a slow client is cut close to the limit);
 * - a body within `bodyTimeoutMs` of the request's arrival (`uploadTimeoutMs` for a file
 *   uploaded in the console): beyond, the API answers 408 and closes; a console upload is cut;
 * - an idle keep-alive connection is closed after `keepAliveTimeoutMs`;
 * - a request answered before its body was read (413, 401, 404…) has the rest of its body read
 *   and discarded, up to `discardBodyBytes` and the body's deadline, before the answer is sent:
 *   a client that writes its whole body before it reads (Python's urllib, many HTTP libraries)
 *   would otherwise meet a closed connection, not the answer.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Limits } from '../limits.ts';

type ConnectionLimits = Pick<Limits, 'headersTimeoutMs' | 'bodyTimeoutMs' | 'uploadTimeoutMs' | 'keepAliveTimeoutMs' | 'discardBodyBytes'>;

/** An error whose status Fastify's body parser keeps, rendered by the one error handler as the catalogue's 408. */
class BodyTimeoutError extends Error {
  readonly statusCode = 408;
  readonly code = 'BODY_TIMEOUT';
}

/** Sets the server's own timeouts: headers, keep-alive, and Node's bound on a whole request as a backstop. */
export function boundConnections(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's bound on the whole request, behind the body deadlines of {@link watchBody}.
  server.requestTimeout = limits.headersTimeoutMs + Math.max(limits.bodyTimeoutMs, limits.uploadTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
}

/** Node checks headers and request deadlines this often, ms (its default is 30 s). */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** Whether a request announces a body. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Whether a request is a file uploaded in the console (a catalogue file, photos). */
function isUpload(req: IncomingMessage): boolean {
  return (req.url ?? '').startsWith('/console/') && /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
}

/**
 * Gives a request's body its deadline, counted from now (its headers are in): when it passes
 * with the body still arriving, a body Fastify is reading fails with 408 (answered with
 * `Connection: close`), and any other (a console upload) has its connection closed.
 * Called for every request before it is dispatched.
 */
export function watchBody(req: IncomingMessage, _res: ServerResponse, limits: ConnectionLimits): void {
  if (!hasBody(req)) return;
  const timer = setTimeout(
    () => {
      if (req.complete) return;
      // Fastify's body parser listens for errors on the request, and answers with the error's status.
      if (!isUpload(req) && req.listenerCount('error') > 0) req.emit('error', new BodyTimeoutError('request body timeout'));
      else req.socket.destroy();
    },
    isUpload(req) ? limits.uploadTimeoutMs : limits.bodyTimeoutMs,
  );
  timer.unref();
  const clear = () => clearTimeout(timer);
  req.once('end', clear);
  req.once('close', clear);
}

/**
 * Reads and discards what is left of a request's body, up to `maxBytes`, before its answer.
 * @returns when the body has ended, `maxBytes` were passed, the request closed or `ms` elapsed.
 */
export function discardBody(req: IncomingMessage, maxBytes: number, ms: number): Promise<void> {
  if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done();
    };
    const timer = setTimeout(done, ms);
    req.on('data', onData).once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}

/** Installs {@link discardBody} before every answer of the app whose request body is still arriving. */
export function discardRefusedBodies(app: FastifyInstance, limits: ConnectionLimits): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    const req = request.raw;
    if (req.complete || !hasBody(req)) return done(null, payload);
    const ms = isUpload(req) ? limits.uploadTimeoutMs : limits.bodyTimeoutMs;
    discardBody(req, limits.discardBodyBytes, ms).then(
      () => done(null, payload),
      () => done(null, payload),
    );
  });
}
