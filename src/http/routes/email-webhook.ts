/**
 * Portal e-mails in (CONTRACT §19): `POST /webhooks/email/<token>`, outside `/v1/ext` and
 * without an API key, as inbound-parse services and mail servers' pipes post a message: the
 * raw message as the body, `Content-Type: message/rfc822`, 10 MiB at most.
 *
 * Before the body is read, in this order: the token must name a live address of a business
 * (404 `Not Found`, as any unknown path, otherwise), the content type must be
 * `message/rfc822` (415), and a declared length must be within the limit (413; a body that
 * turns out longer is cut at the limit with the same 413). None of these writes anything.
 * Then the message is kept with its job and acknowledged 202 `{"status": "accepted"}`, also
 * when it was kept before (services/leads/email-intake.ts). The token is never logged: the
 * request's log line names the route's pattern.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { InmoError } from '../../errors.ts';
import { acceptInboundEmail, EMAIL_MAX_BYTES, inboundBusinessOf } from '../../services/leads/email-intake.ts';

/** The route's path. */
export const EMAIL_WEBHOOK_PATH = '/webhooks/email/:token';

/** Whether a `Content-Type` header is `message/rfc822` (parameters and case aside). */
function isRfc822(contentType: string | undefined): boolean {
  return typeof contentType === 'string' && contentType.split(';')[0].trim().toLowerCase() === 'message/rfc822';
}

export const emailWebhookRoutes: FastifyPluginAsync<{ db: Db; writes: GroupCommit; onJobsQueued: () => void }> = async (
  app,
  { db, writes, onJobsQueued },
) => {
  /** The business each request's token named, found before its body is read. */
  const businessOf = new WeakMap<FastifyRequest, number>();

  // The message's exact bytes, whatever its type says; read only once the checks below passed,
  // and never past the limit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    payload.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > EMAIL_MAX_BYTES) {
        over = true;
        done(new InmoError('EMAIL_TOO_LARGE'), undefined);
      } else chunks.push(chunk);
    });
    payload.on('end', () => {
      if (!over) done(null, Buffer.concat(chunks));
    });
    payload.on('error', (error) => {
      if (!over) {
        over = true;
        done(error, undefined);
      }
    });
  });

  app.post<{ Params: { token: string } }>(
    EMAIL_WEBHOOK_PATH,
    {
      schema: { hide: true },
      bodyLimit: EMAIL_MAX_BYTES,
      onRequest: async (request) => {
        const businessId = await inboundBusinessOf(db, (request.params as { token: string }).token);
        if (businessId === null) throw new InmoError('NOT_FOUND');
        if (!isRfc822(request.headers['content-type'])) throw new InmoError('EMAIL_CONTENT_TYPE');
        const length = Number(request.headers['content-length']);
        if (Number.isFinite(length) && length > EMAIL_MAX_BYTES) throw new InmoError('EMAIL_TOO_LARGE');
        businessOf.set(request, businessId);
      },
    },
    async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { stored } = await acceptInboundEmail(db, businessOf.get(request)!, raw, writes);
      if (stored) onJobsQueued();
      return reply.code(202).send({ status: 'accepted' });
    },
  );
};
