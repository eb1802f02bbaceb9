/**
 * Meta's side of the WhatsApp webhook, for tests: payloads in the real shapes of the Cloud
 * API (`entry[].changes[].value` with `metadata`, `contacts`, `messages`, `statuses`), signed
 * with `X-Hub-Signature-256` as Meta signs them, and posted to the app.
 */
import type { FastifyInstance } from 'fastify';
import { signature } from '../../src/channels/whatsapp-webhook.ts';
import type { Db } from '../../src/db/database.ts';
import { connectChannel, type ChannelSettings } from '../../src/services/messaging/channels.ts';

export const APP_SECRET = 'meta-app-secret-used-only-in-tests';
export const PHONE_NUMBER_ID = '1099887766';

let counter = 0;
const unixNow = () => String(Math.floor(Date.now() / 1000));

function envelope(phoneNumberId: string, value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '34910000000', phone_number_id: phoneNumberId },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

/** A message from a lead: text by default, or any WhatsApp type with its own object. */
export function inbound(options: {
  from: string;
  text?: string;
  id?: string;
  name?: string;
  /** Unix seconds, as WhatsApp sends it. */
  timestamp?: string;
  type?: string;
  part?: Record<string, unknown>;
  phoneNumberId?: string;
}) {
  const type = options.type ?? 'text';
  const message: Record<string, unknown> = {
    from: options.from,
    id: options.id ?? `wamid.in${++counter}.${Date.now()}`,
    timestamp: options.timestamp ?? unixNow(),
    type,
    [type]: options.part ?? (type === 'text' ? { body: options.text ?? '' } : {}),
  };
  return envelope(options.phoneNumberId ?? PHONE_NUMBER_ID, {
    contacts: [{ profile: { name: options.name ?? 'Lucía' }, wa_id: options.from }],
    messages: [message],
  });
}

/** A status of a message inmo sent. */
export function status(options: {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipient: string;
  callbackData?: string;
  errors?: Array<{ code: number; title: string }>;
  phoneNumberId?: string;
}) {
  return envelope(options.phoneNumberId ?? PHONE_NUMBER_ID, {
    statuses: [
      {
        id: options.id,
        status: options.status,
        timestamp: unixNow(),
        recipient_id: options.recipient,
        ...(options.callbackData === undefined ? {} : { biz_opaque_callback_data: options.callbackData }),
        ...(options.errors ? { errors: options.errors } : {}),
      },
    ],
  });
}

/** Posts a payload as Meta does: the exact bytes, signed (or with the signature given). */
export async function deliver(app: FastifyInstance, payload: unknown, options: { secret?: string; signature?: string | null } = {}) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const signed = options.signature === undefined ? signature(body, options.secret ?? APP_SECRET) : options.signature;
  if (signed !== null) headers['x-hub-signature-256'] = signed;
  return app.inject({ method: 'POST', url: '/webhooks/whatsapp', headers, payload: body });
}

/**
 * Connects the business's channel to a fake Graph API (test/helpers/fake-graph.ts): template
 * `bienvenida`, {@link PHONE_NUMBER_ID}, webhooks signed with {@link APP_SECRET}; `more` on top.
 */
export function connectFakeChannel(db: Db, businessId: number, baseUrl: string, more: Partial<ChannelSettings> = {}) {
  return connectChannel(
    db,
    {
      businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: PHONE_NUMBER_ID,
      tokenEnv: 'WA_TOKEN',
      appSecretEnv: 'WA_APP_SECRET',
      template: 'bienvenida',
      baseUrl,
      ...more,
    },
    { WA_TOKEN: 'token-of-the-tests', WA_APP_SECRET: APP_SECRET },
  );
}
