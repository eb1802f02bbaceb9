/**
 * E-mail as a conversation (CONTRACT §25): the words of an agent's reply by e-mail, in the lead's
 * language, and what a lead's answer says once the part it quotes is cut off.
 *
 * The quoted part is found line by line with string operations only, in time linear in the text's
 * length whatever it holds (an answer comes from anyone; issue 55): no pattern runs over more than
 * a line's first characters. It ends the answer at the first of
 * - the line a mail client writes above what it quotes: `On … wrote:`, `El … escribió:`,
 *   `Le … a écrit :`, `Am … schrieb …:`, `Il … ha scritto:`, `In data … ha scritto:` (also broken
 *   over two lines);
 * - a separator: `-----Original Message-----`, `-----Mensaje original-----`, `----- Message
 *   d'origine -----`, `-----Ursprüngliche Nachricht-----`, `-----Messaggio originale-----`, or
 *   Outlook's line of underscores;
 * - a quoted header block: `From:`/`De:`/`Von:`/`Da:` followed within three lines by `Sent:`,
 *   `Date:`, `Enviado:`, `Fecha:`, `Gesendet:`, `Envoyé :`, `Inviato:`, `Data:`, `To:`, `Para:`,
 *   `An:`, `À :`, `A:`, `Subject:` or `Asunto:`;
 * and leaves out every line that begins with `>`. An answer written below the quote (nothing but
 * blank or quoted lines above its cut) keeps what follows the cut, without the quoted lines.
 */
import { escape, oneLine } from './welcome-email.ts';

/** The longest answer kept, characters (CONTRACT §8 strings). */
export const ANSWER_MAX = 10_000;
/** The longest line looked at for a marker, characters: a marker is a short line. */
const MARKER_LINE_MAX = 400;

/** How an answer's quote header begins and what it says (lower case, accents as written). */
const QUOTE_OPENERS = ['on ', 'el ', 'le ', 'am ', 'il ', 'in data ', 'em ', 'op '];
const QUOTE_VERBS = ['wrote', 'escribió', 'escribio', 'a écrit', 'a ecrit', 'schrieb', 'scritto', 'escreveu', 'schreef'];
const SEPARATORS = new Set([
  'original message',
  'mensaje original',
  "message d'origine",
  'message d’origine',
  'ursprüngliche nachricht',
  'messaggio originale',
  'forwarded message',
  'mensaje reenviado',
]);
const FROM_LABEL = /^\*?(?:from|de|von|da|van)\s?:/i;
const NEXT_LABEL = /^\*?(?:sent|date|enviado|fecha|gesendet|envoyé|inviato|data|to|para|an|à|a|subject|asunto|objet|betreff|oggetto)\s?:/i;

/** Whether `line` is a client's line above a quote (`On … wrote:` in one of the languages). */
function isQuoteHeader(line: string): boolean {
  const text = line.trim().toLowerCase();
  if (text.length > MARKER_LINE_MAX || !text.endsWith(':')) return false;
  return QUOTE_OPENERS.some((opener) => text.startsWith(opener)) && QUOTE_VERBS.some((verb) => text.includes(verb));
}

/** Whether `line` is a separator above a quoted message (`-----Original Message-----`, Outlook's underscores). */
function isSeparator(line: string): boolean {
  const text = line.trim();
  if (text.length > MARKER_LINE_MAX || text.length < 10) return false;
  if (/^_{10,}$/.test(text)) return true;
  if (!text.startsWith('--')) return false;
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === '-' || text[start] === ' ')) start++;
  while (end > start && (text[end - 1] === '-' || text[end - 1] === ' ')) end--;
  return SEPARATORS.has(text.slice(start, end).toLowerCase());
}

/** Whether a quoted header block (`From:` then `Sent:`/`Date:`/`To:`…) starts at line `i`. */
function isHeaderBlock(lines: readonly string[], i: number): boolean {
  const head = lines[i].trimStart().slice(0, 40);
  if (!FROM_LABEL.test(head)) return false;
  for (let j = i + 1; j < lines.length && j <= i + 3; j++) {
    if (NEXT_LABEL.test(lines[j].trimStart().slice(0, 40))) return true;
  }
  return false;
}

const isQuoted = (line: string) => line.trimStart().startsWith('>');
const isBlank = (line: string) => line.trim() === '';

/** The lines kept of `lines`: not quoted, trailing and leading blank lines left out, joined. */
function kept(lines: readonly string[]): string {
  const own = lines.filter((line) => !isQuoted(line));
  let start = 0;
  let end = own.length;
  while (start < end && isBlank(own[start])) start++;
  while (end > start && isBlank(own[end - 1])) end--;
  return own
    .slice(start, end)
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}

/**
 * A lead's answer without the part it quotes (see the module's comment), at most
 * {@link ANSWER_MAX} characters.
 * @param text the answer's text part (or its HTML part as text).
 * @returns what the lead wrote; `''` when it holds nothing but the quote.
 */
export function answerWithoutQuote(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let cut = lines.length;
  let skip = 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (isBlank(line)) continue;
    if (isQuoteHeader(line) || isSeparator(line) || isHeaderBlock(lines, i)) {
      cut = i;
      break;
    }
    // A client breaks a long `On … wrote:` over two lines.
    if (i + 1 < lines.length && line.length <= MARKER_LINE_MAX && isQuoteHeader(`${line} ${lines[i + 1]}`)) {
      cut = i;
      skip = 2;
      break;
    }
  }
  const above = kept(lines.slice(0, cut));
  if (above !== '' || cut === lines.length) return above.slice(0, ANSWER_MAX);
  // Written below the quote: what follows the marker, without the quoted lines.
  return kept(lines.slice(cut + skip)).slice(0, ANSWER_MAX);
}

/** What one language says. `{business}` is filled in. */
interface Wording {
  subject: string;
  answer: string;
}

const WORDS: Readonly<Record<string, Wording>> = {
  es: { subject: 'Tu consulta a {business}', answer: 'Puedes contestar a este correo directamente.' },
  en: { subject: 'Your enquiry to {business}', answer: 'You can answer this e-mail directly.' },
  fr: { subject: 'Votre demande à {business}', answer: 'Vous pouvez répondre directement à ce courriel.' },
  de: { subject: 'Ihre Anfrage an {business}', answer: 'Sie können direkt auf diese E-Mail antworten.' },
  it: { subject: 'La tua richiesta a {business}', answer: 'Puoi rispondere direttamente a questa e-mail.' },
};

/**
 * An agent's reply by e-mail (CONTRACT §25): the agent's words, signed with the business's name,
 * and a line saying the lead may answer it, in the lead's language. Every reply to a lead bears
 * the same subject (`Re: ` before it once the thread has a message), so mail clients keep the
 * thread together. No unsubscribe link: a direct answer (CONTRACT §19).
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`).
 * @param words the business's name, the agent's text, and whether it answers a message of the thread.
 * @returns `{subject, text, html}`; the HTML is a complete document with every value escaped.
 */
export function agentReplyEmail(
  language: string,
  words: { businessName: string; text: string; answering: boolean },
): { subject: string; text: string; html: string } {
  const lang = language in WORDS ? language : 'es';
  const wording = WORDS[lang];
  const business = oneLine(words.businessName);
  const subject = `${words.answering ? 'Re: ' : ''}${wording.subject.replaceAll('{business}', business)}`;
  const body = words.text.replace(/\r\n?/g, '\n');
  const text = `${body}\n\n${business}\n\n--\n${wording.answer}\n`;
  const html =
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(subject)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222">` +
    body
      .split(/\n{2,}/)
      .map((p) => `<p>${escape(p).replaceAll('\n', '<br>')}</p>`)
      .join('') +
    `<p>${escape(business)}</p><hr><p style="font-size:small;color:#555">${escape(wording.answer)}</p></body></html>`;
  return { subject, text, html };
}
