/**
 * Leads: `GET /leads` (query `status`, `type`, `assigned` (`me`, `none` or a user id), `source`,
 * `from`, `to` (dates), `q` (name, phone or e-mail), `page`; counts by status), `GET
 * /leads/:lead_id`; `POST /leads/:lead_id/reply` (field `text`: an agent's WhatsApp message, only
 * inside the 24-hour window), `POST /leads/:lead_id/handoff` and `/resume` (who answers); the
 * lead worked (CONTRACT §16, services/leads/pipeline.ts): `POST /leads/:lead_id/status` (`status`,
 * `reason`), `/notes` (`text`), `/assign` (`user_id`, '' for nobody), `/follow-ups/:id/done`,
 * `/follow-ups/:id/snooze` (a due one off "Hoy" until tomorrow at 9:00) and `/follow-ups/:id/move`
 * (`day`, YYYY-MM-DD), each back to "Hoy" with `back=today`; `GET /inbox` (query `page`):
 * every conversation, those waiting for an agent first, with the inbound messages no agent has
 * seen (opening the lead's page sees them); `POST /leads/:lead_id/viewings` books a viewing
 * (viewing-form.ts: `property_id` or `property_ref`, `date`, `time`, `duration_minutes`,
 * `user_id`), 303 to the page's viewings, or the page again with the reasons (422), nothing stored;
 * `POST /leads/:lead_id/send` sends listings by hand (CONTRACT §21, services/leads/hand-sends.ts:
 * `property_id` ticked, repeated, and/or `property_ref`, `channel` `email` or `whatsapp`), 303 to
 * the listings sent, or the page again with the reasons beside the fields (422), nothing stored;
 * `POST /leads/:lead_id/edit` edits the contact and searches (CONTRACT §25, lead-edit-form.ts) and
 * `POST /leads/:lead_id/email-listing` (`email_id`, `property_ref`) links the listing a portal
 * e-mail was about when none was found (issue 57), each 303 back, or the page again with the
 * reasons beside the fields (422), nothing stored.
 */
import { displayName, listUsers } from '../../../services/access/console-users.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LEAD_STATUSES, LEAD_TYPES } from '../../../domain/leads/rules.ts';
import {
  countLeadsByStatus,
  exportLead,
  listingSummaries,
  capturedByOf,
  listLeadsPage,
  leadInFull,
  type LeadSearch,
} from '../../../services/leads/leads.ts';
import {
  listConversations,
  markConversationSeen,
  REPLY_CHANNELS,
  replyAsAgent,
  replyWaysOf,
  setAnswerer,
} from '../../../services/messaging/conversations.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import { eraseLead } from '../../../services/leads/erasure.ts';
import { emailListingsOfLead } from '../../../services/leads/email-intake.ts';
import { render } from '../page.ts';
import { describeSearch } from '../criteria.ts';
import { csrfCheckedRoute, dayStart, DAY_MS, field, idParam, query, readForm, type ConsoleDeps } from '../forms.ts';
import {
  FollowUpMoveForm,
  HandSendForm,
  LeadAlertsForm,
  LeadAssignForm,
  LeadNoteForm,
  LeadStatusForm,
  ReplyForm,
} from '../../../schemas/console-forms.ts';
import { setLeadWantsAlerts } from '../../../services/leads/alerts.ts';
import {
  addLeadNote,
  assignableUsers,
  assignLead,
  changeLeadStatus,
  completeFollowUp,
  snoozeFollowUp,
  listLeadHistory,
  listLeadInteractions,
  moveFollowUpTo,
  type Actor,
} from '../../../services/leads/pipeline.ts';
import type { MessageKey, Translate } from '../i18n.ts';
import { serverOrigin } from '../../origin.ts';
import { HAND_SEND_MAX, HandSendError, handSendWays, sendListingsByHand, type HandSendField } from '../../../services/leads/hand-sends.ts';
import { messageKeyOf } from '../labels.ts';
import { businessTime } from '../local-time.ts';
import { bookFromForm, newViewingForm, type ViewingFormState } from '../viewing-form.ts';
import { viewingsOf } from '../../../services/viewings/console.ts';
import { linkEmailListing } from '../../../services/leads/edit.ts';
import { ownedListingIds, OWNER_TYPE } from '../../../services/catalogue/listing-owners.ts';
import { reportsOfOwner, setOwnerReportDays } from '../../../services/owners/owner-reports.ts';
import { REPORT_DAYS_CHOICES } from '../../../domain/owners/owner-report.ts';
import { ownerReportDaysFromEnv } from '../../../config.ts';
import { ownerStageOf } from '../../../domain/leads/owner-stages.ts';
import { leadRequestSchemas } from '../../../schemas/lead-requests.ts';
import {
  FORM_CRITERIA,
  leadEditFormOf,
  saveLeadEditForm,
  SEARCH_CHOICES,
  storedSearches,
  type LeadEditFormState,
} from '../lead-edit-form.ts';

/** Leads per page of the list. */
const LEADS_PER_PAGE = 50;

/** The refusals of the conversation rules the lead page explains, and their words. */
const CONVERSATION_PROBLEMS = {
  REPLY_BLANK: 'REPLY_BLANK',
  REPLY_TOO_LONG: 'REPLY_TOO_LONG',
  REPLY_NO_CHANNEL: 'REPLY_NO_CHANNEL',
  REPLY_NO_EMAIL: 'REPLY_NO_EMAIL',
  REPLY_EMAIL_OFF: 'REPLY_EMAIL_OFF',
  REPLY_OPTED_OUT: 'REPLY_OPTED_OUT',
  REPLY_WINDOW_CLOSED: 'REPLY_WINDOW_CLOSED',
  RESUME_OPTED_OUT: 'RESUME_OPTED_OUT',
  CONVERSATION_NOT_FOUND: 'CONVERSATION_NOT_FOUND',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

/** The refusals of the lead's work (services/leads/pipeline.ts) the lead page explains, and their words. */
const WORK_PROBLEMS = {
  LEAD_STATUS_INVALID: 'LEAD_STATUS_INVALID',
  LEAD_NOTE_BLANK: 'LEAD_NOTE_BLANK',
  LEAD_ASSIGNEE_UNKNOWN: 'LEAD_ASSIGNEE_UNKNOWN',
  LEAD_ASSIGN_FORBIDDEN: 'LEAD_ASSIGN_FORBIDDEN',
  FOLLOW_UP_NOT_FOUND: 'FOLLOW_UP_NOT_FOUND',
  FOLLOW_UP_NOT_DUE: 'FOLLOW_UP_NOT_DUE',
  FOLLOW_UP_DAY: 'FOLLOW_UP_DAY',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

/** The link form of a portal e-mail whose listing was not found, after a refusal: which e-mail, what was typed, why. */
export interface EmailLinkState {
  emailId: number;
  value: string;
  fault: string;
}

/** The preferred languages a lead may have (spec §2.1). */
const LEAD_LANGUAGES = ['es', 'gb', 'fr', 'ge', 'it'] as const;

/** A form's fault, as the lead page says it (the form changed nothing). */
class FormFault extends Error {
  constructor(readonly problem: MessageKey) {
    super(problem);
  }
}

/** Near misses the lead page shows (issue 47): the page stays short; the API lists them all. */
export const NEAR_MISSES_SHOWN = 10;

/**
 * The near misses the lead page shows: those in the lead's own places first (a miss on
 * anything but the area), in matching order otherwise, {@link NEAR_MISSES_SHOWN} at most.
 * @returns `{nearMisses, nearMissesTotal}`.
 */
export function shortNearMisses<T extends { missed: string[] }>(all: T[]): { nearMisses: T[]; nearMissesTotal: number } {
  const inPlace = all.filter((m) => !m.missed.includes('location'));
  const elsewhere = all.filter((m) => m.missed.includes('location'));
  return { nearMisses: [...inPlace, ...elsewhere].slice(0, NEAR_MISSES_SHOWN), nearMissesTotal: all.length };
}

/** The send form as a page shows it: the values posted (or none), and the words of each refused field. */
export interface SendFormState {
  values: { property_id: string[]; property_ref: string; channel: string };
  faults: Partial<Record<HandSendField, string>>;
}

/** The words of a refused send's field (the first fault of a field is the one said). */
function sendFaultWords(t: Translate, error: HandSendError): SendFormState['faults'] {
  const faults: SendFormState['faults'] = {};
  for (const f of error.faults) faults[f.field] ??= t(`send_fault_${f.reason}`, { max: HAND_SEND_MAX });
  return faults;
}

export async function leadPages(app: FastifyInstance, { db, onJobsQueued, publicUrl, limits }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);
  // The API's own check of an edit (CONTRACT §25), for the app's limits.
  const { LeadPatchBody } = leadRequestSchemas(limits);

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
      // `me`, `none` or a user id; anything else is no filter.
      assigned:
        q.assigned === 'me'
          ? request.consoleSession!.userId
          : q.assigned === 'none'
            ? null
            : /^\d{1,9}$/.test(q.assigned ?? '')
              ? Number(q.assigned)
              : undefined,
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
      assigned: search.assigned === undefined ? '' : (q.assigned ?? ''),
      status: search.status ?? '',
      type: search.type ?? '',
      source: search.source ?? '',
      from: from ? q.from : '',
      to: to ? q.to : '',
      q: search.text ?? '',
    };
    const link = (p: number) =>
      `/console/leads?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), page: String(p) })}`;
    // Who entered each `manual` lead (the console, or an API request that named no source): the
    // page says which (labels.ts leadSourceKey); the API's rows do not carry `captured_by`.
    const manual = data.filter((l) => l.source === 'manual').map((l) => Number(l.id));
    const capturedBy = await capturedByOf(db, request.consoleSession!.businessId, manual);
    return render(reply, 'leads', {
      // After an erasure (POST /leads/:id/erase): its confirmation.
      erased: /^\d{1,10}$/.test(q.erased ?? '') ? Number(q.erased) : null,
      leads: data.map((l) => ({ ...l, captured_by: capturedBy.get(Number(l.id)) ?? null })),
      total,
      first: total === 0 ? 0 : (page - 1) * LEADS_PER_PAGE + 1,
      last: Math.min(total, page * LEADS_PER_PAGE),
      previous: page > 1 ? link(page - 1) : null,
      next: page * LEADS_PER_PAGE < total ? link(page + 1) : null,
      filters,
      statuses: LEAD_STATUSES,
      types: LEAD_TYPES,
      users: await assignableUsers(db, request.consoleSession!.businessId),
      counts: await countLeadsByStatus(db, request.consoleSession!.businessId, search),
      statusLink: (status: string) =>
        `/console/leads?${new URLSearchParams(Object.entries({ ...filters, status }).filter(([, v]) => v) as Array<[string, string]>)}`,
    });
  });

  /** The lead of the URL, if it is the session's business's; else 404, as for a missing one. */
  const ownLead = async (request: FastifyRequest<{ Params: { lead_id: string } }>) => {
    const id = idParam(request.params.lead_id);
    // Read within the session's business: another business's lead is not found, like a missing one.
    const full = id !== null ? await leadInFull(db, id, request.consoleSession!.businessId) : undefined;
    if (!full) throw new InmoError('NOT_FOUND');
    return full;
  };

  const leadPage = async (
    reply: FastifyReply,
    full: NonNullable<Awaited<ReturnType<typeof leadInFull>>>,
    status = 200,
    problem: MessageKey | null = null,
    /** The section the problem is about: the conversation, the lead's work, its notes or its follow-ups. */
    problemAt: 'thread' | 'work' | 'notes' | 'follow' | 'owner' = 'thread',
    /** The viewing form as typed, after a refusal. */
    viewingForm?: ViewingFormState,
    /** The send form as posted, after a refusal. */
    sendForm?: SendFormState,
    /** The edit form as posted, after a refusal. */
    editForm?: LeadEditFormState,
    /** A portal e-mail's link form, after a refusal. */
    emailLink?: EmailLinkState,
  ) => {
    const ids = [...full.matches.map((m) => m.property_id), ...full.near_misses.map((m) => m.property_id)];
    const summaries = new Map((await listingSummaries(db, full.lead.business_id, ids)).map((p) => [p.id, p]));
    const users = await assignableUsers(db, full.lead.business_id);
    // Names, not e-mails (CONTRACT §23); a disabled user's past work is still theirs.
    const names = new Map((await listUsers(db, full.lead.business_id)).map((u) => [u.id, displayName(u)]));
    const until = full.conversation.window_open_until;
    const session = reply.request.consoleSession!;
    const { zone, viewings } = await viewingsOf(db, full.lead.business_id, { leadId: full.lead.id });
    // An owner's listings (CONTRACT §24).
    const owned =
      full.lead.type === OWNER_TYPE
        ? await listingSummaries(db, full.lead.business_id, await ownedListingIds(db, full.lead.business_id, full.lead.id))
        : null;
    // The listings to visit: its matches, its near misses and those it has visited, once each.
    const listings = new Map<number, { id: number; external_ref: string; title: string | null }>();
    // An owner's own listings come first: its valuation is booked at one of them (CONTRACT §24).
    for (const p of [
      ...(owned ?? []),
      ...summaries.values(),
      ...viewings.map((v) => ({ id: v.property_id, external_ref: v.external_ref, title: v.title })),
    ])
      if (!listings.has(p.id)) listings.set(p.id, { id: p.id, external_ref: p.external_ref, title: p.title });
    // When each listing was last sent (the send form says so beside it).
    const lastSent = new Map<number, string>();
    for (const a of full.alerts) if (a.sent_at && !lastSent.has(a.property_id)) lastSent.set(a.property_id, a.sent_at);
    return render(
      reply,
      'lead',
      {
        // Why a way cannot carry listings now, in words (null: it can).
        sendWays: Object.fromEntries(
          Object.entries(await handSendWays(db, full.lead.business_id, full.lead.id)).map(([way, why]) => [
            way,
            why === null ? null : reply.request.t(`send_fault_${why}`, { max: HAND_SEND_MAX }),
          ]),
        ),
        sendForm: sendForm ?? { values: { property_id: [], property_ref: '', channel: '' }, faults: {} },
        sendMax: HAND_SEND_MAX,
        editForm: editForm ?? leadEditFormOf(full.lead, limits.searches),
        editOptions: {
          storedSearches: storedSearches(full.lead).length,
          maxName: limits.nameChars,
          languages: LEAD_LANGUAGES,
          choices: SEARCH_CHOICES,
          criteria: Object.keys(FORM_CRITERIA),
        },
        emailLink: emailLink ?? null,
        owned,
        ownerStage: ownerStageOf(full.lead.owner_stage),
        // Its reports and how often they go (CONTRACT §24).
        ownerReports:
          owned === null
            ? null
            : {
                days: full.lead.owner_report_days ?? null,
                defaultDays: ownerReportDaysFromEnv(),
                choices: REPORT_DAYS_CHOICES,
                reports: await reportsOfOwner(db, full.lead.business_id, full.lead.id),
              },
        lastSent,
        viewings,
        time: businessTime(zone, reply.request.consoleLanguage),
        viewingListings: [...listings.values()],
        // An agent books for themselves unless they choose; an owner leaves it to the listing's agent.
        viewingForm: viewingForm ?? newViewingForm({ user_id: session.role === 'agent' ? String(session.userId) : '' }),
        describeSearch,
        title: full.lead.name ?? reply.request.t('unnamed'),
        full,
        problem,
        problemAt,
        statuses: LEAD_STATUSES,
        users,
        names,
        history: await listLeadHistory(db, full.lead.business_id, full.lead.id),
        // The listing each of its portal e-mails was about, or that none was found (issue 57).
        emailListings: await emailListingsOfLead(db, full.lead.business_id, full.lead.id),
        interactions: await listLeadInteractions(db, full.lead.business_id, full.lead.id),
        windowOpen: full.conversation.state !== 'opted_out' && until !== null && Date.parse(until) > Date.now(),
        // Why each way cannot carry a reply now, in words (null: it can; CONTRACT §25).
        replyWays: Object.fromEntries(
          Object.entries(await replyWaysOf(db, full.lead.business_id, full.lead.id)).map(([way, code]) => [
            way,
            code === null ? null : reply.request.t(messageKeyOf(CONVERSATION_PROBLEMS, code) ?? 'REPLY_NO_CHANNEL'),
          ]),
        ),
        matches: full.matches.map((m) => summaries.get(m.property_id)).filter((p) => p !== undefined),
        ...shortNearMisses(
          full.near_misses
            .map((m) => ({ property: summaries.get(m.property_id), missed: (m.failed ?? '').split(',').filter(Boolean) }))
            .filter((m) => m.property !== undefined),
        ),
      },
      status,
    );
  };

  // A viewing booked from the lead's page (CONTRACT §20): refused, the page again with the reasons beside the fields (422).
  app.post<{ Params: { lead_id: string } }>('/leads/:lead_id/viewings', csrfChecked, async (request, reply) => {
    const full = await ownLead(request);
    const booked = await bookFromForm(db, full.lead.business_id, request.body, { leadId: full.lead.id }, request.t);
    if ('form' in booked) {
      request.errorCode = 'VIEWING_FORM';
      return leadPage(reply, full, 422, null, 'thread', booked.form);
    }
    return reply.code(303).header('location', `/console/leads/${full.lead.id}#h-viewings`).send();
  });

  // Listings sent by hand (CONTRACT §21): refused, the page again with the reasons beside the fields (422), nothing stored.
  app.post<{ Params: { lead_id: string } }>('/leads/:lead_id/send', csrfChecked, async (request, reply) => {
    const full = await ownLead(request);
    const session = request.consoleSession!;
    const { value } = readForm(request.body, HandSendForm);
    const values = {
      property_id: Array.isArray(value.property_id) ? value.property_id.map(String) : [],
      property_ref: typeof value.property_ref === 'string' ? value.property_ref : '',
      channel: typeof value.channel === 'string' ? value.channel : '',
    };
    try {
      await sendListingsByHand(db, {
        businessId: full.lead.business_id,
        leadId: full.lead.id,
        userId: session.userId,
        channel: values.channel,
        // A value that is no id names no listing of the business (0): refused as not published.
        propertyIds: values.property_id.map((v) => (/^\d{1,10}$/.test(v.trim()) ? Number(v.trim()) : 0)),
        reference: values.property_ref,
        publicUrl: serverOrigin(request, publicUrl),
      });
    } catch (error) {
      if (!(error instanceof HandSendError)) throw error;
      request.errorCode = 'LISTINGS_SEND_FORM';
      return leadPage(reply, full, 422, null, 'thread', undefined, { values, faults: sendFaultWords(request.t, error) });
    }
    onJobsQueued();
    return reply.code(303).header('location', `/console/leads/${full.lead.id}#h-alerts`).send();
  });

  // The lead's contact and searches edited (CONTRACT §25): refused, the page again with the reasons beside the fields (422), nothing stored.
  app.post<{ Params: { lead_id: string } }>('/leads/:lead_id/edit', csrfChecked, async (request, reply) => {
    const full = await ownLead(request);
    const saved = await saveLeadEditForm(db, full.lead, request.body, request.consoleSession!.userId, {
      schema: LeadPatchBody,
      maxSearches: limits.searches,
      t: request.t,
    });
    if ('form' in saved) {
      request.errorCode = 'LEAD_EDIT_FORM';
      return leadPage(reply, full, 422, null, 'thread', undefined, undefined, saved.form);
    }
    if (saved.outcome.rematch) onJobsQueued();
    return reply.code(303).header('location', `/console/leads/${full.lead.id}#h-contact`).send();
  });

  // The listing a portal e-mail was about, linked by its reference when reading it found none (issue 57).
  app.post<{ Params: { lead_id: string } }>('/leads/:lead_id/email-listing', csrfChecked, async (request, reply) => {
    const full = await ownLead(request);
    const emailId = idParam(field(request.body, 'email_id')) ?? 0;
    const reference = field(request.body, 'property_ref').slice(0, 200);
    try {
      const { rematch } = await linkEmailListing(db, full.lead.business_id, full.lead.id, emailId, reference, {
        userId: request.consoleSession!.userId,
      });
      if (rematch) onJobsQueued();
    } catch (error) {
      if (!(error instanceof InmoError) || error.code !== 'EMAIL_LISTING_NOT_FOUND') throw error;
      request.errorCode = error.code;
      const link = { emailId, value: reference, fault: request.t('lead_email_link_not_found') };
      return leadPage(reply, full, 422, null, 'thread', undefined, undefined, undefined, link);
    }
    return reply.code(303).header('location', `/console/leads/${full.lead.id}#h-prefs`).send();
  });

  app.get<{ Params: { lead_id: string } }>('/leads/:lead_id', async (request, reply) => {
    const full = await ownLead(request);
    // An agent has now seen what the lead wrote: the inbox stops counting it.
    await markConversationSeen(db, full.lead.business_id, full.lead.id);
    return leadPage(reply, full);
  });

  // Everything held on the lead, as GET /v1/ext/leads/{id}/export gives it (CONTRACT §18): owners.
  app.get<{ Params: { lead_id: string } }>('/leads/:lead_id/export', { config: { consoleAccess: 'owner' } }, async (request, reply) => {
    const full = await ownLead(request);
    const document = await exportLead(db, full.lead.business_id, full.lead.id, { type: 'user', id: request.consoleSession!.userId });
    return reply
      .header('content-disposition', `attachment; filename="lead-${full.lead.id}.json"`)
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(document, null, 2));
  });

  // Erasure (CONTRACT §18, GDPR Art. 17): owners, after a page that says what goes.
  app.get<{ Params: { lead_id: string } }>('/leads/:lead_id/erase', { config: { consoleAccess: 'owner' } }, async (request, reply) => {
    const full = await ownLead(request);
    return render(reply, 'lead-erase', { lead: full.lead, title: full.lead.name ?? reply.request.t('unnamed') });
  });

  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/erase',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const id = idParam(request.params.lead_id);
      const session = request.consoleSession!;
      try {
        if (id === null) throw new InmoError('NOT_FOUND');
        await eraseLead(db, id, { businessId: session.businessId, actor: { type: 'user', id: session.userId } });
      } catch (error) {
        if (error instanceof InmoError && error.code === 'LEAD_NOT_FOUND') throw new InmoError('NOT_FOUND');
        throw error;
      }
      return reply.code(303).header('location', `/console/leads?erased=${id}`).send();
    },
  );

  app.get('/inbox', async (request, reply) => {
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(query(request).page ?? '1', 10) || 1));
    const { data } = await listConversations(db, {
      businessId: request.consoleSession!.businessId,
      limit: LEADS_PER_PAGE + 1,
      offset: (page - 1) * LEADS_PER_PAGE,
    });
    return render(reply, 'inbox', {
      conversations: data.slice(0, LEADS_PER_PAGE),
      now: Date.now(),
      previous: page > 1 ? `/console/inbox?page=${page - 1}` : null,
      next: data.length > LEADS_PER_PAGE ? `/console/inbox?page=${page + 1}` : null,
    });
  });

  /**
   * A conversation action on a lead: done, then 303 back to the thread; refused by the rules
   * (window closed, opted out, blank…), the lead's page again with the reason and the error's status.
   */
  const conversationAction = (act: (leadId: number, body: unknown) => Promise<unknown>) => {
    return async (request: FastifyRequest<{ Params: { lead_id: string } }>, reply: FastifyReply) => {
      const full = await ownLead(request);
      try {
        await act(full.lead.id, request.body);
      } catch (error) {
        if (!(error instanceof InmoError) || error.status >= 500) throw error;
        const problem = messageKeyOf(CONVERSATION_PROBLEMS, error.code);
        if (problem === undefined) throw error;
        request.errorCode = error.code;
        // The refusal changed nothing: the lead read above is still the page.
        return leadPage(reply, full, error.status, problem);
      }
      onJobsQueued();
      return reply.code(303).header('location', `/console/leads/${full.lead.id}#h-thread`).send();
    };
  };
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/reply',
    csrfChecked,
    conversationAction((leadId, body) => {
      const { text, channel } = readForm(body, ReplyForm).value;
      const way = REPLY_CHANNELS.find((c) => c === channel);
      return replyAsAgent(db, leadId, text, undefined, { channel: way });
    }),
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

  /**
   * A change to the lead (CONTRACT §16): done, then 303 back to the page; refused (a form's fault,
   * a rule of services/leads/pipeline.ts), the lead's page again with the reason and the status, and
   * nothing changed.
   */
  const workAction = <P extends { lead_id: string }>(
    act: (actor: Actor, leadId: number, body: unknown, request: FastifyRequest<{ Params: P }>) => Promise<unknown>,
    anchor: string,
  ) => {
    return async (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
      const full = await ownLead(request);
      const session = request.consoleSession!;
      try {
        await act({ userId: session.userId, role: session.role, businessId: session.businessId }, full.lead.id, request.body, request);
      } catch (error) {
        const at = anchor === 'h-notes' ? 'notes' : anchor === 'h-follow' ? 'follow' : anchor === 'h-owner-reports' ? 'owner' : 'work';
        if (error instanceof FormFault) return leadPage(reply, full, 422, error.problem, at);
        if (!(error instanceof InmoError) || error.status >= 500) throw error;
        const problem = messageKeyOf(WORK_PROBLEMS, error.code);
        if (problem === undefined) throw error;
        request.errorCode = error.code;
        return leadPage(reply, full, error.status, problem, at);
      }
      // From "Hoy" (its forms say `back=today`), back there; else to the lead's page.
      const to = field(request.body, 'back') === 'today' ? `/console#${anchor}` : `/console/leads/${full.lead.id}#${anchor}`;
      return reply.code(303).header('location', to).send();
    };
  };
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/status',
    csrfChecked,
    workAction((actor, leadId, body) => {
      const { value, faults } = readForm(body, LeadStatusForm);
      if (faults.some((f) => f.field === 'reason')) throw new FormFault('lead_reason_too_long');
      if (faults.length > 0) throw new InmoError('LEAD_STATUS_INVALID');
      return changeLeadStatus(db, actor, leadId, value.status, value.reason);
    }, 'h-work'),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/owner-reports',
    csrfChecked,
    workAction((actor, leadId, body) => {
      const days = field(body, 'days');
      const chosen = days === '' ? null : Number(days);
      if (chosen !== null && !(REPORT_DAYS_CHOICES as readonly number[]).includes(chosen))
        throw new FormFault('lead_owner_report_days_refused');
      return setOwnerReportDays(db, actor.businessId, leadId, chosen, { type: 'user', id: actor.userId });
    }, 'h-owner-reports'),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/notes',
    csrfChecked,
    workAction((actor, leadId, body) => {
      const { value, faults } = readForm(body, LeadNoteForm);
      if (faults.length > 0) throw new FormFault('lead_note_too_long');
      return addLeadNote(db, actor, leadId, value.text);
    }, 'h-notes'),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/alerts',
    csrfChecked,
    workAction((actor, leadId, body) => {
      const { value, faults } = readForm(body, LeadAlertsForm);
      return setLeadWantsAlerts(db, actor.businessId, leadId, faults.length === 0 && value.wants_alerts === '1');
    }, 'h-alerts'),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/assign',
    csrfChecked,
    workAction((actor, leadId, body) => {
      const { value, faults } = readForm(body, LeadAssignForm);
      if (faults.length > 0) throw new InmoError('LEAD_ASSIGNEE_UNKNOWN');
      return assignLead(db, actor, leadId, value.user_id === '' ? null : Number(value.user_id));
    }, 'h-work'),
  );
  app.post<{ Params: { lead_id: string; follow_up_id: string } }>(
    '/leads/:lead_id/follow-ups/:follow_up_id/done',
    csrfChecked,
    workAction(
      (actor, leadId, _body, request) => completeFollowUp(db, actor, leadId, idParam(request.params.follow_up_id) ?? 0),
      'h-follow',
    ),
  );
  app.post<{ Params: { lead_id: string; follow_up_id: string } }>(
    '/leads/:lead_id/follow-ups/:follow_up_id/snooze',
    csrfChecked,
    workAction((actor, leadId, _body, request) => snoozeFollowUp(db, actor, leadId, idParam(request.params.follow_up_id) ?? 0), 'h-follow'),
  );
  app.post<{ Params: { lead_id: string; follow_up_id: string } }>(
    '/leads/:lead_id/follow-ups/:follow_up_id/move',
    csrfChecked,
    workAction((actor, leadId, body, request) => {
      const { value, faults } = readForm(body, FollowUpMoveForm);
      if (faults.length > 0) throw new InmoError('FOLLOW_UP_DAY');
      return moveFollowUpTo(db, actor, leadId, idParam(request.params.follow_up_id) ?? 0, value.day);
    }, 'h-follow'),
  );
}
