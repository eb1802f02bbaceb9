/**
 * GET /leads, POST /leads/inquiries, POST /leads/ingest (spec §4.1–§4.3; CONTRACT §1, §6),
 * GET /leads/{lead_id} and its matches (CONTRACT §13), and PATCH /leads/{lead_id} (CONTRACT §25).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { canonicalLeadType, LEAD_TYPE_ALIASES } from '../../domain/leads/rules.ts';
import { ingestPrimaryPhone, normalizePhone } from '../../domain/leads/phone.ts';
import { InmoError } from '../../errors.ts';
import {
  conditional200,
  IfNoneMatchHeaders,
  LeadErased,
  LeadExport,
  LeadMatches,
  LeadPage,
  LeadParams,
  LeadsQuery,
  NotModified,
} from '../../schemas/api.ts';
import type { Schemas } from '../../schemas/index.ts';
import { createInquiryLead, ingestRentalLead } from '../../services/leads/intake.ts';
import { Idempotency } from '../../services/integrations/idempotency.ts';
import { isPublishable } from '../auth.ts';
import { checkIdempotencyKey, idempotently, idempotentRoute, keyRecordFor } from '../idempotency.ts';
import { conditionalRoute, type RepresentationSink } from '../conditional.ts';
import { exportLead, getLead, leadMatchesJson, type LeadPages } from '../../services/leads/leads.ts';
import { eraseLead } from '../../services/leads/erasure.ts';
import { editLead, normalizeEditPhones } from '../../services/leads/edit.ts';
import { readAwareDatetime, type ValidationIssue } from '../../validation/validator.ts';
import { queryRefinement } from '../request-pipeline.ts';

const NoQuery = Type.Object({});

/** The `Idempotency-Key` request header of the POSTs that create (CONTRACT §13). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes a retry safe (CONTRACT §13): for 24 h, the same key with the same body gets the first response again (with `Idempotent-Replayed: true`) and never creates a second lead or viewing; with another body, 422; while the first request runs, 409 with `Retry-After: 1`. Printable ASCII, e.g. a UUID per form submission.',
      examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
    }),
  ),
});

/** Response headers of the two POSTs' 200 (CONTRACT §13). */
export const LEAD_POST_HEADERS = {
  'Inmo-Lead-Outcome': {
    type: 'string',
    enum: ['created', 'completed', 'unchanged'],
    description:
      '`created`: a new lead; `completed`: an unnamed lead with this phone got the details; `unchanged`: a lead with this phone existed and nothing changed (the request is kept as its interaction). Never sent to a publishable key (CONTRACT §13).',
  },
  'Idempotent-Replayed': {
    type: 'string',
    enum: ['true'],
    description: 'Present when this is the stored first response to the request’s Idempotency-Key.',
  },
};

const InquiryCreated = Type.Object(
  {
    status: Type.Literal('ok'),
    authenticated_as: Type.String({ description: 'Name of the business that owns the key.' }),
    lead_id: Type.Optional(
      Type.Integer({
        description:
          'The created lead, or the completed unnamed one. Always present for a secret key; never for a publishable key (CONTRACT §13), whose answer is the same for a new and a known person.',
      }),
    ),
  },
  {
    'x-response-description':
      'The lead was stored: created, or an unnamed lead with this phone completed. With a publishable key, also the answer for a known person, whose request is kept as an interaction of their lead.',
    headers: LEAD_POST_HEADERS,
  },
);
const IngestAccepted = Type.Object(
  { status: Type.Literal('ok'), authenticated_as: Type.String({ description: 'Name of the business that owns the key.' }) },
  {
    'x-response-description': 'Accepted: the lead was created, or one with this phone already existed and is unchanged.',
    headers: LEAD_POST_HEADERS,
  },
);
const plain = (description: string) => Type.Ref('PlainError', { description });
const phoneOr422 = Type.Ref('ValidationError', {
  description: 'A field is invalid (Pydantic-shaped), or no phone is a valid number (`detail` is then a single message string).',
});

/** Answers with a catalogued error without throwing it (the request's log line still names it). */
function refuse(request: FastifyRequest, reply: FastifyReply, error: InmoError): FastifyReply {
  request.errorCode = error.code;
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({ detail: error.detail } as never);
}

/** The inquiry `type` values spec §4.2 accepts, in words: `buyer, tenant, … or proveedor-servicios`. */
const ACCEPTED_TYPES = ((types) => `${types.slice(0, -1).join(', ')} or ${types.at(-1)}`)(Object.keys(LEAD_TYPE_ALIASES));

/** spec §4.2: an unknown inquiry `type` is a `value_error` at `["body", "type"]` (CONTRACT §6). */
function refineInquiry(body: Record<string, unknown>, issues: ValidationIssue[]): void {
  if (typeof body.type === 'string' && canonicalLeadType(body.type) === null) {
    issues.push({
      type: 'value_error',
      loc: ['body', 'type'],
      msg: `Value error, unknown lead type ${JSON.stringify(body.type)}; use ${ACCEPTED_TYPES}`,
      input: body.type,
      ctx: { error: {} },
    });
  }
}

/**
 * `updated_since` as Pydantic's `AwareDatetime` reports it (CONTRACT §2, §13).
 * @returns the instant in the canonical form of domain/time.ts, or undefined (absent or faulty).
 */
export function refineLeadsQuery(query: Record<string, unknown>, issues: ValidationIssue[]): string | undefined {
  const text = query.updated_since;
  return typeof text === 'string' ? readAwareDatetime(text, ['query', 'updated_since'], issues) : undefined;
}

/**
 * GET /leads, POST /leads/inquiries, POST /leads/ingest (spec §4.1–4.3).
 * @param options.writes group commit of lead creation.
 * @param options.onJobsQueued called once a new lead's jobs are committed (the in-process worker wakes).
 * @param options.schemas the request schemas for the configured limits.
 */
const updatedSince = queryRefinement(refineLeadsQuery);

export const leadRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writes: GroupCommit;
  onJobsQueued: () => void;
  schemas: Schemas;
  /** GET /leads's page cache. */
  pages: LeadPages;
  /** Where cached pages go to be answered again before Fastify (http/fast-path.ts); null: nowhere. */
  fastPath: RepresentationSink | null;
}> = async (app, { db, writes, onJobsQueued, schemas, pages, fastPath }) => {
  const idempotency = new Idempotency(writes);
  const idempotent = idempotentRoute(idempotency);
  app.decorateRequest('idempotencyTicket', null);

  const conditional = conditionalRoute();
  app.get(
    '/leads',
    {
      ...conditionalRoute(fastPath),
      config: { scope: 'leads:read', refineQuery: updatedSince.refineQuery },
      schema: {
        operationId: 'listLeads',
        tags: ['leads'],
        summary: 'List leads',
        description: 'The business’s leads, newest first (`created_at` desc, then `id` desc).',
        querystring: LeadsQuery,
        headers: IfNoneMatchHeaders,
        response: { 200: LeadPage, 304: NotModified },
      },
    },
    async (request, reply) => {
      const { limit = 100, offset = 0, status, type, source } = request.query;
      const search = { status, type, source, updatedSince: updatedSince.of(request) };
      const { body, version } = await pages.page(request.apiKey!.businessId, search, limit, offset);
      if (version !== null) request.readVersion = { of: 'leads', version };
      // The page comes serialised (and cached) already: the bytes of a LeadPage.
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof LeadPage>);
    },
  );

  app.get(
    '/leads/:lead_id',
    {
      ...conditional,
      config: { scope: 'leads:read' },
      schema: {
        operationId: 'getLead',
        tags: ['leads'],
        summary: 'Retrieve a lead',
        description: 'The lead object of GET /leads, for example to read back the lead that POST /leads/inquiries created.',
        querystring: NoQuery,
        params: LeadParams,
        headers: IfNoneMatchHeaders,
        response: {
          200: Type.Ref('Lead', conditional200('The lead.')),
          304: NotModified,
          404: plain('No lead with this id in the business.'),
        },
      },
    },
    async (request) => getLead(db, request.apiKey!.businessId, request.params.lead_id),
  );

  app.get(
    '/leads/:lead_id/export',
    {
      config: { scope: 'leads:read' },
      schema: {
        operationId: 'exportLead',
        tags: ['leads'],
        summary: 'Everything held on a lead',
        description:
          'One JSON document with everything inmo holds on the lead, to answer a person’s access or portability request (GDPR Art. 15 and 20; CONTRACT §18): the lead, its consents, searches, notes, matches, WhatsApp messages and conversation, follow-ups, viewings, the console’s history of it, and the events about it still in the log.',
        querystring: NoQuery,
        params: LeadParams,
        response: { 200: LeadExport, 404: plain('No lead with this id in the business.') },
      },
    },
    async (request) => {
      const key = request.apiKey!;
      return exportLead(db, key.businessId, request.params.lead_id, { type: 'key', id: key.keyId }) as Promise<Static<typeof LeadExport>>;
    },
  );

  app.delete(
    '/leads/:lead_id',
    {
      config: { scope: 'leads:erase' },
      schema: {
        operationId: 'eraseLead',
        tags: ['leads'],
        summary: 'Erase a lead',
        description:
          'Erases everything held on the person (GDPR Art. 17; CONTRACT §18): names, phones, e-mails, `dni`, notes, searches, WhatsApp messages and the conversation, consents, viewings, the console’s history, the lead’s events and Idempotency-Key records. Queued messages and follow-ups are cancelled: nothing is sent to the person again. The lead then answers 404 everywhere and leaves GET /leads; subscribers get `lead.erased` (`{id}`). Erasing it again answers 200 with the first erasure’s time.',
        querystring: NoQuery,
        params: LeadParams,
        response: { 200: LeadErased, 404: plain('No lead with this id in the business, now or erased before.') },
      },
    },
    async (request) => {
      const key = request.apiKey!;
      return eraseLead(db, request.params.lead_id, { businessId: key.businessId, actor: { type: 'key', id: key.keyId } });
    },
  );

  app.patch(
    '/leads/:lead_id',
    {
      config: { scope: 'leads:write' },
      schema: {
        operationId: 'updateLead',
        tags: ['leads'],
        summary: 'Edit a lead',
        description:
          'Changes the lead’s contact fields and searches (CONTRACT §25), each checked as POST /leads/inquiries checks it (spec §4.2): the fields sent change, the others keep their values; `search_preferences` replaces the searches whole. Phones are normalised to E.164. The lead’s `updated_at` moves, its history in the console names the fields changed, subscribers get `lead.updated`, and new searches are matched again in the background (a lead that was `new` and now has a search becomes `searching_property`). A body that changes nothing changes nothing. Secret keys with the scope `leads:write` only.',
        querystring: NoQuery,
        params: LeadParams,
        body: schemas.LeadPatchBody,
        response: {
          200: Type.Object(
            { data: Type.Ref('Lead') },
            { 'x-response-description': 'The lead as it is now, as GET /leads/{lead_id} shows it.' },
          ),
          404: plain('No lead with this id in the business.'),
          409: plain('Another lead of the business has this primary phone (`LEAD_PHONE_TAKEN`); nothing changed.'),
          413: plain('Request body larger than the configured limit (1 MiB by default; CONTRACT §8).'),
          422: phoneOr422,
        },
      },
    },
    async (request) => {
      const key = request.apiKey!;
      const { edit, invalid } = normalizeEditPhones(request.body);
      if (invalid.length > 0) throw new InmoError('INVALID_PHONE');
      const { rematch } = await editLead(db, key.businessId, request.params.lead_id, edit, { keyId: key.keyId });
      if (rematch) onJobsQueued();
      return { data: await getLead(db, key.businessId, request.params.lead_id) };
    },
  );

  app.get(
    '/leads/:lead_id/matches',
    {
      config: { scope: 'leads:read' },
      schema: {
        operationId: 'getLeadMatches',
        tags: ['leads'],
        summary: 'What a lead was matched to',
        description:
          'The public properties that matched one of the lead’s searches when matching last ran (shortly after the lead arrived, and again after the catalogue changed), and the near misses: properties that fail exactly one criterion, with the criteria named. A lead that asked for a rent of at most 900 € sees the 950 € flat as a near miss with `missed: ["price_rent_max"]`. Empty lists until matching has run.',
        querystring: NoQuery,
        params: LeadParams,
        response: { 200: LeadMatches, 404: plain('No lead with this id in the business.') },
      },
    },
    async (request, reply) => {
      const body = await leadMatchesJson(db, request.apiKey!.businessId, request.params.lead_id);
      // Built as text from the stored published documents, like the catalogue's pages.
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof LeadMatches>);
    },
  );

  app.post(
    '/leads/inquiries',
    {
      config: { scope: 'leads:ingest', perIpLimit: true, refineBody: refineInquiry, refineHeaders: checkIdempotencyKey },
      ...idempotent,
      schema: {
        operationId: 'createInquiry',
        tags: ['leads'],
        summary: 'Create a lead from full contact details',
        description:
          'The recommended way to send leads. A lead with the same primary phone and no name is completed and its id returned; one with a name gives 409. Stored active, rating 3, captured by `Web`, with generated notes; matching, the welcome message and follow-ups follow in the background.',
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: schemas.InquiryBody,
        response: {
          200: InquiryCreated,
          400: plain('The lead could not be stored.'),
          409: plain(
            'A lead with this primary phone and a name exists; treat it as already present and do not retry (the request is kept as an interaction of that lead, CONTRACT §22; a publishable key gets the 200 instead). Or the first request with this Idempotency-Key is still running: retry after `Retry-After` seconds.',
          ),
          413: plain('Request body larger than the configured limit (1 MiB by default; CONTRACT §8).'),
          422: phoneOr422,
        },
      },
    },
    async (request, reply) =>
      idempotently(idempotency, request, reply, async () => {
        const { body } = request;
        const key = request.apiKey!;
        const [primary, second, landline] = [body.phone_number_1, body.phone_number_2, body.landline_phone].map((p) =>
          p ? normalizePhone(p) : null,
        );
        if (primary === null || (body.phone_number_2 && second === null) || (body.landline_phone && landline === null)) {
          throw new InmoError('INVALID_PHONE');
        }
        // A publishable key's answer is the same for a new and a known person (CONTRACT §13).
        const publishable = isPublishable(request);
        const answer = (leadId: number | null) =>
          publishable
            ? { status: 'ok' as const, authenticated_as: key.businessName }
            : { status: 'ok' as const, authenticated_as: key.businessName, lead_id: leadId! };
        const { leadId, outcome } = await createInquiryLead(
          writes,
          key.businessId,
          { ...body, type: canonicalLeadType(body.type)!, phone_number_1: primary, phone_number_2: second, landline_phone: landline },
          // A publishable key's request cannot prove it comes from the person (docs/security.md).
          { verified: !publishable },
          keyRecordFor(idempotency, request, answer),
        );
        if (outcome === 'known') {
          // Kept as the known lead's interaction (CONTRACT §22); a secret key is told the spec's 409.
          // Sent, not thrown: the interaction and its Idempotency-Key record are committed, and a
          // thrown error would read as a failed first try (http/idempotency.ts `idempotently`).
          if (!publishable) return refuse(request, reply, new InmoError('DUPLICATE_PHONE'));
          return answer(null);
        }
        onJobsQueued();
        if (!publishable) reply.header('inmo-lead-outcome', outcome);
        return answer(leadId);
      }),
  );

  app.post(
    '/leads/ingest',
    {
      config: { scope: 'leads:ingest', perIpLimit: true, refineHeaders: checkIdempotencyKey },
      ...idempotent,
      schema: {
        operationId: 'ingestRentalLead',
        tags: ['leads'],
        summary: 'Create a rental lead from a compact form payload',
        description:
          'Creates a `demandante` lead looking to rent an `apartamento` or `casa`, rating 3, `alta-urgencia`. The primary phone is the first valid of `areaCode`+`phoneNumber`, `phoneE164`, `phone`, `phoneRaw`. An existing phone gives 200 and changes nothing of that lead: the request is kept as its interaction (CONTRACT §22). A malformed `search.budget` gives 500 and stores nothing.',
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: schemas.IngestBody,
        response: {
          200: IngestAccepted,
          409: plain('The first request with this Idempotency-Key is still running: retry after `Retry-After` seconds.'),
          413: plain('Request body larger than the configured limit (1 MiB by default; CONTRACT §8).'),
          422: phoneOr422,
          500: plain('Unexpected server error, or a `search.budget` that is not a whole number or a range of whole numbers.'),
        },
      },
    },
    async (request, reply) =>
      idempotently(idempotency, request, reply, async () => {
        const key = request.apiKey!;
        const phone = ingestPrimaryPhone(request.body.contact);
        if (phone === null) throw new InmoError('INVALID_PHONE');
        const answer = () => ({ status: 'ok' as const, authenticated_as: key.businessName });
        const record = keyRecordFor(idempotency, request, answer);
        const leadId = await ingestRentalLead(writes, key.businessId, request.body, phone, !isPublishable(request), record);
        if (leadId !== null) onJobsQueued();
        // A publishable key's answer is the same for a new and a known person (CONTRACT §13).
        if (!isPublishable(request)) reply.header('inmo-lead-outcome', leadId === null ? 'unchanged' : 'created');
        return answer();
      }),
  );
};
