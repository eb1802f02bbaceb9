/**
 * The assistant (owners; CONTRACT §10, §16): `GET /assistant` shows whether it answers leads'
 * WhatsApp messages, the listing URL template its answers link to, and which assistant words
 * them (the built-in one, or an OpenAI-compatible API: URL, model, key); `POST /assistant`
 * (fields `enabled`, `listing_url`, `url`, `model`, `api_key`, write-only: blank keeps the stored
 * key while the URL stays) saves them with saveAssistantSettings' rules. `POST /assistant/test`
 * (fields `test_phone`, `test_text`) has the assistant answer a message as a lead would get it,
 * sends the answer to that number and shows both.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assistantOverview, saveAssistantSettings, sendAssistantTest } from '../../../services/messaging/channels.ts';
import { normalizePhone } from '../../../domain/leads/phone.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { AssistantForm, AssistantTestForm } from '../../../schemas/console-forms.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, readForm, type ConsoleDeps } from '../forms.ts';

/** What each refusal tells the owner. */
const ASSISTANT_PROBLEMS = {
  CHANNEL_LISTING_URL: 'channel_listing_url_invalid',
  ASSISTANT_URL: 'assistant_url_invalid',
  ASSISTANT_MODEL_BLANK: 'assistant_model_blank',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

export async function assistantPages(app: FastifyInstance, { db, outbound }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      status?: number;
      problem?: MessageKey;
      form?: Record<string, string>;
      test?: { answer: string | null; ok: boolean; text: string; fellBack: boolean } | null;
    } = {},
  ) => {
    const settings = await assistantOverview(db, request.consoleSession!.businessId);
    const form = extra.form ?? {
      enabled: settings?.enabled === false ? '' : '1',
      listing_url: settings?.listing_url ?? '',
      url: settings?.url ?? '',
      model: settings?.model ?? '',
    };
    return render(
      reply,
      'assistant',
      {
        settings,
        form,
        saved: (request.query as Record<string, string>).saved === '1' && extra.status === undefined,
        problem: extra.problem ?? null,
        test: extra.test ?? null,
      },
      extra.status ?? 200,
    );
  };

  app.get('/assistant', { config: { consoleAccess: 'owner' } }, async (request, reply) => page(request, reply));

  app.post('/assistant', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const { value, faults } = readForm(request.body, AssistantForm);
    const form = { enabled: value.enabled, listing_url: value.listing_url.trim(), url: value.url.trim(), model: value.model.trim() };
    if (faults.length > 0) return page(request, reply, { status: 422, problem: 'channel_field_too_long', form });
    if (!(await assistantOverview(db, businessId))) return page(request, reply, { status: 409, problem: 'REPLY_NO_CHANNEL', form });
    try {
      await saveAssistantSettings(
        db,
        businessId,
        {
          enabled: value.enabled === '1',
          listingUrl: form.listing_url,
          url: form.url,
          model: form.model,
          apiKey: value.api_key,
        },
        { type: 'user', id: request.consoleSession!.userId },
      );
    } catch (error) {
      if (!(error instanceof InmoError)) throw error;
      const problem = messageKeyOf(ASSISTANT_PROBLEMS, error.code);
      if (problem === undefined) throw error;
      request.errorCode = error.code;
      return page(request, reply, { status: 422, problem, form });
    }
    return reply.code(303).header('location', '/console/assistant?saved=1').send();
  });

  app.post('/assistant/test', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    if (!(await assistantOverview(db, businessId))) return page(request, reply, { status: 409, problem: 'REPLY_NO_CHANNEL' });
    const { value, faults } = readForm(request.body, AssistantTestForm);
    const to = normalizePhone(value.test_phone);
    if (to === null) return page(request, reply, { status: 422, problem: 'channel_test_phone_invalid' });
    if (faults.length > 0 || !value.test_text.trim()) return page(request, reply, { status: 422, problem: 'assistant_test_text' });
    const { answer, fellBack, outcome } = await sendAssistantTest(db, businessId, to, value.test_text.trim(), outbound);
    const ok = outcome === null || outcome.kind === 'sent';
    const text =
      outcome === null
        ? request.t('assistant_test_no_answer')
        : outcome.kind === 'sent'
          ? request.t('assistant_test_sent', { to })
          : request.t('assistant_test_failed', { error: outcome.error });
    return page(request, reply, { status: ok ? 200 : 502, test: { answer, ok, text, fellBack } });
  });
}
