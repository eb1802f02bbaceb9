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
interface Wording {
  subject: string;
  subjectOne: string;
  greeting: string;
  greetingNamed: string;
  intro: string;
  untitled: string;
  perMonth: string;
  rooms: string;
  priceDrop: string;
  view: string;
  notInterested: string;
  closing: string;
  unsubscribe: string;
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
    view: 'Ver el inmueble',
    notInterested: 'No me interesa',
    closing: 'Un saludo,\n{business}',
    unsubscribe: 'Si no quieres recibir más mensajes de {business}, date de baja aquí:',
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
    view: 'See the property',
    notInterested: 'Not interested',
    closing: 'Kind regards,\n{business}',
    unsubscribe: 'If you would rather not receive more messages from {business}, unsubscribe here:',
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
    view: 'Voir le bien',
    notInterested: 'Ça ne m’intéresse pas',
    closing: 'Cordialement,\n{business}',
    unsubscribe: 'Si vous ne souhaitez plus recevoir de messages de {business}, désabonnez-vous ici :',
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
    view: 'Immobilie ansehen',
    notInterested: 'Kein Interesse',
    closing: 'Mit freundlichen Grüßen\n{business}',
    unsubscribe: 'Wenn Sie keine weiteren Nachrichten von {business} erhalten möchten, melden Sie sich hier ab:',
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
    view: 'Vedi l’immobile',
    notInterested: 'Non mi interessa',
    closing: 'Cordiali saluti,\n{business}',
    unsubscribe: 'Se non desideri ricevere altri messaggi da {business}, annulla l’iscrizione qui:',
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
}

/** The facts line of a listing: price, size, rooms, city (those it states). */
function facts(wording: Wording, listing: AlertListing): string {
  return [
    listing.price === null ? null : `${EUROS.format(listing.price)}${listing.monthly ? wording.perMonth : ''}`,
    listing.size === null ? null : `${NUMBER.format(listing.size)} m²`,
    listing.bedrooms === null ? null : `${listing.bedrooms} ${wording.rooms}`,
    listing.city === null ? null : oneLine(listing.city),
  ]
    .filter((part): part is string => part !== null && part !== '')
    .join(' · ');
}

/**
 * The digest e-mail.
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`).
 * @param words the business's name, the lead's name (null or blank: a greeting without it), the
 *   listings (1 to 5, in order) and the absolute unsubscribe URL.
 * @returns `{subject, text, html}`; the HTML is a complete document with every value escaped.
 */
export function alertEmail(
  language: string,
  words: { businessName: string; leadName: string | null; listings: readonly AlertListing[]; unsubscribeUrl: string },
): { subject: string; text: string; html: string } {
  const wording = WORDS[language] ?? WORDS.es;
  const lang = language in WORDS ? language : 'es';
  const business = oneLine(words.businessName);
  const name = words.leadName === null ? '' : oneLine(words.leadName);
  const fill = (text: string) =>
    text.replaceAll('{business}', business).replaceAll('{name}', name).replaceAll('{n}', String(words.listings.length));
  const subject = fill(words.listings.length === 1 ? wording.subjectOne : wording.subject);
  const greeting = fill(name ? wording.greetingNamed : wording.greeting);
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
  const text =
    `${greeting}\n\n${fill(wording.intro)}\n\n${textBlocks.join('\n\n')}\n\n${fill(wording.closing)}\n\n` +
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
      (l.priceDropped ? `<p style="margin:8px 0 0;color:#a40000;font-weight:bold">${escape(wording.priceDrop)}</p>` : '') +
      `<h2 style="font-size:1.1em;margin:8px 0 4px">${title}</h2>` +
      `<p style="margin:0 0 4px">${escape(facts(wording, l))}</p>` +
      `<p style="margin:0">${l.url === null ? '' : `${link(l.url, wording.view)} · `}${link(l.dismissUrl, wording.notInterested)}</p></div>`
    );
  });
  const html =
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(subject)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222;max-width:600px">` +
    `<p>${escape(greeting)}</p><p>${escape(fill(wording.intro))}</p>${htmlBlocks.join('')}` +
    `<p>${escape(fill(wording.closing)).replaceAll('\n', '<br>')}</p>` +
    `<hr><p style="font-size:small;color:#555">${escape(fill(wording.unsubscribe))} ` +
    `<a href="${escape(words.unsubscribeUrl)}">${escape(words.unsubscribeUrl)}</a></p></body></html>`;
  return { subject, text, html };
}
