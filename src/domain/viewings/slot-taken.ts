/**
 * The `detail` of the 409 a viewing request gets when its time was taken meanwhile
 * (`VIEWING_SLOT_TAKEN`, CONTRACT §20; docs/errors.md). The error body is `{"detail": …}` alone
 * (CONTRACT §2), so the website kit (src/embed/inmo.ts) tells this 409 from an Idempotency-Key's
 * by this sentence: both import it from here, and a change of words reaches both.
 */
export const SLOT_TAKEN_DETAIL =
  'This time is no longer free for a viewing of this listing: ask for the availability again and choose another slot';
