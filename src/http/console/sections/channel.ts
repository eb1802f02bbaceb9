/**
 * The WhatsApp channel (owners): `GET /channel`, `POST /channel` (fields `phone_number_id`,
 * `access_token` and `app_secret` (write-only: blank keeps the stored ones, the token only while
 * the base URL keeps its origin), `template`, `languages` (`gb=en_GB, …`), `listing_url`,
 * `base_url`, and `template_<purpose>`: the approved template of each purpose of CONTRACT §20 and
 * §21, blank for none): connects or changes WhatsApp with connectChannel's rules; the page shows the
 * webhook callback URL and verify token. `POST /channel/test` (field `test_phone`) sends the
 * template to a number now and shows the provider's answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { channelOverview, connectChannel, sendTestTemplate, WEBHOOK_PATH } from '../../../services/messaging/channels.ts';
import { GRAPH_API_BASE } from '../../../channels/whatsapp-cloud.ts';
import { normalizePhone } from '../../../domain/leads/phone.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { render } from '../page.ts';
import { serverOrigin } from '../../origin.ts';
import { csrfCheckedRoute, readForm, type ConsoleDeps } from '../forms.ts';
import { ChannelForm, ChannelTestForm } from '../../../schemas/console-forms.ts';
import { TEMPLATE_PURPOSES, type TemplatePurpose } from '../../../domain/messaging/templates.ts';
import type { Static } from '@sinclair/typebox';

/** What each refusal of connectChannel tells the owner. */
const CHANNEL_PROBLEMS = {
  CHANNEL_PHONE_NUMBER_ID_BLANK: 'channel_phone_number_id_blank',
  CHANNEL_TEMPLATE_BLANK: 'channel_template_blank',
  CHANNEL_TOKEN_ENV_UNSET: 'channel_token_missing',
  CHANNEL_TOKEN_REQUIRED: 'channel_token_again',
  CHANNEL_BASE_URL: 'channel_base_url_invalid',
  CHANNEL_LISTING_URL: 'channel_listing_url_invalid',
  CHANNEL_PHONE_NUMBER_ID_TAKEN: 'channel_phone_number_id_taken',
  CHANNEL_TEMPLATES: 'channel_templates_invalid',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

/**
 * The languages field, `gb=en_GB, fr=fr`: a lead's `preferred_language` → the template's
 * language code. Null when a pair is not `code=code`.
 */
export function parseLanguages(text: string): Record<string, string> | null {
  const languages: Record<string, string> = {};
  for (const pair of text
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z]{2,3})\s*=\s*([A-Za-z]{2,3}(?:_[A-Za-z]{2})?)$/.exec(pair);
    if (!match) return null;
    languages[match[1]] = match[2];
  }
  return languages;
}

/** The label of each purpose's template field. */
const TEMPLATE_LABELS = {
  viewing_scheduled: 'channel_template_viewing_scheduled',
  viewing_rescheduled: 'channel_template_viewing_rescheduled',
  viewing_cancelled: 'channel_template_viewing_cancelled',
  viewing_reminder: 'channel_template_viewing_reminder',
  valuation_scheduled: 'channel_template_valuation_scheduled',
  valuation_rescheduled: 'channel_template_valuation_rescheduled',
  valuation_cancelled: 'channel_template_valuation_cancelled',
  valuation_reminder: 'channel_template_valuation_reminder',
  property_alert: 'channel_template_property_alert',
  owner_report: 'channel_template_owner_report',
} as const satisfies Record<TemplatePurpose, MessageKey>;

/** The form's template fields, `template_<purpose>`, trimmed. */
function templateFields(value: Static<typeof ChannelForm>): Record<`template_${TemplatePurpose}`, string> {
  return Object.fromEntries(TEMPLATE_PURPOSES.map((purpose) => [`template_${purpose}`, value[`template_${purpose}`].trim()])) as Record<
    `template_${TemplatePurpose}`,
    string
  >;
}

export async function channelPages(app: FastifyInstance, { db, outbound, publicUrl }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const channelPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      status?: number;
      problem?: MessageKey | null;
      form?: Record<string, string>;
      test?: { ok: boolean; text: string } | null;
    } = {},
  ) => {
    const stored = await channelOverview(db, request.consoleSession!.businessId);
    const channel = stored && {
      ...stored,
      languages: Object.entries(stored.languages)
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
      listing_url: stored.listing_url ?? '',
    };
    const form = extra.form ?? {
      ...Object.fromEntries(TEMPLATE_PURPOSES.map((purpose) => [`template_${purpose}`, stored?.templates[purpose] ?? ''])),
      phone_number_id: channel?.phone_number_id ?? '',
      template: channel?.template ?? '',
      languages: channel?.languages ?? '',
      listing_url: channel?.listing_url ?? '',
      base_url: channel?.base_url ?? GRAPH_API_BASE,
      test_phone: '',
    };
    return render(
      reply,
      'channel',
      {
        channel,
        form,
        saved: (request.query as Record<string, string>).saved === '1' && extra.status === undefined,
        problem: extra.problem ?? null,
        test: extra.test ?? null,
        callbackUrl: `${serverOrigin(request, publicUrl)}${WEBHOOK_PATH}`,
        purposes: TEMPLATE_PURPOSES.map((purpose) => ({ purpose, label: request.t(TEMPLATE_LABELS[purpose]) })),
      },
      extra.status ?? 200,
    );
  };

  app.get('/channel', { config: { consoleAccess: 'owner' } }, async (request, reply) => channelPage(request, reply));

  app.post('/channel', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const { value, faults } = readForm(request.body, ChannelForm);
    const form = {
      phone_number_id: value.phone_number_id.trim(),
      template: value.template.trim(),
      languages: value.languages.trim(),
      listing_url: value.listing_url.trim(),
      base_url: value.base_url.trim() || GRAPH_API_BASE,
      test_phone: '',
      ...templateFields(value),
    };
    if (faults.length > 0) return channelPage(request, reply, { status: 422, problem: 'channel_field_too_long', form });
    const languages = parseLanguages(form.languages);
    if (languages === null) return channelPage(request, reply, { status: 422, problem: 'channel_languages_invalid', form });
    // The token and app secret are write-only: left blank, the stored ones are kept (the token
    // only while the base URL keeps its origin: connectChannel refuses otherwise).
    const token = value.access_token.trim();
    const appSecret = value.app_secret.trim();
    const env = { INMO_CONSOLE_TOKEN: token, INMO_CONSOLE_APP_SECRET: appSecret };
    try {
      await connectChannel(
        db,
        {
          businessId,
          provider: 'whatsapp-cloud',
          phoneNumberId: form.phone_number_id,
          tokenEnv: token === '' ? null : 'INMO_CONSOLE_TOKEN',
          template: form.template,
          baseUrl: form.base_url,
          languages,
          appSecretEnv: appSecret === '' ? undefined : 'INMO_CONSOLE_APP_SECRET',
          listingUrl: form.listing_url || undefined,
          templates: Object.fromEntries(TEMPLATE_PURPOSES.map((purpose) => [purpose, form[`template_${purpose}`]])),
        },
        env,
        outbound,
        { type: 'user', id: request.consoleSession!.userId },
      );
    } catch (error) {
      if (!(error instanceof InmoError)) throw error;
      const problem = messageKeyOf(CHANNEL_PROBLEMS, error.code);
      if (problem === undefined) throw error;
      request.errorCode = error.code;
      // No token given: the first time it is required; later, when the base URL moves.
      const firstTime = error.code === 'CHANNEL_TOKEN_REQUIRED' && !(await channelOverview(db, businessId));
      return channelPage(request, reply, {
        status: error.status === 409 ? 409 : 422,
        problem: firstTime ? 'channel_token_missing' : problem,
        form,
      });
    }
    return reply.code(303).header('location', '/console/channel?saved=1').send();
  });

  app.post('/channel/test', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    if (!(await channelOverview(db, businessId))) return channelPage(request, reply, { status: 409, problem: 'REPLY_NO_CHANNEL' });
    const to = normalizePhone(readForm(request.body, ChannelTestForm).value.test_phone);
    if (to === null) return channelPage(request, reply, { status: 422, problem: 'channel_test_phone_invalid' });
    const outcome = await sendTestTemplate(db, businessId, to, request.consoleLanguage === 'en' ? 'gb' : 'es', outbound);
    const test =
      outcome.kind === 'sent'
        ? { ok: true, text: request.t('channel_test_sent', { to, id: outcome.messageId ?? '—' }) }
        : { ok: false, text: request.t('channel_test_failed', { error: outcome.error }) };
    return channelPage(request, reply, { status: outcome.kind === 'sent' ? 200 : 502, test });
  });
}
