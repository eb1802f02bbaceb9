/**
 * The WhatsApp webhook (CONTRACT §10), outside `/v1/ext` and without an API key: Meta
 * proves itself with the verify token (handshake) and the app secret (every delivery).
 *
 * - `GET /webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=T&hub.challenge=C` → 200 `C`
 *   (`text/plain`) when T is a connected channel's verify token; else 403.
 * - `POST /webhooks/whatsapp` → the body is read raw (this plugin's own content-type parser,
 *   any type), its `X-Hub-Signature-256` checked before anything is parsed (401, nothing
 *   stored, when missing or wrong), then stored with a job and acknowledged 200 at once
 *   (services/messaging/whatsapp-inbound.ts). A delivery for a number no channel has is acknowledged, logged
 *   and dropped: Meta would otherwise retry it for days.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../../db/database.ts';
import { WEBHOOK_PATH } from '../../services/messaging/channels.ts';
import { acceptDelivery, verifySubscription, type WebhookChannels } from '../../services/messaging/whatsapp-inbound.ts';

export const webhookRoutes: FastifyPluginAsync<{ db: Db; channels: WebhookChannels; onJobsQueued: () => void }> = async (
  app,
  { db, channels, onJobsQueued },
) => {
  // The signature is over the exact bytes: keep them, whatever the content type says.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.get(WEBHOOK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const challenge = await verifySubscription(channels, request.query as Record<string, unknown>);
    return reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(challenge);
  });

  app.post(WEBHOOK_PATH, { schema: { hide: true } }, async (request) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const signatureHeader = request.headers['x-hub-signature-256'];
    const accepted = await acceptDelivery(db, channels, raw, typeof signatureHeader === 'string' ? signatureHeader : undefined);
    if (accepted.unknownNumbers.length) {
      request.log.warn({ phone_number_ids: accepted.unknownNumbers }, 'webhook: no channel has this phone number id; dropped');
    }
    if (accepted.stored > 0) onJobsQueued();
    return { status: 'ok' };
  });
};
