/** The types of the events a business's integrators receive (CONTRACT §13, §18, §20, §22, §24). */
export const EVENT_TYPES = [
  'lead.created',
  'lead.updated',
  'match.found',
  'message.status',
  'conversation.waiting',
  'property.changed',
  'lead.erased',
  'lead.contacted_again',
  'viewing.scheduled',
  'viewing.updated',
  'mandate.signed',
  'mandate.ended',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
