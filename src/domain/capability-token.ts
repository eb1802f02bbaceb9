/**
 * Capability tokens (issue 56 "Each idea once"): a random secret handed to a person or a program
 * (in a link, a cookie, a URL to subscribe to, an address to forward mail to) that is the whole
 * credential: whoever holds it may do the one thing it is for. Every one is minted here.
 *
 * - **Minted** from the CSPRNG in one form: 32 bytes (256 bits) as base64url, 43 characters
 *   ({@link TOKEN_FORM}). Two kinds of token cannot take that form and are minted here in the
 *   alphabet they need ({@link TokenAlphabet}): portal feeds' URLs, whose token CONTRACT §15 fixes
 *   as base62 (`base62`, 43 characters, about 256 bits), and inbound e-mail addresses, whose token
 *   is an address's local part that mail systems may lower-case (`lowercase`, 43 lower-case
 *   letters and digits, about 222 bits, as since migration 0054).
 * - **Kept** as the SHA-256 of the token's text, hex ({@link hashToken}): every table that keeps a
 *   token's hash keeps this one, so the database alone can make no link, and a token is looked
 *   up by its hash (what the lookup takes says nothing of the token). A fast hash is right here
 *   because the token is random and long, not a password (as for API keys).
 * - **Tokens handed out before** keep working: their hash is the same function of their text,
 *   whatever their form, and each lookup accepts the forms its kind was ever minted in (calendar
 *   URLs: base62-43 before issue 56; listings' pages: 32 lower-case hex characters, migration 0037;
 *   inbound addresses: base62-43 before migration 0054).
 *
 * Not capability tokens, and not minted here: API keys (domain/access/api-key.ts: a key id and a
 * secret in the form CONTRACT §3 fixes, the secret compared to its hash in constant time), the
 * secrets outgoing webhooks are signed with (`whsec_`, kept sealed: inmo signs with them), a
 * WhatsApp channel's verify token (compared with the one Meta sends back), and the nonces of
 * forms.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';

/** A token's length in characters, in every alphabet. */
export const TOKEN_LENGTH = 43;

/**
 * The form of a token minted now: 43 base64url characters. Base62 tokens of 43 characters (the
 * calendar URLs made before issue 56) have this form too.
 */
export const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

/**
 * The alphabet of a new token: `base64url` for every token but two: `base62` for portal feeds'
 * URLs (CONTRACT §15: "at least 32 base62 characters"), `lowercase` (letters and digits) for
 * inbound e-mail addresses, whose local part mail systems may lower-case.
 */
export type TokenAlphabet = 'base64url' | 'base62' | 'lowercase';

const ALPHABETS: Record<Exclude<TokenAlphabet, 'base64url'>, string> = {
  base62: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  lowercase: 'abcdefghijklmnopqrstuvwxyz0123456789',
};

/** A new token and the hash to keep of it. */
export interface MintedToken {
  /** The token, shown or sent once: {@link TOKEN_LENGTH} characters of its alphabet. */
  token: string;
  /** Its SHA-256, hex ({@link hashToken}): what is stored and looked up. */
  hash: string;
}

/** The SHA-256 of a token's text (UTF-8), 64 lower-case hex characters: what a table keeps of it. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A new capability token from the CSPRNG, and its hash.
 * @param alphabet `base64url` (32 bytes, 256 bits) unless the token's kind needs another ({@link TokenAlphabet}).
 */
export function mintToken(alphabet: TokenAlphabet = 'base64url'): MintedToken {
  let token: string;
  if (alphabet === 'base64url') token = randomBytes(32).toString('base64url');
  else {
    const letters = ALPHABETS[alphabet];
    token = '';
    for (let i = 0; i < TOKEN_LENGTH; i++) token += letters[randomInt(letters.length)];
  }
  return { token, hash: hashToken(token) };
}

/**
 * A token derived from another for one of the things it covers: the SHA-256 of `context`, a
 * line break and `token`, as base64url (43 characters, the form of {@link TOKEN_FORM}). Whoever
 * holds `token` can derive it again, so it need not be kept; knowing it tells nothing of `token`
 * nor of the tokens derived for other contexts. Kept as {@link hashToken} of it, as any token.
 * @param context what the derived token is for, e.g. `inmo alert dismissal\n<item id>`.
 */
export function deriveToken(token: string, context: string): string {
  return createHash('sha256').update(`${context}\n${token}`).digest('base64url');
}
