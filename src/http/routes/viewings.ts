/**
 * Viewings (CONTRACT §20): `GET /viewings/availability` (scope `viewings:write`, publishable
 * keys included), `POST /viewings` (`viewings:write`; `Idempotency-Key` honoured, CONTRACT §13)
 * and `GET /viewings` (`leads:read`). The rules are services/viewings/'s.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { addDays, dayStart, toLocalRfc3339 } from '../../domain/viewings/hours.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import { Availability, AvailabilityQuery, ViewingCreated, ViewingPage, ViewingsQuery } from '../../schemas/viewings.ts';
import type { Schemas } from '../../schemas/index.ts';
import { Idempotency } from '../../services/integrations/idempotency.ts';
import { viewingAvailability } from '../../services/viewings/availability.ts';
import { bookViewing } from '../../services/viewings/booking.ts';
import { businessClock } from '../../services/viewings/clock.ts';
import { listViewings } from '../../services/viewings/reads.ts';
import { readAwareDatetime, readDate, type ValidationIssue } from '../../validation/validator.ts';
import { isPublishable } from '../auth.ts';
import { checkIdempotencyKey, idempotently, idempotentRoute } from '../idempotency.ts';
import { queryRefinement } from '../request-pipeline.ts';
import { IdempotencyHeaders } from './leads.ts';

const plain = (description: string) => Type.Ref('PlainError', { description });

/** `from` and `to` as dates (`date_parsing` otherwise). @returns the dates read. */
const datesOf = queryRefinement((query: Record<string, unknown>, issues: ValidationIssue[]) => {
  const read = (name: 'from' | 'to') =>
    typeof query[name] === 'string' ? readDate(query[name] as string, ['query', name], issues) : undefined;
  return { from: read('from'), to: read('to') };
});

/** `starts_at` an instant with an offset; exactly one of `lead_id` and `lead`. */
function refineViewingBody(body: Record<string, unknown>, issues: ValidationIssue[]): void {
  if (typeof body.starts_at === 'string') readAwareDatetime(body.starts_at, ['body', 'starts_at'], issues);
  const given = ['lead_id', 'lead'].filter((field) => body[field] !== undefined && body[field] !== null);
  if (given.length !== 1) {
    const reason = given.length === 0 ? 'give the lead as lead_id or lead' : 'give the lead as lead_id or lead, not both';
    issues.push({ type: 'value_error', loc: ['body'], msg: `Value error, ${reason}`, input: body, ctx: { error: {} } });
  }
}

/**
 * The viewings routes.
 * @param options.writes group commit of the API's writes (a booking's lead and viewing commit together).
 * @param options.onJobsQueued called once a new lead's jobs are committed (the in-process worker wakes).
 */
export const viewingRoutes: FastifyPluginAsyncTypebox<{ db: Db; writes: GroupCommit; onJobsQueued: () => void; schemas: Schemas }> = async (
  app,
  { db, writes, onJobsQueued, schemas },
) => {
  const idempotency = new Idempotency(writes);
  const idempotent = idempotentRoute(idempotency);
  if (!app.hasRequestDecorator('idempotencyTicket')) app.decorateRequest('idempotencyTicket', null);

  app.get(
    '/viewings/availability',
    {
      config: { scope: 'viewings:write', refineQuery: datesOf.refineQuery },
      schema: {
        operationId: 'getViewingAvailability',
        tags: ['viewings'],
        summary: 'Free viewing slots of a listing',
        description:
          'The 30-minute slots in which the listing can be visited, from `from` for `days` days: within the business’s viewing hours (by default Monday to Friday 10:00–14:00 and 16:00–20:00, Saturday 10:00–14:00, in its time zone, `Europe/Madrid` by default), every 30 minutes from the start of each period of them, in the future and at most 90 days ahead (`INMO_VIEWING_HORIZON_DAYS`; later days are empty), and free for the listing’s agent (or, when it has none, for at least one agent of the business). For a publishable key a `requested` viewing holds its slot; a secret key books over requests, and sees their slots free. Times carry the business’s local offset, so the change to summer time shows (`+01:00` in winter, `+02:00` in summer for Madrid). Publishable keys may ask, for a website’s “Pedir visita”.',
        querystring: AvailabilityQuery,
        response: { 200: Availability, 404: plain('No published listing with this id in the business.') },
      },
    },
    async (request) => {
      const { property_id, days = 7 } = request.query;
      const { clock, slots } = await viewingAvailability(db, request.apiKey!.businessId, {
        propertyId: property_id,
        from: datesOf.of(request).from,
        days,
        listedOnly: true,
        withRequested: isPublishable(request),
      });
      return { data: slots.map((s) => ({ starts_at: toLocalRfc3339(s.start, clock.zone), ends_at: toLocalRfc3339(s.end, clock.zone) })) };
    },
  );

  app.post(
    '/viewings',
    {
      config: { scope: 'viewings:write', perIpLimit: true, refineBody: refineViewingBody, refineHeaders: checkIdempotencyKey },
      ...idempotent,
      schema: {
        operationId: 'createViewing',
        tags: ['viewings'],
        summary: 'Book a viewing',
        description:
          'Books a 30-minute viewing of a published listing for a lead: an existing one (`lead_id`, secret keys only) or the person described by `lead`, made a lead as POST /leads/inquiries makes one (a person already known by the phone gets the viewing on their lead). The listing’s agent takes it (or, when it has none, a free agent of the business, the lead’s own first). The time must be a slot of GET /viewings/availability: within the viewing hours, every 30 minutes from the start of each period, at most 90 days ahead (`INMO_VIEWING_HORIZON_DAYS`), and free: a slot taken meanwhile is 409, and nothing is stored. A secret key books it `scheduled`, over any `requested` viewing of the agent (the agent settles the clash), and never for a lead who has another viewing at that time (409). A publishable key books it `requested`, which an agent confirms, and its answer is the same whether the person was known or not: a person with another open viewing of the listing, one at an overlapping time, or 3 open ones already (`INMO_VIEWING_LEAD_MAX_OPEN`) gets the same 201, the request kept only as an interaction of their lead. A publishable key makes at most 50 requests in 24 hours (`INMO_VIEWING_REQUESTS_PER_DAY`; beyond, 429). A `valuation` (secret keys only) is an agent’s visit to an owner’s home: `lead_id` a `propietario`, `property_id` a listing linked to it, published or not (CONTRACT §24). Subscribers get `viewing.scheduled`.',
        querystring: Type.Object({}),
        headers: IdempotencyHeaders,
        body: schemas.ViewingBody,
        response: {
          201: ViewingCreated,
          400: plain('The lead could not be stored.'),
          404: plain('No published listing with this `property_id`, or no lead with this `lead_id`, in the business.'),
          409: plain(
            'The slot is no longer free: ask for the availability again and choose another. Or (a secret key) the lead has another viewing at that time. Or the first request with this Idempotency-Key is still running: retry after `Retry-After` seconds.',
          ),
          413: plain('Request body larger than the configured limit (1 MiB by default; CONTRACT §8).'),
          422: Type.Ref('ValidationError', {
            description:
              'A field is invalid (Pydantic-shaped): among others a `starts_at` in the past, more than 90 days ahead (`INMO_VIEWING_HORIZON_DAYS`), outside the viewing hours or off the 30-minute grid of GET /viewings/availability, or a `lead_id` from a publishable key; or no phone of `lead` is a valid number, or a `valuation` not of an owner at its own listing (`detail` is then a single message string).',
          }),
          429: Type.Ref('PlainError', {
            description:
              'Too many requests: of this key in the last minute (or, on POST, from this client address), or of this publishable key’s viewing requests in the last 24 hours (`INMO_VIEWING_REQUESTS_PER_DAY`). `Retry-After` gives the seconds to wait. Every response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (the per-minute limits).',
          }),
        },
      },
    },
    async (request, reply) =>
      idempotently(idempotency, request, reply, async () => {
        const { body } = request;
        const key = request.apiKey!;
        const publishable = isPublishable(request);
        if (publishable && body.lead_id !== undefined && body.lead_id !== null) {
          throw new RequestValidationError([
            {
              type: 'value_error',
              loc: ['body', 'lead_id'],
              msg: 'Value error, a publishable key books for the person described by lead, not by lead_id',
              input: body.lead_id,
              ctx: { error: {} },
            },
          ]);
        }
        let lead: Parameters<typeof bookViewing>[2]['lead'];
        if (body.lead) {
          const [primary, second, landline] = [body.lead.phone_number_1, body.lead.phone_number_2, body.lead.landline_phone].map((p) =>
            p ? normalizePhone(p) : null,
          );
          if (primary === null || (body.lead.phone_number_2 && second === null) || (body.lead.landline_phone && landline === null)) {
            throw new InmoError('INVALID_PHONE');
          }
          lead = {
            inquiry: { ...body.lead, type: 'demandante', phone_number_1: primary, phone_number_2: second, landline_phone: landline },
            verified: !publishable,
          };
        } else lead = { id: body.lead_id! };
        const record = idempotency.onResponse(request.idempotencyTicket);
        const { viewing, leadOutcome } = await bookViewing(
          writes,
          key.businessId,
          {
            propertyId: body.property_id,
            startsAt: Date.parse(body.starts_at.replace(' ', 'T')),
            lead,
            status: publishable ? 'requested' : 'scheduled',
            source: publishable ? 'website' : 'api',
            kind: body.kind,
            listedOnly: true,
            apiKeyId: publishable ? key.keyId : undefined,
          },
          record &&
            ((trx, booked) => record(trx, { status: 201, body: JSON.stringify(answer(booked, publishable)), leadId: booked.lead_id })),
        );
        // A new lead's jobs, or the lead's notice of a scheduled viewing (services/viewings/notices.ts).
        if (leadOutcome === 'created' || leadOutcome === 'completed' || viewing.status === 'scheduled') onJobsQueued();
        return reply.code(201).send(answer(viewing, publishable));
      }),
  );

  app.get(
    '/viewings',
    {
      config: { scope: 'leads:read', refineQuery: datesOf.refineQuery },
      schema: {
        operationId: 'listViewings',
        tags: ['viewings'],
        summary: 'List viewings',
        description:
          'The business’s viewings by start time, in any status, filtered by lead, listing, kind and the days they start on (`from` and `to` inclusive, in the business’s time zone).',
        querystring: ViewingsQuery,
        response: { 200: ViewingPage },
      },
    },
    async (request) => {
      const businessId = request.apiKey!.businessId;
      const { limit = 100, offset = 0, lead_id, property_id, kind } = request.query;
      const { from, to } = datesOf.of(request);
      const { zone } = await businessClock(db, businessId);
      const filters = {
        leadId: lead_id,
        propertyId: property_id,
        kind,
        from: from === undefined ? undefined : toRfc3339(new Date(dayStart(from, zone))),
        to: to === undefined ? undefined : toRfc3339(new Date(dayStart(addDays(to, 1), zone))),
      };
      return listViewings(db, businessId, filters, limit, offset) as Promise<Static<typeof ViewingPage>>;
    },
  );
};

/** POST /viewings's 201 body: a publishable key's is always `requested` (a request kept as an interaction only answers alike). */
const answer = (viewing: { id: number; status: string }, publishable: boolean) => ({
  id: viewing.id,
  status: publishable ? ('requested' as const) : (viewing.status as 'scheduled' | 'requested'),
});
