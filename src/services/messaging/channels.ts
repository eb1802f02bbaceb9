/**
 * Messaging channels (CONTRACT §7, §9, §10 `inmo channel connect`): a business connects one
 * WhatsApp Cloud API channel; the worker sends each new lead one template over it, and
 * WhatsApp posts the lead's replies and the messages' statuses to inmo's webhook.
 *
 * The access token and the Meta app secret are read from environment variables the operator
 * names, so they never appear on a command line, in shell history or in process listings;
 * they are stored sealed (src/secrets.ts) and never printed or logged (the summary returned
 * here leaves them out). The webhook verify token is generated here, stored sealed, and
 * returned once, with the callback URL to paste into Meta's dashboard.
 */
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import {
  DEFAULT_TEMPLATE_LANGUAGES,
  GRAPH_API_BASE,
  sendWhatsAppMessage,
  templateLanguage,
  type OutboundMessage,
  type SendOutcome,
} from '../../channels/whatsapp-cloud.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { openSecret, sealSecret } from '../../secrets.ts';
import { isPrivateHost } from '../../channels/outbound.ts';
import { outboundPolicy, type OutboundPolicy } from '../../config.ts';
import { InmoError } from '../../errors.ts';
import { CLI, recordAudit, type AuditActor } from '../access/audit.ts';
import { transact } from '../../db/transaction.ts';
import { randomBytes } from 'node:crypto';
import { findChannel, findChannelHolder, updateChannel, upsertChannel } from '../../db/repositories/messaging.ts';
import { signalChange } from '../../db/change-watch.ts';
import { replyLanguage, understand } from '../../domain/messaging/assistant.ts';
import { assistantOf, replyWithFallback } from './assistant.ts';
import { PROVIDERS } from '../../domain/messaging/providers.ts';
import { checkTemplates, storedTemplates, type ChannelTemplates } from '../../domain/messaging/templates.ts';

/** Path of the WhatsApp webhook on the server (CONTRACT §10). */
export const WEBHOOK_PATH = '/webhooks/whatsapp';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A secret read from the environment variable an option names (never the secret itself on the command line). */
function secretFromEnv(option: string, name: string, env: NodeJS.ProcessEnv): string {
  if (!ENV_NAME.test(name)) throw new InmoError('CHANNEL_SECRET_ENV_NOT_A_NAME', { option });
  const value = env[name]?.trim();
  if (!value) throw new InmoError('CHANNEL_SECRET_ENV_UNSET', { option, name });
  return value;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export { PROVIDERS };

/**
 * Whether the access token may be sent to `baseUrl` (CONTRACT §8): `https` on the Graph API's
 * host, or on a host the operator names in `INMO_CHANNEL_HOSTS` (comma-separated); with
 * `INMO_ALLOW_PRIVATE_NETWORK=1` also `http`, and loopback or private addresses (a provider
 * on a closed network, a test's fake). Anything else could carry the token to whoever an
 * owner names.
 */
function isProviderUrl(baseUrl: string, outbound: OutboundPolicy): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  const allowPrivate = outbound.allowPrivateNetwork;
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return false;
  if (url.username || url.password) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === new URL(GRAPH_API_BASE).hostname || outbound.channelHosts.includes(host)) return true;
  return allowPrivate && isPrivateHost(host);
}

export interface ChannelSettings {
  businessId: number;
  provider: string;
  phoneNumberId: string;
  /**
   * Name of the environment variable holding the access token; null keeps the stored token,
   * which is allowed only while the base URL stays on the same origin.
   */
  tokenEnv: string | null;
  template: string;
  /** Graph API base with version; default {@link GRAPH_API_BASE}. */
  baseUrl?: string;
  /** `preferred_language` → template language overrides, e.g. `{gb: 'en_GB'}`. */
  languages?: Record<string, string>;
  /** Name of the environment variable holding the Meta app secret (signs webhooks). */
  appSecretEnv?: string;
  /** Listing link template with `{id}` (property id) or `{ref}` (external reference). */
  listingUrl?: string;
  /** The server's public base URL, for the callback URL printed. */
  publicUrl?: string;
  /**
   * Approved templates by purpose (CONTRACT §20, §21: `viewing_scheduled`, `viewing_rescheduled`,
   * `viewing_cancelled`, `viewing_reminder`, `valuation_*` of each, `property_alert`), replacing the stored ones; a blank
   * name names none. Absent: the stored ones are kept.
   */
  templates?: Record<string, unknown>;
}

/** Refuses a listing link that is not http(s) or names no listing (`{id}` or `{ref}`). @throws InmoError CHANNEL_LISTING_URL. */
function checkListingUrl(listingUrl: string | null): void {
  if (listingUrl !== null && (!isHttpUrl(listingUrl) || !/\{(id|ref)\}/.test(listingUrl))) throw new InmoError('CHANNEL_LISTING_URL');
}

/**
 * Connects (or reconnects) a business's channel.
 * @param env where the token and app-secret variables that `settings` name are read (the
 *   CLI's environment; the console's form fields under names of its own).
 * @param outbound where the token may be sent (config.ts; by default this process's policy).
 * @returns the stored settings without the token or app secret, with the new webhook
 *   `verify_token` and the `callback_url` (shown once: only the sealed copy is kept).
 * @throws InmoError UNKNOWN_BUSINESS, or CHANNEL_* for an unknown provider, a blank phone
 *   number id or template, a token or app-secret variable that is not a name or is unset, a
 *   base URL the token may not go to (`isProviderUrl`), no token given while the base URL
 *   changes origin (CHANNEL_TOKEN_REQUIRED), a listing URL without `{id}` or `{ref}`, templates by
 *   purpose with an unknown purpose or a name WhatsApp would not take (CHANNEL_TEMPLATES), or a phone number id
 *   another business has connected (its webhooks must reach one business).
 */
export async function connectChannel(
  db: Db,
  settings: ChannelSettings,
  env: NodeJS.ProcessEnv,
  outbound: OutboundPolicy = outboundPolicy(),
  actor: AuditActor = CLI,
) {
  if (!(PROVIDERS as readonly string[]).includes(settings.provider)) {
    throw new InmoError('CHANNEL_PROVIDER', { providers: PROVIDERS });
  }
  if (!settings.phoneNumberId.trim()) throw new InmoError('CHANNEL_PHONE_NUMBER_ID_BLANK');
  if (!settings.template.trim()) throw new InmoError('CHANNEL_TEMPLATE_BLANK');
  const baseUrl = settings.baseUrl ?? GRAPH_API_BASE;
  if (!isProviderUrl(baseUrl, outbound)) throw new InmoError('CHANNEL_BASE_URL');
  let token: string;
  if (settings.tokenEnv === null) {
    // The stored token goes only where it went before: a new origin needs the token again.
    const stored = await findChannel(db, settings.businessId);
    if (!stored || new URL(stored.base_url).origin !== new URL(baseUrl).origin) throw new InmoError('CHANNEL_TOKEN_REQUIRED');
    token = openSecret(stored.access_token);
  } else {
    // A name, not the token itself: a value pasted here by mistake must not be echoed back.
    if (!ENV_NAME.test(settings.tokenEnv)) throw new InmoError('CHANNEL_TOKEN_ENV_NOT_A_NAME');
    const value = env[settings.tokenEnv];
    if (!value?.trim()) throw new InmoError('CHANNEL_TOKEN_ENV_UNSET', { name: settings.tokenEnv });
    token = value;
  }
  const appSecret = settings.appSecretEnv === undefined ? null : secretFromEnv('--app-secret-env', settings.appSecretEnv, env);
  const listingUrl = settings.listingUrl?.trim() || null;
  checkListingUrl(listingUrl);
  let templates: ChannelTemplates | null = null;
  if (settings.templates !== undefined) {
    const checked = checkTemplates(settings.templates);
    if ('error' in checked) throw new InmoError('CHANNEL_TEMPLATES', { reason: checked.error });
    templates = checked.templates;
  }
  if (!(await findBusiness(db, settings.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: settings.businessId });
  const holder = await findChannelHolder(db, settings.phoneNumberId.trim(), settings.businessId);
  if (holder) throw new InmoError('CHANNEL_PHONE_NUMBER_ID_TAKEN', { id: holder.business_id });
  const languages = { ...DEFAULT_TEMPLATE_LANGUAGES, ...settings.languages };
  const connectedAt = nowRfc3339();
  const verifyToken = randomBytes(24).toString('base64url');
  await transact(db, async (trx) => {
    await upsertChannel(trx, {
      business_id: settings.businessId,
      provider: settings.provider,
      phone_number_id: settings.phoneNumberId.trim(),
      access_token: sealSecret(token.trim()),
      template: settings.template.trim(),
      languages: JSON.stringify(languages),
      base_url: baseUrl,
      connected_at: connectedAt,
      verify_token: sealSecret(verifyToken),
      // Reconnecting without them keeps the app secret, the listing URL and the assistant.
      ...(appSecret === null ? {} : { app_secret: sealSecret(appSecret) }),
      ...(listingUrl === null ? {} : { listing_url: listingUrl }),
      ...(templates === null ? {} : { templates: JSON.stringify(templates) }),
    });
    await recordAudit(trx, settings.businessId, actor, 'channel.connect', settings.businessId, connectedAt);
  });
  // This process's webhook route sees the channel at once (db/change-watch.ts).
  signalChange(db);
  const stored = await findChannel(db, settings.businessId);
  return {
    business_id: settings.businessId,
    provider: settings.provider,
    phone_number_id: settings.phoneNumberId.trim(),
    template: settings.template.trim(),
    languages,
    base_url: baseUrl,
    token: settings.tokenEnv === null ? 'kept' : `stored from ${settings.tokenEnv}`,
    app_secret: settings.appSecretEnv !== undefined ? `stored from ${settings.appSecretEnv}` : stored?.app_secret ? 'kept' : null,
    listing_url: stored?.listing_url ?? null,
    templates: storedTemplates(stored?.templates),
    webhooks: stored?.app_secret ? 'on' : 'off: without --app-secret-env, webhooks of this number are refused (401)',
    verify_token: verifyToken,
    callback_url: `${(settings.publicUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, '')}${WEBHOOK_PATH}`,
    connected_at: connectedAt,
  };
}

/**
 * Sets the assistant that words the answers to a business's leads: an OpenAI-compatible
 * chat-completions API (its key read from the environment variable named, and sealed), or
 * the built-in one (`settings` null).
 * @returns the settings without the key.
 * @throws InmoError CHANNEL_NOT_CONNECTED, ASSISTANT_URL, ASSISTANT_MODEL_BLANK, CHANNEL_SECRET_ENV_*.
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 */
export async function configureAssistant(
  db: Db,
  businessId: number,
  settings: { url: string; model: string; keyEnv?: string } | null,
  env: NodeJS.ProcessEnv,
  actor: AuditActor = CLI,
) {
  let stored: string | null = null;
  if (settings !== null) {
    if (!isHttpUrl(settings.url)) throw new InmoError('ASSISTANT_URL');
    if (!settings.model.trim()) throw new InmoError('ASSISTANT_MODEL_BLANK');
    const key = settings.keyEnv === undefined ? null : secretFromEnv('--key-env', settings.keyEnv, env);
    stored = JSON.stringify({ url: settings.url, model: settings.model.trim(), api_key: key === null ? null : sealSecret(key) });
  }
  await transact(db, async (trx) => {
    if (!(await updateChannel(trx, businessId, { assistant: stored }))) throw new InmoError('CHANNEL_NOT_CONNECTED', { id: businessId });
    await recordAudit(trx, businessId, actor, 'channel.change', businessId);
  });
  signalChange(db);
  return settings === null
    ? { business_id: businessId, assistant: 'built-in' }
    : {
        business_id: businessId,
        assistant: 'chat-completions',
        url: settings.url,
        model: settings.model.trim(),
        key: settings.keyEnv === undefined ? null : `stored from ${settings.keyEnv}`,
      };
}

/**
 * The assistant's settings as the console's assistant page shows them (CONTRACT §16): `{enabled,
 * listing_url, kind: 'built-in'|'chat-completions', url, model, key_stored}`, never the key
 * itself. Null when no channel is connected.
 */
export async function assistantOverview(db: Db, businessId: number) {
  const stored = await findChannel(db, businessId);
  if (!stored) return null;
  const chat = stored.assistant === null ? null : (JSON.parse(stored.assistant) as { url: string; model: string; api_key: string | null });
  return {
    enabled: stored.assistant_enabled === 1,
    listing_url: stored.listing_url,
    kind: chat === null ? ('built-in' as const) : ('chat-completions' as const),
    url: chat?.url ?? null,
    model: chat?.model ?? null,
    key_stored: chat?.api_key != null,
  };
}

/**
 * Saves the assistant's settings from the console (CONTRACT §10, §16): on or off (off, every
 * message a lead writes waits for an agent), the listing URL template, and the assistant: the
 * built-in one (`url` blank) or an OpenAI-compatible API. The key is write-only: blank keeps the
 * stored one while the URL stays the same, so it never goes to another server.
 * @throws InmoError CHANNEL_NOT_CONNECTED, CHANNEL_LISTING_URL, ASSISTANT_URL, ASSISTANT_MODEL_BLANK.
 */
export async function saveAssistantSettings(
  db: Db,
  businessId: number,
  settings: { enabled: boolean; listingUrl: string; url: string; model: string; apiKey: string },
  actor: AuditActor = CLI,
): Promise<void> {
  const stored = await findChannel(db, businessId);
  if (!stored) throw new InmoError('CHANNEL_NOT_CONNECTED', { id: businessId });
  const listingUrl = settings.listingUrl.trim() || null;
  checkListingUrl(listingUrl);
  let assistant: string | null = null;
  const url = settings.url.trim();
  if (url !== '') {
    if (!isHttpUrl(url)) throw new InmoError('ASSISTANT_URL');
    if (!settings.model.trim()) throw new InmoError('ASSISTANT_MODEL_BLANK');
    const before = stored.assistant === null ? null : (JSON.parse(stored.assistant) as { url: string; api_key: string | null });
    const key = settings.apiKey.trim() ? sealSecret(settings.apiKey.trim()) : before?.url === url ? before.api_key : null;
    assistant = JSON.stringify({ url, model: settings.model.trim(), api_key: key });
  }
  await transact(db, async (trx) => {
    await updateChannel(trx, businessId, { assistant_enabled: settings.enabled ? 1 : 0, listing_url: listingUrl, assistant });
    await recordAudit(trx, businessId, actor, 'channel.change', businessId);
  });
  signalChange(db);
}

/**
 * A business's channel as its owner may see it (the console's channel page): the settings, the
 * webhook `verify_token` in clear, whether webhooks are signed; never the access token or the
 * app secret. Null when no channel is connected.
 */
export async function channelOverview(db: Db, businessId: number) {
  const stored = await findChannel(db, businessId);
  return (
    stored && {
      phone_number_id: stored.phone_number_id,
      template: stored.template,
      languages: JSON.parse(stored.languages) as Record<string, string>,
      base_url: stored.base_url,
      listing_url: stored.listing_url,
      templates: storedTemplates(stored.templates),
      webhooks: stored.app_secret !== null,
      verify_token: stored.verify_token === null ? null : openSecret(stored.verify_token),
      connected_at: stored.connected_at,
    }
  );
}

/**
 * Sends the business's welcome template to `to` once, as a test of its channel (the console's
 * "send a test message"): nothing is recorded, no lead is involved.
 * @param to an E.164 number.
 * @param preferred the `preferred_language` whose template language is used (`es`, `gb`…).
 * @param outbound where the request may go (config.ts).
 * @throws InmoError REPLY_NO_CHANNEL when the business has no channel.
 */
export async function sendTestTemplate(
  db: Db,
  businessId: number,
  to: string,
  preferred: string,
  outbound: OutboundPolicy,
): Promise<SendOutcome> {
  const stored = await findChannel(db, businessId);
  if (!stored) throw new InmoError('REPLY_NO_CHANNEL');
  return sendFromChannel(
    stored,
    to,
    'console-test',
    { type: 'template', template: stored.template, language: templateLanguage(JSON.parse(stored.languages), preferred) },
    outbound,
  );
}

/**
 * The assistant page's test (CONTRACT §16): the business's assistant answers `text` as it would
 * a lead who wrote it (no listings matched: a test lead has no searches), and the answer is sent
 * to `to` on WhatsApp as a free-form text. WhatsApp delivers it only within 24 hours of that
 * number's last message to the business: write to it first.
 * @param to E.164.
 * @returns the answer (null for an opt-out, which gets none), whether the built-in assistant had
 *   to stand in for the configured one, and the provider's outcome (null when nothing was sent).
 * @throws InmoError REPLY_NO_CHANNEL.
 */
export async function sendAssistantTest(db: Db, businessId: number, to: string, text: string, outbound: OutboundPolicy) {
  const stored = await findChannel(db, businessId);
  if (!stored) throw new InmoError('REPLY_NO_CHANNEL');
  const understanding = understand(text);
  let fellBack = false;
  const answer = await replyWithFallback(
    assistantOf(stored, outbound),
    {
      understanding,
      language: replyLanguage(null, understanding.language),
      matches: [],
      operations: [],
      handsOff: false,
      leadName: null,
      searches: [],
      thread: [{ direction: 'in', text }],
    },
    () => (fellBack = true),
  );
  if (answer === null) return { answer, fellBack, outcome: null };
  const outcome = await sendFromChannel(stored, to, 'console-assistant-test', { type: 'text', body: answer }, outbound);
  return { answer, fellBack, outcome };
}

/** Sends one message from a business's channel now (the console's tests), with the stored token. */
function sendFromChannel(
  channel: NonNullable<Awaited<ReturnType<typeof findChannel>>>,
  to: string,
  callbackData: string,
  content: OutboundMessage['content'],
  outbound: OutboundPolicy,
): Promise<SendOutcome> {
  return sendWhatsAppMessage(
    {
      baseUrl: channel.base_url,
      phoneNumberId: channel.phone_number_id,
      accessToken: openSecret(channel.access_token),
      to,
      callbackData,
      content,
    },
    { outbound },
  );
}
