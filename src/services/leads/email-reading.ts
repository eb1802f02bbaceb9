/**
 * Everything from a raw e-mail's bytes to what it says (CONTRACT §19): the MIME reading
 * (channels/email-message.ts, mailparser), the HTML part as text (html-to-text) and the portal
 * parsers (domain/leads/portal-emails/). Run on the e-mail reader's thread
 * (services/leads/email-read-thread.ts), never on the thread that serves requests.
 */
import { readEmail } from '../../channels/email-message.ts';
import { htmlToText } from '../../domain/leads/portal-emails/content.ts';
import { readPortalEmail, type Belief, type PortalContact } from '../../domain/leads/portal-emails/index.ts';
import { answerWithoutQuote } from '../../domain/messaging/email-reply.ts';

/** What the parsers found, to start an agent's form from (CONTRACT §19). */
export type FoundFields = Pick<PortalContact, 'name' | 'phone' | 'email' | 'message' | 'reference' | 'source'>;

/** The longest text kept for an agent to read, characters: the console shows a message, not a book. */
export const REVIEW_TEXT_MAX = 100_000;

/** A message read: what it says of the person, and the text an agent reads of it. */
export interface MessageRead {
  contact: PortalContact;
  /** Its text part, else its HTML part as text, its first {@link REVIEW_TEXT_MAX} characters; empty when it has neither. */
  text: string;
}

/**
 * Reads `raw` (see the module's comment).
 * @param belief whom to believe (domain/leads/portal-emails/index.ts `Belief`: the agency's own
 *   addresses, for trust.ts to decide; or whether the sender was believed when it was processed).
 * @throws Error when the bytes cannot be read as a message at all (mailparser's own failure).
 */
export async function readMessage(raw: Uint8Array, belief: Belief = {}): Promise<MessageRead> {
  const content = await readEmail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  const text = content.text ?? (content.html === null ? '' : htmlToText(content.html));
  // Cut here: only what is kept crosses back to the serving thread.
  return { contact: readPortalEmail(content, belief), text: text.slice(0, REVIEW_TEXT_MAX) };
}

/**
 * Reads a lead's answer to an agent's e-mail (CONTRACT §25): its text part, else its HTML part as
 * text, without the part it quotes (domain/messaging/email-reply.ts).
 * @returns what the lead wrote, at most 10,000 characters; `''` when nothing but the quote.
 * @throws Error when the bytes cannot be read as a message at all (mailparser's own failure).
 */
export async function readAnswer(raw: Uint8Array): Promise<string> {
  const content = await readEmail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  const text = content.text ?? (content.html === null ? '' : htmlToText(content.html));
  return answerWithoutQuote(text.slice(0, REVIEW_TEXT_MAX));
}

/** The fields of a contact an agent's form starts from. */
export function foundFieldsOf({ name, phone, email, message, reference, source, candidates }: PortalContact): FoundFields {
  // Without a labelled reference, the first the message names elsewhere (a sentence, the subject, brackets).
  const named = candidates.find((c): c is { ref: string } => 'ref' in c)?.ref ?? null;
  return { name, phone, email, message, reference: reference ?? named, source };
}

/** Loads the libraries a reading needs (mailparser, html-to-text), so that the first message's deadline is not spent on them. */
export async function loadReaders(): Promise<void> {
  await import('mailparser');
  htmlToText('<p></p>');
}
