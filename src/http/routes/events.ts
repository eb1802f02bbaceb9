/** GET /events (CONTRACT §13): the business's event log, oldest first, for polling clients. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { Literals } from '../../schemas/common.ts';
import { EVENT_TYPES, eventsPage, parseEventId } from '../../services/integrations/events.ts';
import { queryRefinement } from '../request-pipeline.ts';
import type { ValidationIssue } from '../../validation/validator.ts';

const EventsQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'An event id (`evt_…`, or the `next_cursor` of the last page): only later events.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Events per page, 1 to 500.' })),
});

const EventsPage = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        id: Type.String({ description: '`evt_…`; also the `webhook-id` of its webhook deliveries.' }),
        type: Literals(EVENT_TYPES),
        created_at: Type.String({ format: 'date-time' }),
        data: Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              '`lead.created`, `lead.updated`: `{lead}` (the Lead object); `match.found`: `{lead_id, matches: [property id], near_misses}`; `message.status`: `{lead_id, message_id, status}`; `conversation.waiting`: `{lead_id}`; `property.changed`: `{id, change}` (`upsert` when a listing enters or changes in the public catalogue, `delete` when it leaves it); `lead.erased`: `{id}` (the lead was erased at a person’s request or by retention: erase your copy; it is the last event of that lead); `lead.contacted_again`: `{id, source}` (a known person asked again; the request is kept with the lead, which does not change); `viewing.scheduled`: `{viewing}` (the Viewing object: a viewing was booked, `requested` or `scheduled`); `viewing.updated`: `{viewing}` (any later change to it: confirmed, cancelled, moved, done, no show, feedback); `mandate.signed`, `mandate.ended`: `{id, property_id, status}` (a listing’s mandate signed; ended early, replaced by a new version, or `expired` at its end; CONTRACT §24).',
          },
        ),
      }),
    ),
    next_cursor: Type.String({ description: 'Pass it as `after` in the next call (even when `data` is empty).' }),
    has_more: Type.Boolean(),
  },
  { 'x-response-description': 'Events after `after`, oldest first; kept 30 days.' },
);

/** `after` as an event number; an id that is not `evt_<n>` is a `value_error`. */
const after = queryRefinement(function refineEventsQuery(query: Record<string, unknown>, issues: ValidationIssue[]): number {
  if (typeof query.after !== 'string') return 0;
  const after = parseEventId(query.after);
  if (after !== null) return after;
  const error = 'after must be an event id such as evt_42';
  issues.push({ type: 'value_error', loc: ['query', 'after'], msg: `Value error, ${error}`, input: query.after, ctx: { error: {} } });
  return 0;
});

export const eventRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/events',
    {
      config: { scope: 'events:read', refineQuery: after.refineQuery },
      schema: {
        operationId: 'listEvents',
        tags: ['events'],
        summary: 'Read the event log',
        description:
          'What happened to the business’s leads, oldest first: `lead.created`, `lead.updated`, `match.found`, `message.status`, `conversation.waiting`. Each event is written in the same transaction as its change. Poll with `after` set to the last `next_cursor`, or register a webhook (`inmo webhooks add`) to be called instead.',
        querystring: EventsQuery,
        response: { 200: EventsPage },
      },
    },
    async (request) => eventsPage(db, request.apiKey!.businessId, after.of(request), request.query.limit ?? 100),
  );
};
