/**
 * Schemas of the viewings API (CONTRACT §20): `GET /viewings/availability`, `POST /viewings`,
 * `GET /viewings`, and the Viewing object of responses and events. The POST's `lead` takes the
 * inquiry's contact fields (schemas/lead-requests.ts), so it is built for the configured limits.
 */
import { Type, type Static } from '@sinclair/typebox';
import { VIEWING_KINDS, VIEWING_SOURCES, VIEWING_STATUSES } from '../domain/viewings/status.ts';
import type { Limits } from '../limits.ts';
import { Literals, Nullable } from './common.ts';
import { leadRequestSchemas } from './lead-requests.ts';

const Id = (description: string) => Type.Integer({ minimum: 1, description });
const LocalDate = (description: string) =>
  Type.String({ format: 'date', description: `${description} \`YYYY-MM-DD\`, in the business’s time zone.`, examples: ['2026-03-30'] });

export const AvailabilityQuery = Type.Object({
  property_id: Id('The listing to visit: the `id` of a property of GET /properties.'),
  from: Type.Optional(LocalDate('The first day; today by default.')),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 31, default: 7, description: 'How many days from `from`, 1 to 31.' })),
});

export const ViewingsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Page size, 1 to 1000.' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Rows skipped before the page.' })),
  lead_id: Type.Optional(Id('Only this lead’s viewings.')),
  property_id: Type.Optional(Id('Only viewings of this listing.')),
  kind: Type.Optional(Literals(VIEWING_KINDS, { description: 'Only viewings of this kind: `visit` or `valuation`.' })),
  from: Type.Optional(LocalDate('Only viewings starting on or after this day:')),
  to: Type.Optional(LocalDate('Only viewings starting on or before this day:')),
});

/** The contact fields of an inquiry (spec §4.2) a viewing's new lead is made from, and `consent` (CONTRACT §18). */
const LEAD_FIELDS = [
  'name',
  'phone_number_1',
  'phone_number_2',
  'landline_phone',
  'personal_email',
  'professional_email',
  'preferred_language',
  'dni',
  'source',
  'sourcePage',
  'notes',
  'consent',
] as const;

/** The body of POST /viewings for `limits`. */
export function viewingRequestSchemas(limits: Limits) {
  const { InquiryBody } = leadRequestSchemas(limits);
  const ViewingLead = Type.Pick(InquiryBody, LEAD_FIELDS, {
    description:
      'The person asking, when not given by `lead_id`: an inquiry’s contact fields (type `demandante`). A lead is made as POST /leads/inquiries makes one (notes, consent, the welcome message, matching); a person already known by the phone gets the viewing on their lead, which does not change (CONTRACT §22).',
  });
  const ViewingBody = Type.Object({
    property_id: Id('The listing to visit: the `id` of a property of GET /properties.'),
    starts_at: Type.String({
      maxLength: 64,
      format: 'date-time',
      description:
        'RFC 3339 with an offset: a `starts_at` of GET /viewings/availability: within the business’s viewing hours, every 30 minutes from the start of each period of them, in the future and at most 90 days ahead (`INMO_VIEWING_HORIZON_DAYS`).',
      examples: ['2026-03-30T10:00:00+02:00'],
    }),
    lead_id: Type.Optional(Id('An existing lead of the business (secret keys only). Give this or `lead`.')),
    lead: Type.Optional(ViewingLead),
    kind: Type.Optional(
      Literals(VIEWING_KINDS, {
        description:
          '`visit` (when not given): the lead sees the listing. `valuation` (secret keys only, CONTRACT §24): an agent visits an owner’s home to value it: `lead_id` is a `propietario` lead and `property_id` a listing linked to that owner, published or not; booking it moves the owner’s `owner_stage` to `valuation_scheduled`.',
      }),
    ),
  });
  return { ViewingBody };
}

export type ViewingBody = Static<ReturnType<typeof viewingRequestSchemas>['ViewingBody']>;

const Instant = Type.String({ format: 'date-time' });

export const Viewing = Type.Object(
  {
    id: Type.Integer(),
    lead_id: Type.Integer(),
    property_id: Type.Integer(),
    user_id: Type.Integer({ description: 'The agent: a console user of the business.' }),
    kind: Literals(VIEWING_KINDS, {
      description: '`visit`: the lead sees the listing; `valuation`: an agent values the home of its owner, the lead (CONTRACT §24).',
    }),
    starts_at: Type.String({ format: 'date-time', description: 'RFC 3339 with the business’s local offset.' }),
    ends_at: Type.String({ format: 'date-time', description: 'RFC 3339 with the business’s local offset.' }),
    status: Literals(VIEWING_STATUSES, {
      description:
        '`requested` (asked for from a website: an agent confirms it), `scheduled`, `confirmed` (the lead confirmed), `done`, `cancelled`, `no_show`.',
    }),
    source: Literals(VIEWING_SOURCES, {
      description: 'Where it was booked: `console`, `assistant` (WhatsApp), `api` (a secret key), `website` (a publishable key).',
    }),
    feedback: Nullable(
      Type.Object({
        interest: Type.Integer({ minimum: 1, maximum: 5, description: 'The lead’s interest after the visit, 1 (none) to 5.' }),
        comment: Nullable(Type.String()),
      }),
      { description: 'The agent’s notes after a `done` viewing; null until given.' },
    ),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'Viewing', description: 'A lead’s visit to a listing with an agent (CONTRACT §20).' },
);

export const Availability = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        starts_at: Type.String({ format: 'date-time', description: 'RFC 3339 with the business’s local offset.' }),
        ends_at: Type.String({ format: 'date-time' }),
      }),
      { description: 'Free slots in time order.' },
    ),
  },
  { 'x-response-description': 'The free slots: book one with POST /viewings.' },
);

export const ViewingPage = Type.Object(
  {
    data: Type.Array(Type.Ref('Viewing')),
    total: Type.Integer({ description: 'Viewings matching the filters, ignoring limit and offset.' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  },
  { 'x-response-description': 'One page of the business’s viewings, by start time.' },
);

export const ViewingCreated = Type.Object(
  {
    id: Type.Integer({ description: 'The viewing’s id.' }),
    status: Literals(['scheduled', 'requested'] as const, {
      description: '`scheduled` for a secret key; `requested` for a publishable key (an agent confirms it).',
    }),
  },
  {
    'x-response-description': 'The viewing is booked.',
    headers: {
      'Idempotent-Replayed': {
        type: 'string',
        enum: ['true'],
        description: 'Present when this is the stored first response to the request’s Idempotency-Key.',
      },
    },
  },
);
