/**
 * The wording of the welcome e-mail (CONTRACT §19): a subject, a text part and an HTML part, in
 * the lead's language (es, en, fr, de, it: services/messaging/welcome.ts `emailLanguage`), in the
 * business's words (its name), with no code or id reaching the person. The unsubscribe link
 * (RFC 8058) is written at the foot of both parts, as well as in the message's headers.
 */

/** What one language says. `{business}` and `{name}` are filled in. */
interface Wording {
  subject: string;
  greeting: string;
  greetingNamed: string;
  body: string;
  closing: string;
  unsubscribe: string;
}

const WORDS: Readonly<Record<string, Wording>> = {
  es: {
    subject: 'Gracias por contactar con {business}',
    greeting: 'Hola:',
    greetingNamed: 'Hola, {name}:',
    body: 'Hemos recibido tu consulta. Un agente de {business} la revisará y te contestará muy pronto.',
    closing: 'Un saludo,\n{business}',
    unsubscribe: 'Si no quieres recibir más mensajes de {business}, date de baja aquí:',
  },
  en: {
    subject: 'Thank you for contacting {business}',
    greeting: 'Hello,',
    greetingNamed: 'Hello {name},',
    body: 'We have received your enquiry. An agent of {business} will look at it and answer you very soon.',
    closing: 'Kind regards,\n{business}',
    unsubscribe: 'If you would rather not receive more messages from {business}, unsubscribe here:',
  },
  fr: {
    subject: 'Merci d’avoir contacté {business}',
    greeting: 'Bonjour,',
    greetingNamed: 'Bonjour {name},',
    body: 'Nous avons bien reçu votre demande. Un agent de {business} va l’examiner et vous répondra très bientôt.',
    closing: 'Cordialement,\n{business}',
    unsubscribe: 'Si vous ne souhaitez plus recevoir de messages de {business}, désabonnez-vous ici :',
  },
  de: {
    subject: 'Vielen Dank für Ihre Anfrage bei {business}',
    greeting: 'Guten Tag,',
    greetingNamed: 'Guten Tag {name},',
    body: 'Wir haben Ihre Anfrage erhalten. Ein Mitarbeiter von {business} wird sie prüfen und Ihnen sehr bald antworten.',
    closing: 'Mit freundlichen Grüßen\n{business}',
    unsubscribe: 'Wenn Sie keine weiteren Nachrichten von {business} erhalten möchten, melden Sie sich hier ab:',
  },
  it: {
    subject: 'Grazie per aver contattato {business}',
    greeting: 'Buongiorno,',
    greetingNamed: 'Buongiorno {name},',
    body: 'Abbiamo ricevuto la tua richiesta. Un agente di {business} la esaminerà e ti risponderà molto presto.',
    closing: 'Cordiali saluti,\n{business}',
    unsubscribe: 'Se non desideri ricevere altri messaggi da {business}, annulla l’iscrizione qui:',
  },
};

/** Text as HTML text. */
export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * An e-mail of one link (a mandate to sign, an owner's report): a greeting, a paragraph, the link as
 * a button (and as a line of the text part), and the closing, every value escaped in the HTML.
 * @returns `{subject, text, html}`, the HTML a complete document in `lang`.
 */
export function linkEmail(
  lang: string,
  words: { subject: string; greeting: string; body: string; button: string; url: string; closing: string },
): { subject: string; text: string; html: string } {
  const { subject, greeting, body, button, url, closing } = words;
  const text = `${greeting}\n\n${body}\n\n${button}: ${url}\n\n${closing}\n`;
  const html =
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(subject)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222"><p>${escape(greeting)}</p><p>${escape(body)}</p>` +
    `<p><a href="${escape(url)}" style="display:inline-block;padding:8px 16px;border:1px solid #1a5fb4;border-radius:4px;color:#1a5fb4;text-decoration:none">${escape(button)}</a></p>` +
    `<p>${escape(closing).replaceAll('\n', '<br>')}</p></body></html>`;
  return { subject, text, html };
}

/** A name or business name as it may appear in a message: one line, no control characters, at most 200 characters. */
export function oneLine(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/**
 * The welcome e-mail.
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`).
 * @param words the business's name, the lead's name (null or blank: a greeting without it), and the
 *   absolute unsubscribe URL.
 * @returns `{subject, text, html}`; the HTML is a complete document with every value escaped.
 */
export function welcomeEmail(
  language: string,
  words: { businessName: string; leadName: string | null; unsubscribeUrl: string },
): { subject: string; text: string; html: string } {
  const wording = WORDS[language] ?? WORDS.es;
  const business = oneLine(words.businessName);
  const name = words.leadName === null ? '' : oneLine(words.leadName);
  const fill = (text: string) => text.replaceAll('{business}', business).replaceAll('{name}', name);
  const greeting = fill(name ? wording.greetingNamed : wording.greeting);
  const paragraphs = [greeting, fill(wording.body), fill(wording.closing)];
  const text = `${paragraphs.join('\n\n')}\n\n--\n${fill(wording.unsubscribe)}\n${words.unsubscribeUrl}\n`;
  const lang = language in WORDS ? language : 'es';
  const html =
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(fill(wording.subject))}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222">` +
    paragraphs.map((p) => `<p>${escape(p).replaceAll('\n', '<br>')}</p>`).join('') +
    `<hr><p style="font-size:small;color:#555">${escape(fill(wording.unsubscribe))} ` +
    `<a href="${escape(words.unsubscribeUrl)}">${escape(words.unsubscribeUrl)}</a></p></body></html>`;
  return { subject: fill(wording.subject), text, html };
}
