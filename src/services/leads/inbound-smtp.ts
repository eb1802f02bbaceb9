/**
 * The SMTP way in of portal e-mails (CONTRACT §25): the listener of channels/smtp-inbound.ts,
 * given what it needs to know of the businesses. A recipient is `<token>@INMO_INBOUND_DOMAIN` with
 * a live token (inbound-address.ts); a message accepted is stored as the webhook stores one
 * (email-intake.ts `acceptInboundEmail`: once per business, by `Message-ID` else its digest, with
 * its `process_email` job), so dedupe, trust and reading all apply to it alike. Started and
 * stopped by `inmo serve` (cli/processes.ts).
 */
import { readFileSync } from 'node:fs';
import { startInboundSmtp, type InboundSmtp } from '../../channels/smtp-inbound.ts';
import type { InboundSmtpSettings } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { acceptInboundEmail, EMAIL_MAX_BYTES } from './email-intake.ts';
import { businessOfInboundRecipient } from './inbound-address.ts';

/**
 * Starts receiving mail by SMTP on `settings.port` (0: a free port, for tests).
 * @param options.host the interface when the settings name none (`inmo serve`'s).
 * @param options.onJobsQueued called after a message was stored (the in-process worker wakes).
 * @param options.onError told of a failure to look a recipient up or to store a message (never the message).
 * @param options.closeMs how long closing waits for connections under way, ms (default 30 s).
 * @throws Error when a TLS file cannot be read, or the port cannot be listened on.
 */
export async function startInboundMail(
  db: Db,
  settings: InboundSmtpSettings,
  options: { host: string; onJobsQueued: () => void; onError?: (error: unknown) => void; closeMs?: number },
): Promise<InboundSmtp> {
  const tls = settings.tls ? { cert: readFileSync(settings.tls.certFile), key: readFileSync(settings.tls.keyFile) } : null;
  return startInboundSmtp({
    port: settings.port,
    host: settings.host ?? options.host,
    domain: settings.domain,
    maxBytes: EMAIL_MAX_BYTES,
    maxConnections: settings.maxConnections,
    sessionMs: settings.sessionMs,
    tls,
    closeMs: options.closeMs,
    recipient: (address) => businessOfInboundRecipient(db, address, settings.domain),
    deliver: async (businessId, raw) => {
      const { stored } = await acceptInboundEmail(db, businessId, raw);
      if (stored) options.onJobsQueued();
    },
    onError: options.onError,
  });
}
