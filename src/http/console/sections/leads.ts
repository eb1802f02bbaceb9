/**
 * Leads: `GET /leads` (query `status`, `type`, `source`, `from`, `to` (dates), `q`, `page`), `GET
 * /leads/:lead_id`; `POST /leads/:lead_id/reply` (field `text`: an agent's WhatsApp message, only
 * inside the 24-hour window), `POST /leads/:lead_id/handoff` and `/resume` (who answers).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LEAD_STATUSES, LEAD_TYPES } from '../../../domain/lead-rules.ts';
import { listingSummaries, listLeadsPage, showLead, type LeadSearch } from '../../../services/leads.ts';
import { replyAsAgent, setAnswerer } from '../../../services/conversations.ts';
import { InmoError } from '../../../errors.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, dayStart, DAY_MS, idParam, query, readForm, type ConsoleDeps } from '../forms.ts';
import { ReplyForm } from '../../../schemas/console-forms.ts';

/** Leads per page of the list. */
const LEADS_PER_PAGE = 50;

/** The refusals of the conversation rules the lead page explains (message keys of i18n.ts). */
const CONVERSATION_PROBLEMS = {
  REPLY_BLANK: true,
  REPLY_TOO_LONG: true,
  REPLY_NO_CHANNEL: true,
  REPLY_OPTED_OUT: true,
  REPLY_WINDOW_CLOSED: true,
  RESUME_OPTED_OUT: true,
  CONVERSATION_NOT_FOUND: true,
};

/**
 * A search-preference value as one line of text: lists joined by commas (places by name),
 * objects as `key: value` pairs, e.g. `price_max: 900000, bedrooms_min: 2`.
 */
export function describePreference(value: unknown): string {
  if (Array.isArray(value)) return value.map(describePreference).join(', ');
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    if ('name' in value && typeof (value as { name: unknown }).name === 'string') return (value as { name: string }).name;
    return entries.map(([k, v]) => `${k}: ${describePreference(v)}`).join(', ');
  }
  return String(value);
}

export async function leadPages(app: FastifyInstance, { db, onJobsQueued }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  app.get('/leads', async (request, reply) => {
    const q = query(request);
    const from = dayStart(q.from);
    const to = dayStart(q.to);
    const search: LeadSearch = {
      status: (LEAD_STATUSES as readonly string[]).includes(q.status ?? '') ? q.status : undefined,
      type: (LEAD_TYPES as readonly string[]).includes(q.type ?? '') ? q.type : undefined,
      source: q.source?.trim() || undefined,
      createdFrom: from ?? undefined,
      // `to` is inclusive: leads created before the next day's start.
      createdBefore: to === null ? undefined : new Date(Date.parse(to) + DAY_MS).toISOString(),
      text: q.q?.trim() || undefined,
    };
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(q.page ?? '1', 10) || 1));
    const { data, total } = await listLeadsPage(
      db,
      request.consoleSession!.businessId,
      search,
      LEADS_PER_PAGE,
      (page - 1) * LEADS_PER_PAGE,
    );
    const filters = {
      status: search.status ?? '',
      type: search.type ?? '',
      source: search.source ?? '',
      from: from ? q.from : '',
      to: to ? q.to : '',
      q: search.text ?? '',
    };
    const link = (p: number) =>
      `/console/leads?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), page: String(p) })}`;
    return render(reply, 'leads', {
      leads: data,
      total,
      first: total === 0 ? 0 : (page - 1) * LEADS_PER_PAGE + 1,
      last: Math.min(total, page * LEADS_PER_PAGE),
      previous: page > 1 ? link(page - 1) : null,
      next: page * LEADS_PER_PAGE < total ? link(page + 1) : null,
      filters,
      statuses: LEAD_STATUSES,
      types: LEAD_TYPES,
    });
  });

  /** The lead of the URL, if it is the session's business's; else 404, as for a missing one. */
  const ownLead = async (request: FastifyRequest<{ Params: { lead_id: string } }>) => {
    const id = idParam(request.params.lead_id);
    // Read within the session's business: another business's lead is not found, like a missing one.
    const shown = id !== null ? await showLead(db, id, request.consoleSession!.businessId) : undefined;
    if (!shown) throw new InmoError('NOT_FOUND');
    return shown;
  };

  const leadPage = async (
    reply: FastifyReply,
    shown: NonNullable<Awaited<ReturnType<typeof showLead>>>,
    status = 200,
    problem: string | null = null,
  ) => {
    const ids = [...shown.matches.map((m) => m.property_id), ...shown.near_misses.map((m) => m.property_id)];
    const summaries = new Map((await listingSummaries(db, shown.lead.business_id, ids)).map((p) => [p.id, p]));
    const until = shown.conversation.window_open_until;
    return render(
      reply,
      'lead',
      {
        describe: describePreference,
        title: shown.lead.name ?? reply.request.t('unnamed'),
        shown,
        problem,
        windowOpen: shown.conversation.state !== 'opted_out' && until !== null && Date.parse(until) > Date.now(),
        matches: shown.matches.map((m) => summaries.get(m.property_id)).filter((p) => p !== undefined),
        nearMisses: shown.near_misses
          .map((m) => ({ property: summaries.get(m.property_id), missed: (m.failed ?? '').split(',').filter(Boolean) }))
          .filter((m) => m.property !== undefined),
      },
      status,
    );
  };

  app.get<{ Params: { lead_id: string } }>('/leads/:lead_id', async (request, reply) => leadPage(reply, await ownLead(request)));

  /**
   * A conversation action on a lead: done, then 303 back to the thread; refused by the rules
   * (window closed, opted out, blank…), the lead's page again with the reason and the error's status.
   */
  const conversationAction = (act: (leadId: number, body: unknown) => Promise<unknown>) => {
    return async (request: FastifyRequest<{ Params: { lead_id: string } }>, reply: FastifyReply) => {
      const shown = await ownLead(request);
      try {
        await act(shown.lead.id, request.body);
      } catch (error) {
        if (!(error instanceof InmoError) || error.status >= 500 || !(error.code in CONVERSATION_PROBLEMS)) throw error;
        request.errorCode = error.code;
        // The refusal changed nothing: the lead read above is still the page.
        return leadPage(reply, shown, error.status, error.code);
      }
      onJobsQueued();
      return reply.code(303).header('location', `/console/leads/${shown.lead.id}#h-thread`).send();
    };
  };
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/reply',
    csrfChecked,
    conversationAction((leadId, body) => replyAsAgent(db, leadId, readForm(body, ReplyForm).value.text)),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/handoff',
    csrfChecked,
    conversationAction((leadId) => setAnswerer(db, leadId, 'waiting_for_agent')),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/resume',
    csrfChecked,
    conversationAction((leadId) => setAnswerer(db, leadId, 'assistant')),
  );
}
