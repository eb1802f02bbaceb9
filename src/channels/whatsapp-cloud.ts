/**
 * WhatsApp Cloud API adapter (CONTRACT §7, §10): sends an approved template message (the
 * welcome) or a text message (a reply inside the 24-hour customer-service window).
 *
 * The call is the Graph API `messages` endpoint of the business phone number:
 *
 *     POST {base_url}/{phone_number_id}/messages
 *     Authorization: Bearer {access token}
 *     {"messaging_product": "whatsapp", "recipient_type": "individual", "to": "+34…",
 *      "biz_opaque_callback_data": "<inmo message id>",
 *      "type": "template", "template": {"name": "…", "language": {"code": "es"}}}
 *     (or "type": "text", "text": {"body": "…", "preview_url": true}; or "type": "interactive",
 *     "interactive": {"type": "list", "body": {"text": "…"}, "action": {"button": "…", "sections":
 *     [{"title": "…", "rows": [{"id", "title", "description"}]}]}}: the assistant's viewing slots)
 *
 * `biz_opaque_callback_data` comes back in every status webhook of the message, so a status
 * finds its message even when the send's own answer was lost (CONTRACT §10).
 *
 * and a 200 answer carries the message id in `messages[0].id`. The answer is classified so
 * the caller can keep the send-once promise:
 * - `sent`: the provider accepted the message;
 * - `retry`: it certainly did not (429, 5xx, or no connection could be made): try again later;
 * - `rejected`: any other 4xx, or a destination that is not a public address (src/channels/outbound.ts);
 *   trying again would fail the same way;
 * - `unknown`: the request may have reached the provider (a timeout or a connection lost
 *   after sending): it must not be sent again without a person checking.
 *
 * The token goes only into the Authorization header; no error text here carries it.
 */

import type { OutboundPolicy } from '../config.ts';
import { outboundFetch, PRIVATE_ADDRESS } from './outbound.ts';
import type { InteractiveList } from '../domain/messaging/viewing-offer.ts';

/** Default Graph API base (version included). */
export const GRAPH_API_BASE = 'https://graph.facebook.com/v21.0';

/** Template language per lead `preferred_language` (CONTRACT §7); anything else gets `es`. */
export const DEFAULT_TEMPLATE_LANGUAGES: Readonly<Record<string, string>> = { es: 'es', gb: 'en', fr: 'fr', ge: 'de', it: 'it' };
export const FALLBACK_TEMPLATE_LANGUAGE = 'es';

/** One send: a template, or a text inside the customer-service window. */
export interface OutboundMessage {
  baseUrl: string;
  phoneNumberId: string;
  accessToken: string;
  /** E.164. */
  to: string;
  /** inmo's own message id, echoed back by the provider's status webhooks. */
  callbackData: string;
  content:
    | {
        type: 'template';
        template: string;
        /** Template language code, e.g. `es`, `en`. */
        language: string;
        /** The body's parameters, {{1}} first (plain text); none when absent. */
        parameters?: string[];
        /** The payloads of the template's quick-reply buttons, in their order; none when absent. */
        buttons?: string[];
      }
    | { type: 'text'; body: string }
    | ({ type: 'list' } & InteractiveList);
}

export type SendOutcome =
  | { kind: 'sent'; messageId: string | null }
  | { kind: 'retry'; error: string }
  | { kind: 'rejected'; error: string }
  | { kind: 'unknown'; error: string };

/** Network errors raised before any byte of the request could reach the provider. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** The template language for a lead's `preferred_language`, by the channel's mapping. */
export function templateLanguage(languages: Readonly<Record<string, string>>, preferred: string | null): string {
  return (preferred !== null && Object.hasOwn(languages, preferred) ? languages[preferred] : undefined) ?? FALLBACK_TEMPLATE_LANGUAGE;
}

/**
 * The welcome a new lead is queued (CONTRACT §7, §9): the channel's approved template, in the
 * language {@link templateLanguage} gives the lead's `preferred_language` by the channel's mapping
 * (`languages`, JSON text as stored). Null without a channel: no channel when the lead arrived,
 * no message. The one rule of the welcome: the intake's transactional path and a new lead's one
 * statement (services/leads/new-lead-at-once.ts) both take it from here.
 */
export function welcomeTemplate(
  channel: { template: string; languages: string } | undefined,
  preferred: string | null,
): { template: string; language: string } | null {
  if (channel === undefined) return null;
  return { template: channel.template, language: templateLanguage(JSON.parse(channel.languages) as Record<string, string>, preferred) };
}

/** The provider's own error text from a Graph error body, shortened. */
function providerError(status: number, body: string): string {
  let detail = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string; code?: number } };
    if (parsed.error?.message) detail = `${parsed.error.message}${parsed.error.code !== undefined ? ` (code ${parsed.error.code})` : ''}`;
  } catch {
    // not JSON: the start of the body is the best description
  }
  return `HTTP ${status}: ${detail}`;
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A template's `components`: the body's text parameters and each quick-reply button's payload
 * (Cloud API's shape); nothing when it has neither.
 */
function templateComponents(content: { parameters?: string[]; buttons?: string[] }): { components?: unknown[] } {
  const components: unknown[] = [];
  if (content.parameters?.length) {
    components.push({ type: 'body', parameters: content.parameters.map((text) => ({ type: 'text', text })) });
  }
  (content.buttons ?? []).forEach((payload, index) =>
    components.push({ type: 'button', sub_type: 'quick_reply', index: String(index), parameters: [{ type: 'payload', payload }] }),
  );
  return components.length ? { components } : {};
}

/** The Graph request body of a send. */
export function graphBody(message: OutboundMessage): Record<string, unknown> {
  const { content } = message;
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to,
    biz_opaque_callback_data: message.callbackData,
    ...(content.type === 'template'
      ? { type: 'template', template: { name: content.template, language: { code: content.language }, ...templateComponents(content) } }
      : content.type === 'list'
        ? {
            type: 'interactive',
            interactive: {
              type: 'list',
              body: { text: content.body },
              action: { button: content.button, sections: [{ title: content.section, rows: content.rows }] },
            },
          }
        : { type: 'text', text: { body: content.body, preview_url: true } }),
  };
}

/**
 * Sends a message.
 * @param options.outbound where requests may go (config.ts `OutboundPolicy`).
 * @param options.timeoutMs how long to wait for the answer before calling the outcome `unknown` (default 15,000 ms).
 */
export async function sendWhatsAppMessage(
  message: OutboundMessage,
  options: { outbound: OutboundPolicy; timeoutMs?: number },
): Promise<SendOutcome> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const url = `${message.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(message.phoneNumberId)}/messages`;
  let response: Response;
  let body: string;
  try {
    response = await outboundFetch(
      url,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${message.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(graphBody(message)),
        signal: AbortSignal.timeout(timeoutMs),
      },
      options.outbound,
    );
    body = await response.text();
  } catch (error) {
    const code = errorCode(error);
    // Refused before connecting (src/channels/outbound.ts): nothing was sent, and retrying cannot help.
    if (code === PRIVATE_ADDRESS) return { kind: 'rejected', error: (error as Error & { cause?: Error }).cause?.message ?? 'refused' };
    if (code !== undefined && NOT_CONNECTED.has(code)) return { kind: 'retry', error: `no connection to the provider (${code})` };
    const what =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : `connection lost (${code ?? 'unknown error'})`;
    return { kind: 'unknown', error: `${what}; the provider may have sent the message` };
  }
  if (response.ok) {
    try {
      const parsed = JSON.parse(body) as { messages?: Array<{ id?: unknown }> };
      const id = parsed.messages?.[0]?.id;
      return { kind: 'sent', messageId: typeof id === 'string' ? id : null };
    } catch {
      return { kind: 'sent', messageId: null };
    }
  }
  // A provider that echoes the request back must not put the token into `last_error` or the logs.
  const error = providerError(response.status, body).replaceAll(message.accessToken, '[token]');
  if (response.status === 429 || response.status >= 500) return { kind: 'retry', error };
  return { kind: 'rejected', error };
}
