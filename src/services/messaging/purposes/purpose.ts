/**
 * What a purpose of message is (issue 56: one outbox): the small module that gives a message its
 * words and its rules, so that the outbox (services/messaging/outbox.ts, which queues) and its one
 * delivery path (services/messaging/delivery.ts, which claims and sends once) need not know what
 * a welcome or a digest is. A purpose module (one per file of this folder, listed in index.ts)
 * says:
 *
 * - who may still receive it when its send is claimed ({@link Purpose.stillWanted});
 * - what its WhatsApp template says then ({@link Purpose.template}) and what its e-mail says
 *   ({@link Purpose.email}), its words being in domain/messaging/ (one module of wording per purpose);
 * - what replaces one refused for good ({@link Purpose.replace}): the welcome's and a viewing
 *   notice's e-mail in place of a template.
 *
 * Which channel and template it is queued with is decided when it is queued, by its module's rule
 * (the welcome's `decideWelcome`, the digest's `digestMessage`, a reply's `replyWays`, a
 * hand-send's `handSendWays`, a notice's `noticeCarrier`), and written on the message row
 * (`kind`, `template`, `language`, `recipient`), which is all the delivery reads.
 */
import type { Db, Executor } from '../../../db/database.ts';
import type { MessageRow } from '../../../db/repositories/messaging.ts';

/** The purposes of a message to a person. */
export type PurposeName =
  'welcome' | 'reply' | 'viewing-notice' | 'viewing-reminder' | 'alert-digest' | 'hand-send' | 'mandate-link' | 'owner-report';

/** What an e-mail's words are written from, when its send is claimed. */
export interface EmailFacts {
  businessName: string;
  leadName: string | null;
  /** The one-click unsubscribe link made for this send (RFC 8058), or null for a purpose without one. */
  unsubscribeUrl: string | null;
  /** The server's public origin (`INMO_PUBLIC_URL`). */
  publicUrl: string;
  /** The claim's instant, canonical RFC 3339. */
  now: string;
}

/** An e-mail as its purpose writes it. */
export interface EmailWords {
  subject: string;
  text: string;
  html: string;
  /** Headers of its own (a reply's `In-Reply-To` and `References`); the unsubscribe headers are added by the delivery. */
  headers?: Record<string, string>;
  /** Its `Reply-To`, when not the sender's own. */
  replyTo?: string | null;
  /** Whether the message's `body` keeps what it was queued with (a reply: the agent's words) instead of the e-mail's text. */
  keepsBody?: boolean;
  /**
   * What the message's `body` keeps instead of the e-mail's text, when the text holds a capability
   * that must not be stored (a one-use link's token: only its hash is kept).
   */
  storedBody?: string;
}

/** A refusal at the claim: the message fails visibly with these words (`last_error`). */
export type Refused = { refused: string };

/** One purpose of message (see the module's comment). */
export interface Purpose {
  name: PurposeName;
  /** The `author` its message rows carry (a reply's is its writer's: `agent` or `assistant`). */
  author: string;
  /** Whether its e-mail carries the one-click unsubscribe link (all but a reply). */
  unsubscribe: boolean;
  /** Why the lead may no longer get it now (checked at the claim, before anything is written), or null. */
  stillWanted?(db: Executor, message: MessageRow): Promise<string | null>;
  /** A template's content at the claim, and a one-line summary for the conversation; absent: the template as queued. */
  template?(
    db: Executor,
    message: MessageRow,
    now: string,
  ): Promise<{ parameters: string[]; buttons?: string[]; summary: string } | Refused>;
  /** The words of its e-mail at the claim, in the claim's transaction. */
  email(db: Executor, message: MessageRow, facts: EmailFacts): Promise<EmailWords | Refused>;
  /**
   * Queues what stands in for its template refused for good (never one whose outcome is unknown).
   * @returns the id of the e-mail queued in its place (the one queued before, after a crash), or null.
   */
  replace?(db: Db, message: MessageRow, now: string): Promise<number | null>;
  /** The message queued in its place, if any: settled with it when its job is parked. */
  replacementOf?(db: Db, message: MessageRow): Promise<number | null>;
}
