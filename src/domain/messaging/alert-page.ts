/**
 * An alert digest sent by WhatsApp (CONTRACT §21, issue 45): the `property_alert` template's
 * parameters, and the words of the digest's public page `/d/<token>` in the lead's language
 * (es, en, fr, de, it; anything else es). Pure.
 *
 * The template's body takes four parameters, in this order (docs/whatsapp.md):
 *
 * | parameter | what                                                                        |
 * | --------- | --------------------------------------------------------------------------- |
 * | `{{1}}`   | the lead's first name, else the language's word for a customer ("cliente") |
 * | `{{2}}`   | the number of listings in the digest (1 to 5), in digits                    |
 * | `{{3}}`   | the agency's name                                                           |
 * | `{{4}}`   | the absolute link to the digest's page, `https://…/d/<token>`               |
 *
 * WhatsApp refuses an empty parameter and one with a line break, a tab or more than four spaces
 * in a row: every parameter is one line ({@link oneLine}) and never empty.
 */
import { alertWording, facts, type AlertListing } from './alert-email.ts';
import { oneLine } from './welcome-email.ts';

/** The page's own words, per language. `{business}` is filled in. */
interface PageWording {
  /** The page's title and heading. */
  title: string;
  /** A listing that left the public catalogue since the digest was sent. */
  gone: string;
  /** A listing the lead said "No me interesa" to. */
  dismissed: string;
  /** The first parameter when the lead has no name. */
  customer: string;
  /** The foot of the page. */
  offeredBy: string;
}

const PAGE_WORDS: Readonly<Record<string, PageWording>> = {
  es: {
    title: 'Inmuebles para ti',
    gone: 'Ya no está disponible.',
    dismissed: 'Nos dijiste que no te interesa: no volveremos a enviártelo.',
    customer: 'cliente',
    offeredBy: 'Inmuebles ofrecidos por {business}.',
  },
  en: {
    title: 'Properties for you',
    gone: 'No longer available.',
    dismissed: 'You told us you are not interested: we will not send it to you again.',
    customer: 'customer',
    offeredBy: 'Properties offered by {business}.',
  },
  fr: {
    title: 'Des biens pour vous',
    gone: 'N’est plus disponible.',
    dismissed: 'Vous nous avez dit que cela ne vous intéresse pas : nous ne vous l’enverrons plus.',
    customer: 'client',
    offeredBy: 'Biens proposés par {business}.',
  },
  de: {
    title: 'Immobilien für Sie',
    gone: 'Nicht mehr verfügbar.',
    dismissed: 'Sie haben uns gesagt, dass Sie kein Interesse haben: Wir senden sie Ihnen nicht mehr.',
    customer: 'Kunde',
    offeredBy: 'Immobilien angeboten von {business}.',
  },
  it: {
    title: 'Immobili per te',
    gone: 'Non più disponibile.',
    dismissed: 'Ci hai detto che non ti interessa: non te lo invieremo più.',
    customer: 'cliente',
    offeredBy: 'Immobili offerti da {business}.',
  },
};

/** The language a page or a template speaks: one of the five, else `es`. */
export function pageLanguage(language: string | null | undefined): string {
  return language && language in PAGE_WORDS ? language : 'es';
}

/**
 * The `property_alert` template's body parameters (the table above): first name, number of
 * listings, agency, link.
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`): the word used for a lead without a name.
 */
export function alertTemplateParameters(
  language: string,
  words: { leadName: string | null; count: number; businessName: string; link: string },
): string[] {
  const first = oneLine(words.leadName ?? '').split(' ')[0] ?? '';
  return [first || PAGE_WORDS[pageLanguage(language)].customer, String(words.count), oneLine(words.businessName) || '-', words.link];
}

/** One listing of a digest as its page shows it. */
export interface PageListing extends Pick<
  AlertListing,
  'title' | 'price' | 'monthly' | 'size' | 'bedrooms' | 'city' | 'priceDropped' | 'priceBefore'
> {
  /** The photo's URL (on this server, or the listing's own), or null. */
  photoUrl: string | null;
  /** The listing's page (`/l/<token>` or the business's own `listing_url`), or null. */
  url: string | null;
  /** Where its "No me interesa" button posts (`/a/<token>`), or null when it cannot be (gone, or dismissed already). */
  dismissAction: string | null;
  /** The lead said "No me interesa" to it. */
  dismissed: boolean;
  /** It left the public catalogue since the digest was sent: shown by its title alone, as no longer available. */
  gone: boolean;
}

/** Everything a digest's page says, in its language: headings, and each listing's title and facts line. */
export function digestPageWords(
  language: string,
  words: { businessName: string; listings: readonly PageListing[] },
): {
  lang: string;
  title: string;
  intro: string;
  offeredBy: string;
  view: string;
  notInterested: string;
  priceDrop: string;
  gone: string;
  dismissed: string;
  listings: Array<{ title: string; facts: string }>;
} {
  const lang = pageLanguage(language);
  const wording = alertWording(lang);
  const page = PAGE_WORDS[lang];
  const business = oneLine(words.businessName);
  const fill = (text: string) => text.replaceAll('{business}', business);
  return {
    lang,
    title: page.title,
    intro: fill(wording.intro),
    offeredBy: fill(page.offeredBy),
    view: wording.view,
    notInterested: wording.notInterested,
    priceDrop: wording.priceDrop,
    gone: page.gone,
    dismissed: page.dismissed,
    listings: words.listings.map((l) => ({
      title: oneLine(l.title ?? '') || (l.city ? `${wording.untitled} · ${oneLine(l.city)}` : wording.untitled),
      facts: l.gone ? '' : facts(wording, l),
    })),
  };
}
