/**
 * The console's forms (CONTRACT §12), field by field: what each form posts, read by
 * http/console/forms.ts `readForm` with the same validator as the API's query parameters. The
 * rules of the workspace (an e-mail's shape, a key's scopes with its kind, a channel's URLs)
 * stay in the services the forms call; these schemas say what a well-formed form is.
 *
 * Lengths are characters. A field a page leaves empty posts `''`.
 */
import { Type } from '@sinclair/typebox';
import { SCOPES } from '../domain/api-key.ts';
import { Literals } from './common.ts';

/** Longest API key name. */
export const KEY_NAME_MAX = 100;
/** Longest e-mail address (RFC 5321's path limit). */
const EMAIL_MAX = 254;
/** Longest password accepted (scrypt hashes any length; this only bounds the work). */
const PASSWORD_MAX = 1024;
/** Longest URL or other one-line setting. */
const LINE_MAX = 2048;

const text = (maxLength: number) => Type.String({ maxLength });

/** `POST /console/login`. */
export const LoginForm = Type.Object({ email: text(EMAIL_MAX), password: text(PASSWORD_MAX), next: text(LINE_MAX) });

/** `POST /console/set-password/:token`. */
export const SetPasswordForm = Type.Object({ password: text(PASSWORD_MAX), password_confirm: text(PASSWORD_MAX) });

/**
 * `POST /console/keys`: a key's name, scopes (a checkbox each; the page asks for one at least),
 * expiry day (`YYYY-MM-DD`, or '' for none), kind and origins (one per line).
 */
export const KeyForm = Type.Object({
  name: text(KEY_NAME_MAX),
  scopes: Type.Array(Literals(SCOPES)),
  expires_on: text(10),
  kind: Literals(['secret', 'publishable'] as const, { default: 'secret' }),
  origins: text(16 * LINE_MAX),
});

/** `POST /console/users`: an invitation. */
export const UserForm = Type.Object({ email: text(EMAIL_MAX), role: text(20) });

/** `POST /console/channel`: the WhatsApp channel; the token and app secret are write-only ('' keeps the stored ones). */
export const ChannelForm = Type.Object({
  phone_number_id: text(64),
  template: text(512),
  languages: text(LINE_MAX),
  listing_url: text(LINE_MAX),
  base_url: text(LINE_MAX),
  access_token: text(4096),
  app_secret: text(LINE_MAX),
});

/** `POST /console/channel/test`: the number a test template goes to, as people type it. */
export const ChannelTestForm = Type.Object({ test_phone: text(64) });

/** `POST /console/follow-ups`: a lead type's follow-up period, days. */
export const FollowUpRuleForm = Type.Object({ type: text(40), every_days: Type.Integer({ minimum: 1, maximum: 3650 }) });

/** `POST /console/leads/:lead_id/reply`: an agent's WhatsApp message (the conversation rules bound its length). */
export const ReplyForm = Type.Object({ text: text(100_000) });
