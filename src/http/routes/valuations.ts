/**
 * `POST /valuations` (CONTRACT §24, issue 58 item 5): "¿Cuánto vale tu casa?". An owner gives the
 * home's address, postal code, type, size and bedrooms with their name, phone and consent; the
 * answer is the suggested range from the business's comparables in that postal code (the
 * valuation report's rules, domain/owners/valuation.ts), and the owner becomes a `propietario`
 * lead with the home's facts and the range in its notes (services/owners/valuations.ts
 * `askValuation`). Scope `leads:ingest`, with a secret or a publishable key (the website kit's
 * `<inmo-valuation>`), per-IP limited and idempotent as `POST /leads/inquiries` is. A known person
 * gets the range too, their request kept as an interaction (CONTRACT §22); a secret key is told
 * the lead's id, a publishable key never (CONTRACT §13).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { InmoError } from '../../errors.ts';
import type { Schemas } from '../../schemas/index.ts';
import { Literals } from '../../schemas/common.ts';
import { Idempotency } from '../../services/integrations/idempotency.ts';
import { askValuation } from '../../services/owners/valuations.ts';
import { isPublishable } from '../auth.ts';
import { checkIdempotencyKey, idempotently, idempotentRoute } from '../idempotency.ts';
import { IdempotencyHeaders, LEAD_POST_HEADERS } from './leads.ts';
import type { Valuation } from '../../domain/owners/valuation.ts';

const Euros = (description: string) => Type.Integer({ description });

const ValuationGiven = Type.Object(
  {
    status: Type.Literal('ok'),
    authenticated_as: Type.String({ description: 'Name of the business that owns the key.' }),
    valuation: Type.Object({
      operation: Literals(['venta', 'alquiler'] as const, { description: 'Sell or let, as asked.' }),
      comparables: Type.Integer({ description: 'Comparable listings found (same type and operation, ±25 % size, same postal code).' }),
      range: Type.Union(
        [
          Type.Object({
            low: Euros(
              '€: the lower end (the 25th percentile of the comparables’ adjusted price per m², times the size); a monthly rent for `alquiler`.',
            ),
            median: Euros('€: the median.'),
            high: Euros('€: the upper end (the 75th percentile).'),
            low_m2: Euros('€/m² at the lower end.'),
            median_m2: Euros('€/m², the median.'),
            high_m2: Euros('€/m² at the upper end.'),
          }),
          Type.Null(),
        ],
        { description: 'The suggested range; null with fewer than 3 comparables (an agent calls instead).' },
      ),
    }),
    lead_id: Type.Optional(
      Type.Integer({ description: 'The owner’s lead (created, completed or known). Secret keys only (CONTRACT §13).' }),
    ),
  },
  {
    'x-response-description': 'The home was valued and the owner stored as a `propietario` lead (or, known, their request kept).',
    headers: LEAD_POST_HEADERS,
  },
);

/** `POST /valuations` (see the module's comment). */
export const valuationRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writes: GroupCommit;
  onJobsQueued: () => void;
  schemas: Schemas;
}> = async (app, { db, writes, onJobsQueued, schemas }) => {
  const idempotency = new Idempotency(writes);
  if (!app.hasRequestDecorator('idempotencyTicket')) app.decorateRequest('idempotencyTicket', null);
  app.post(
    '/valuations',
    {
      config: { scope: 'leads:ingest', perIpLimit: true, refineHeaders: checkIdempotencyKey },
      ...idempotentRoute(idempotency),
      schema: {
        operationId: 'createValuation',
        tags: ['leads'],
        summary: 'Value a home and keep its owner as a lead',
        description:
          'What the website kit’s `<inmo-valuation>` sends (CONTRACT §24): the suggested range from the business’s comparables in the postal code, and the owner stored as a `propietario` lead with the home’s facts and the range in its notes. A known phone gets the range too, its request kept as an interaction (CONTRACT §22).',
        querystring: Type.Object({}),
        headers: IdempotencyHeaders,
        body: schemas.ValuationBody,
        response: {
          200: ValuationGiven,
          400: Type.Ref('PlainError', { description: 'The lead could not be stored.' }),
          409: Type.Ref('PlainError', {
            description: 'The first request with this Idempotency-Key is still running: retry after `Retry-After` seconds.',
          }),
          422: Type.Ref('ValidationError', { description: 'A field is invalid (Pydantic-shaped), or the phone is not a valid number.' }),
        },
      },
    },
    async (request, reply) =>
      idempotently(idempotency, request, reply, async () => {
        const { body } = request;
        const key = request.apiKey!;
        const phone = normalizePhone(body.phone_number_1);
        if (phone === null) throw new InmoError('INVALID_PHONE');
        const publishable = isPublishable(request);
        const operation = body.operation ?? 'venta';
        const given = (valuation: Valuation) => ({
          operation,
          comparables: valuation.comparables.length,
          range: valuation.range && {
            low: valuation.range.low,
            median: valuation.range.median,
            high: valuation.range.high,
            low_m2: Math.round(valuation.range.low_m2),
            median_m2: Math.round(valuation.range.median_m2),
            high_m2: Math.round(valuation.range.high_m2),
          },
        });
        const answer = (valuation: Valuation, leadId: number | null) =>
          publishable
            ? { status: 'ok' as const, authenticated_as: key.businessName, valuation: given(valuation) }
            : { status: 'ok' as const, authenticated_as: key.businessName, valuation: given(valuation), lead_id: leadId! };
        const { valuation, leadId, outcome } = await askValuation(
          db,
          writes,
          key.businessId,
          {
            address: body.address,
            postal_code: body.postal_code,
            property_type: body.property_type,
            operation,
            size_total: body.size_total,
            bedrooms: body.bedrooms ?? null,
            person: {
              name: body.name,
              phone_number_1: phone,
              personal_email: body.personal_email,
              preferred_language: body.preferred_language,
              source: body.source,
              sourcePage: body.sourcePage,
              consent: body.consent,
            },
          },
          { verified: !publishable },
          // A known person gets the range as a new one does: the record keeps the 200 either way.
          (valuation) => idempotency.recordFor(request.idempotencyTicket, (leadId) => answer(valuation, leadId), null),
        );
        if (outcome !== 'known') onJobsQueued();
        // As POST /leads/inquiries tells a secret key (and its replays tell it again).
        if (!publishable) reply.header('inmo-lead-outcome', outcome === 'known' ? 'unchanged' : outcome);
        return answer(valuation, leadId);
      }),
  );
};
