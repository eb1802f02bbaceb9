/**
 * Messaging channels (CONTRACT §7, §9 `inmo channel connect`): a business connects one
 * WhatsApp Cloud API channel; the worker sends each new lead one template over it.
 *
 * The access token is read from an environment variable the operator names, so it never
 * appears on a command line, in shell history or in process listings; it is stored sealed
 * (src/secrets.ts) for the workers and never printed or logged (the summary returned here
 * leaves it out).
 */
import type { Db } from '../db/database.ts';
import { findBusiness } from '../db/repositories/businesses.ts';
import { upsertChannel } from '../db/repositories/messaging.ts';
import { DEFAULT_TEMPLATE_LANGUAGES, GRAPH_API_BASE } from '../channels/whatsapp-cloud.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { sealSecret } from '../secrets.ts';
import { InmoError } from '../errors.ts';

export const PROVIDERS = ['whatsapp-cloud'] as const;

export interface ChannelSettings {
  businessId: number;
  provider: string;
  phoneNumberId: string;
  /** Name of the environment variable holding the access token. */
  tokenEnv: string;
  template: string;
  /** Graph API base with version; default {@link GRAPH_API_BASE}. */
  baseUrl?: string;
  /** `preferred_language` → template language overrides, e.g. `{gb: 'en_GB'}`. */
  languages?: Record<string, string>;
}

/**
 * Connects (or reconnects) a business's channel.
 * @param env where the token variable is read (process.env by default).
 * @returns the stored settings without the token.
 * @throws InmoError UNKNOWN_BUSINESS, or CHANNEL_* for an unknown provider, a blank phone
 *   number id or template, a token variable that is not a name or is unset, or a base URL that
 *   is not http(s).
 */
export async function connectChannel(db: Db, settings: ChannelSettings, env: NodeJS.ProcessEnv = process.env) {
  if (!(PROVIDERS as readonly string[]).includes(settings.provider)) {
    throw new InmoError('CHANNEL_PROVIDER', { providers: PROVIDERS });
  }
  if (!settings.phoneNumberId.trim()) throw new InmoError('CHANNEL_PHONE_NUMBER_ID_BLANK');
  if (!settings.template.trim()) throw new InmoError('CHANNEL_TEMPLATE_BLANK');
  // A name, not the token itself: a value pasted here by mistake must not be echoed back.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(settings.tokenEnv)) {
    throw new InmoError('CHANNEL_TOKEN_ENV_NOT_A_NAME');
  }
  const token = env[settings.tokenEnv];
  if (!token?.trim()) throw new InmoError('CHANNEL_TOKEN_ENV_UNSET', { name: settings.tokenEnv });
  const baseUrl = settings.baseUrl ?? GRAPH_API_BASE;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new InmoError('CHANNEL_BASE_URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new InmoError('CHANNEL_BASE_URL');
  if (!(await findBusiness(db, settings.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: settings.businessId });
  const languages = { ...DEFAULT_TEMPLATE_LANGUAGES, ...settings.languages };
  const connectedAt = nowRfc3339();
  await upsertChannel(db, {
    business_id: settings.businessId,
    provider: settings.provider,
    phone_number_id: settings.phoneNumberId.trim(),
    access_token: sealSecret(token.trim()),
    template: settings.template.trim(),
    languages: JSON.stringify(languages),
    base_url: baseUrl,
    connected_at: connectedAt,
  });
  return {
    business_id: settings.businessId,
    provider: settings.provider,
    phone_number_id: settings.phoneNumberId.trim(),
    template: settings.template.trim(),
    languages,
    base_url: baseUrl,
    token: `stored from ${settings.tokenEnv}`,
    connected_at: connectedAt,
  };
}
