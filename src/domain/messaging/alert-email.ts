/**
 * The wording of an alert digest by e-mail (CONTRACT §21, §19): a subject, a text part and an
 * HTML part in the lead's language (es, en, fr, de, it; anything else es), listing up to five
 * listings, each with its photo, title, price (euros written as in Spain, es-ES, whatever the
 * language), size, rooms, city, a link to it when there is one, and its "No me interesa" link;
 * the unsubscribe link (RFC 8058) at the foot of both parts. No code or id reaches the person
 * (a listing without a title is named by its type of words, "Inmueble", and its city).
 */
import { escape, oneLine } from './welcome-email.ts';

/** What one language says. `{business}`, `{name}`, `{n}` are filled in. */
export interface Wording {
  subject: string;
  subjectOne: string;
  greeting: string;
  greetingNamed: string;
  intro: string;
  untitled: string;
  perMonth: string;
  rooms: string;
  priceDrop: string;
  /** Before the reference price of a drop: "antes 180.000 €". */
  before: string;
  view: string;
  notInterested: string;
  closing: string;
  unsubscribe: string;
  /** Listings an agent chose by hand (CONTRACT §21 "By hand"): subjects and intros; `{agent}` the agent's name. */
  handSubject: string;
  handSubjectOne: string;
  handIntro: string;
  handIntroAgent: string;
}

const WORDS: Readonly<Record<string, Wording>> = {
  es: {
    subject: '{n} inmuebles que encajan con tu búsqueda en {business}',
    subjectOne: 'Un inmueble que encaja con tu búsqueda en {business}',
    greeting: 'Hola:',
    greetingNamed: 'Hola, {name}:',
    intro: 'Estos inmuebles de {business} encajan con lo que buscas:',
    untitled: 'Inmueble',
    perMonth: '/mes',
    rooms: 'hab.',
    priceDrop: 'Ha bajado de precio',
    before: 'antes',
    view: 'Ver el inmueble',
    notInterested: 'No me interesa',
    closing: 'Un saludo,\n{business}',
    unsubscribe: 'Si no quieres recibir más mensajes de {business}, date de baja aquí:',
    handSubject: 'Inmuebles de {business} seleccionados para ti',
    handSubjectOne: 'Un inmueble de {business} seleccionado para ti',
    handIntro: 'Hemos seleccionado para ti estos inmuebles de {business}:',
    handIntroAgent: '{agent}, de {business}, ha seleccionado para ti estos inmuebles:',
  },
  en: {
    subject: '{n} properties matching your search at {business}',
    subjectOne: 'A property matching your search at {business}',
    greeting: 'Hello,',
    greetingNamed: 'Hello {name},',
    intro: 'These properties of {business} match what you are looking for:',
    untitled: 'Property',
    perMonth: '/month',
    rooms: 'bedrooms',
    priceDrop: 'Price reduced',
    before: 'was',
    view: 'See the property',
    notInterested: 'Not interested',
    closing: 'Kind regards,\n{business}',
    unsubscribe: 'If you would rather not receive more messages from {business}, unsubscribe here:',
    handSubject: 'Properties of {business} chosen for you',
    handSubjectOne: 'A property of {business} chosen for you',
    handIntro: 'We have chosen these properties of {business} for you:',
    handIntroAgent: '{agent} of {business} has chosen these properties for you:',
  },
  fr: {
    subject: '{n} biens correspondant à votre recherche chez {business}',
    subjectOne: 'Un bien correspondant à votre recherche chez {business}',
    greeting: 'Bonjour,',
    greetingNamed: 'Bonjour {name},',
    intro: 'Ces biens de {business} correspondent à ce que vous cherchez :',
    untitled: 'Bien',
    perMonth: '/mois',
    rooms: 'chambres',
    priceDrop: 'Prix en baisse',
    before: 'avant',
    view: 'Voir le bien',
    notInterested: 'Ça ne m’intéresse pas',
    closing: 'Cordialement,\n{business}',
    unsubscribe: 'Si vous ne souhaitez plus recevoir de messages de {business}, désabonnez-vous ici :',
    handSubject: 'Des biens de {business} sélectionnés pour vous',
    handSubjectOne: 'Un bien de {business} sélectionné pour vous',
    handIntro: 'Nous avons sélectionné pour vous ces biens de {business} :',
    handIntroAgent: '{agent}, de {business}, a sélectionné pour vous ces biens :',
  },
  de: {
    subject: '{n} Immobilien passend zu Ihrer Suche bei {business}',
    subjectOne: 'Eine Immobilie passend zu Ihrer Suche bei {business}',
    greeting: 'Guten Tag,',
    greetingNamed: 'Guten Tag {name},',
    intro: 'Diese Immobilien von {business} passen zu Ihrer Suche:',
    untitled: 'Immobilie',
    perMonth: '/Monat',
    rooms: 'Schlafzimmer',
    priceDrop: 'Preis gesenkt',
    before: 'vorher',
    view: 'Immobilie ansehen',
    notInterested: 'Kein Interesse',
    closing: 'Mit freundlichen Grüßen\n{business}',
    unsubscribe: 'Wenn Sie keine weiteren Nachrichten von {business} erhalten möchten, melden Sie sich hier ab:',
    handSubject: 'Für Sie ausgewählte Immobilien von {business}',
    handSubjectOne: 'Eine für Sie ausgewählte Immobilie von {business}',
    handIntro: 'Wir haben diese Immobilien von {business} für Sie ausgewählt:',
    handIntroAgent: '{agent} von {business} hat diese Immobilien für Sie ausgewählt:',
  },
  it: {
    subject: '{n} immobili in linea con la tua ricerca da {business}',
    subjectOne: 'Un immobile in linea con la tua ricerca da {business}',
    greeting: 'Buongiorno,',
    greetingNamed: 'Buongiorno {name},',
    intro: 'Questi immobili di {business} corrispondono a ciò che cerchi:',
    untitled: 'Immobile',
    perMonth: '/mese',
    rooms: 'camere',
    priceDrop: 'Prezzo ribassato',
    before: 'prima',
    view: 'Vedi l’immobile',
    notInterested: 'Non mi interessa',
    closing: 'Cordiali saluti,\n{business}',
    unsubscribe: 'Se non desideri ricevere altri messaggi da {business}, annulla l’iscrizione qui:',
    handSubject: 'Immobili di {business} selezionati per te',
    handSubjectOne: 'Un immobile di {business} selezionato per te',
    handIntro: 'Abbiamo selezionato per te questi immobili di {business}:',
    handIntroAgent: '{agent} di {business} ha selezionato per te questi immobili:',
  },
};

/** Euros as written in Spain, without cents (`245.000 €`). */
const EUROS = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
const NUMBER = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 0 });

/** One listing of a digest as the e-mail shows it. */
export interface AlertListing {
  title: string | null;
  /** €, or null when the listing states none. */
  price: number | null;
  /** Whether `price` is a monthly rent. */
  monthly: boolean;
  /** m². */
  size: number | null;
  bedrooms: number | null;
  city: string | null;
  /** Absolute URL of the cover photo, or null. */
  photoUrl: string | null;
  /** Absolute URL of the listing's page, or null when there is none. */
  url: string | null;
  /** Absolute URL of its "No me interesa" link. */
  dismissUrl: string;
  priceDropped: boolean;
  /** For a price drop, the price it dropped from (€, in the same column as `price`), else null. */
  priceBefore?: number | null;
}

/** The words of alerts in `language` (`es`, `en`, `fr`, `de` or `it`; anything else `es`), for the digest's page. */
export function alertWording(language: string): Readonly<Wording> {
  return WORDS[language] ?? WORDS.es;
}

/** A price as written in Spain, with "/mes" for a monthly rent. */
function euros(wording: Wording, price: number, monthly: boolean): string {
  return `${EUROS.format(price)}${monthly ? wording.perMonth : ''}`;
}

/**
 * The facts line of a listing: price (after a drop, with the price it dropped from: "171.000 €
 * (antes 180.000 €)"), size, rooms, city (those it states).
 */
export function facts(
  wording: Wording,
  listing: Pick<AlertListing, 'price' | 'monthly' | 'size' | 'bedrooms' | 'city'> & { priceBefore?: number | null },
): string {
  const before = listing.priceBefore ?? null;
  return [
    listing.price === null
      ? null
      : `${euros(wording, listing.price, listing.monthly)}${before === null ? '' : ` (${wording.before} ${euros(wording, before, listing.monthly)})`}`,
    listing.size === null ? null : `${NUMBER.format(listing.size)} m²`,
    listing.bedrooms === null ? null : `${listing.bedrooms} ${wording.rooms}`,
    listing.city === null ? null : oneLine(listing.city),
  ]
    .filter((part): part is string => part !== null && part !== '')
    .join(' · ');
}

/** Who chose the listings: the daily alert, or an agent by hand (null: the agent's name is not said). */
export type ChosenBy = { by: 'alert' } | { by: 'agent'; agentName: string | null };

/** What a message's opening says, filled in: subject, greeting, intro, closing, and the text block of each listing. */
function opening(
  language: string,
  words: { businessName: string; leadName: string | null; listings: readonly AlertListing[]; chosenBy?: ChosenBy },
) {
  const wording = WORDS[language] ?? WORDS.es;
  const business = oneLine(words.businessName);
  const name = words.leadName === null ? '' : oneLine(words.leadName);
  const agent = words.chosenBy?.by === 'agent' && words.chosenBy.agentName ? oneLine(words.chosenBy.agentName) : '';
  const fill = (text: string) =>
    text
      .replaceAll('{business}', business)
      .replaceAll('{name}', name)
      .replaceAll('{agent}', agent)
      .replaceAll('{n}', String(words.listings.length));
  const one = words.listings.length === 1;
  const byHand = words.chosenBy?.by === 'agent';
  const subject = fill(byHand ? (one ? wording.handSubjectOne : wording.handSubject) : one ? wording.subjectOne : wording.subject);
  const intro = fill(byHand ? (agent ? wording.handIntroAgent : wording.handIntro) : wording.intro);
  const titleOf = (l: AlertListing) => oneLine(l.title ?? '') || (l.city ? `${wording.untitled} · ${oneLine(l.city)}` : wording.untitled);
  const textBlocks = words.listings.map((l) =>
    [
      `${l.priceDropped ? `[${wording.priceDrop}] ` : ''}${titleOf(l)}`,
      facts(wording, l),
      l.url === null ? null : `${wording.view}: ${l.url}`,
      `${wording.notInterested}: ${l.dismissUrl}`,
    ]
      .filter((line) => line !== null && line !== '')
      .join('\n'),
  );
  return { wording, fill, subject, greeting: fill(name ? wording.greetingNamed : wording.greeting), intro, titleOf, textBlocks };
}

/**
 * Listings an agent sends a lead by WhatsApp, by hand (CONTRACT §21): one free-form text in the
 * lead's language with, per listing, its title, facts, link and "No me interesa" link.
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`).
 * @returns the message's text (WhatsApp's limit is 4,096 characters: ten listings fit).
 */
export function handWhatsAppText(
  language: string,
  words: { businessName: string; leadName: string | null; agentName: string | null; listings: readonly AlertListing[] },
): string {
  const { fill, wording, greeting, intro, textBlocks } = opening(language, {
    ...words,
    chosenBy: { by: 'agent', agentName: words.agentName },
  });
  return `${greeting}\n\n${intro}\n\n${textBlocks.join('\n\n')}\n\n${fill(wording.closing)}`;
}

/**
 * The digest e-mail, or the e-mail of listings an agent sends by hand (`chosenBy`, CONTRACT §21:
 * its own subject and intro, the same listing cards).
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`).
 * @param words the business's name, the lead's name (null or blank: a greeting without it), the
 *   listings (1 to 10, in order), the absolute unsubscribe URL, and who chose them (the alert by default).
 * @returns `{subject, text, html}`; the HTML is a complete document with every value escaped.
 */
export function alertEmail(
  language: string,
  words: { businessName: string; leadName: string | null; listings: readonly AlertListing[]; unsubscribeUrl: string; chosenBy?: ChosenBy },
): { subject: string; text: string; html: string } {
  const lang = language in WORDS ? language : 'es';
  const { wording, fill, subject, greeting, intro, titleOf, textBlocks } = opening(language, words);
  const text =
    `${greeting}\n\n${intro}\n\n${textBlocks.join('\n\n')}\n\n${fill(wording.closing)}\n\n` +
    `--\n${fill(wording.unsubscribe)}\n${words.unsubscribeUrl}\n`;

  const link = (href: string, label: string) => `<a href="${escape(href)}">${escape(label)}</a>`;
  const htmlBlocks = words.listings.map((l) => {
    const title = l.url === null ? escape(titleOf(l)) : link(l.url, titleOf(l));
    const photo =
      l.photoUrl === null
        ? ''
        : `<img src="${escape(l.photoUrl)}" alt="${escape(titleOf(l))}" width="560" style="max-width:100%;height:auto;border-radius:4px">`;
    return (
      `<div style="margin:0 0 24px">${photo}` +
      (l.priceDropped
        ? `<p style="margin:8px 0 0;color:#a40000;font-weight:bold">${escape(wording.priceDrop)}` +
          (l.priceBefore === null || l.priceBefore === undefined ? '' : ` · <s>${escape(euros(wording, l.priceBefore, l.monthly))}</s>`) +
          `</p>`
        : '') +
      `<h2 style="font-size:1.1em;margin:8px 0 4px">${title}</h2>` +
      `<p style="margin:0 0 4px">${escape(facts(wording, l))}</p>` +
      `<p style="margin:0">${l.url === null ? '' : `${link(l.url, wording.view)} · `}${link(l.dismissUrl, wording.notInterested)}</p></div>`
    );
  });
  const html =
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(subject)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222;max-width:600px">` +
    `<p>${escape(greeting)}</p><p>${escape(intro)}</p>${htmlBlocks.join('')}` +
    `<p>${escape(fill(wording.closing)).replaceAll('\n', '<br>')}</p>` +
    `<hr><p style="font-size:small;color:#555">${escape(fill(wording.unsubscribe))} ` +
    `<a href="${escape(words.unsubscribeUrl)}">${escape(words.unsubscribeUrl)}</a></p></body></html>`;
  return { subject, text, html };
}
