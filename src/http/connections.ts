/**
 * Bounds on a client's connection in time, and the courtesy of reading a refused body
 * (CONTRACT §8; docs/security.md, "Limits of a request"):
 *
 * - headers must arrive within `headersTimeoutMs` (Node's own check, run every second rather
 *   than Node's default 30 s, so a slow client is cut close to the limit);
 * - a body within `bodyTimeoutMs` of the request's arrival: beyond, the answer is 408 and the
 *   connection closed. A file uploaded in the console gets `uploadTimeoutMs` instead, but only
 *   once its route has checked the session and the CSRF token ({@link allowUpload}): a stranger
 *   never holds a connection longer than `bodyTimeoutMs`;
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

/** The body deadline of each request being watched, and the upload deadline it may be given. */
const WATCHED = new WeakMap<IncomingMessage, { timer: NodeJS.Timeout; uploadTimeoutMs: number }>();

/** Requests whose body deadline passed: their answer goes at once, and closes the connection. */
const TIMED_OUT = new WeakSet<IncomingMessage>();

/**
 * Gives a request's body its deadline, `bodyTimeoutMs` from now (its headers are in): when it
 * passes with the body still arriving, a body Fastify is reading fails with 408 (answered with
 * `Connection: close`), and any other (a console upload being read) has its connection closed.
 * Called for every request before it is dispatched.
 */
export function watchBody(req: IncomingMessage, _res: ServerResponse, limits: ConnectionLimits): void {
  if (!hasBody(req)) return;
  arm(req, limits.bodyTimeoutMs, limits.uploadTimeoutMs);
  const clear = () => {
    clearTimeout(WATCHED.get(req)?.timer);
    WATCHED.delete(req);
  };
  req.once('end', clear);
  req.once('close', clear);
}

function arm(req: IncomingMessage, ms: number, uploadTimeoutMs: number): void {
  const timer = setTimeout(() => {
    // A body being discarded has its own bound (discardBody), and its answer is on its way.
    if (req.complete || DISCARDING.has(req)) return;
    TIMED_OUT.add(req);
    // Fastify's body parser listens for errors on the request, and answers with the error's status.
    if (req.listenerCount('error') > 0 && !UPLOADING.has(req)) req.emit('error', new BodyTimeoutError('request body timeout'));
    else req.socket.destroy();
  }, ms);
  timer.unref();
  WATCHED.set(req, { timer, uploadTimeoutMs });
}

/** Requests whose body a console route reads as files (multipart), once allowed. */
const UPLOADING = new WeakSet<IncomingMessage>();

/**
 * Gives a console upload `uploadTimeoutMs` from now for its body, instead of `bodyTimeoutMs`.
 * Called by the route that reads files, after the session and the CSRF token are checked.
 */
export function allowUpload(req: IncomingMessage): void {
  const watched = WATCHED.get(req);
  if (watched === undefined) return;
  clearTimeout(watched.timer);
  UPLOADING.add(req);
  arm(req, watched.uploadTimeoutMs, watched.uploadTimeoutMs);
}

/** Requests whose body is being read and thrown away before their answer. */
const DISCARDING = new WeakSet<IncomingMessage>();

/**
 * Reads and discards what is left of a request's body, up to `maxBytes`, before its answer.
 * @returns `ended` when the body ended (the connection may be kept), or `cut` when `maxBytes`
 *   were passed, `ms` elapsed, or the request failed or closed (the answer then closes it).
 */
export function discardBody(req: IncomingMessage, maxBytes: number, ms: number): Promise<'ended' | 'cut'> {
  if (req.complete || req.readableEnded) return Promise.resolve('ended');
  if (req.destroyed) return Promise.resolve('cut');
  DISCARDING.add(req);
  return new Promise((resolve) => {
    let bytes = 0;
    const done = (how: 'ended' | 'cut') => {
      clearTimeout(timer);
      DISCARDING.delete(req);
      req.off('data', onData).off('end', onEnd).off('close', onCut).off('error', onCut);
      resolve(how);
    };
    const onEnd = () => done('ended');
    const onCut = () => done('cut');
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done('cut');
    };
    const timer = setTimeout(onCut, ms);
    req.on('data', onData).once('end', onEnd).once('close', onCut).once('error', onCut);
    req.resume();
  });
}

/**
 * Installs {@link discardBody} before every answer of the app whose request body is still
 * arriving; an answer whose body was cut short closes its connection (`Connection: close`).
 */
export function discardRefusedBodies(app: FastifyInstance, limits: ConnectionLimits): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const req = request.raw;
    if (req.complete || !hasBody(req)) return done(null, payload);
    // Its time is up already: no more of it is read.
    if (TIMED_OUT.has(req)) {
      reply.header('connection', 'close');
      return done(null, payload);
    }
    discardBody(req, limits.discardBodyBytes, limits.bodyTimeoutMs).then((how) => {
      if (how === 'cut') reply.header('connection', 'close');
      done(null, payload);
    }, done);
  });
}
