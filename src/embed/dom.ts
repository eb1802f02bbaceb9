/** What the website kit's elements share (issue 30, CONTRACT §17): building DOM without HTML text, and the page's language. */

/** The languages of the kit's words: Spanish by default, English with `lang="en"`. */
export type Lang = 'es' | 'en';

/**
 * The language of listings' titles and descriptions an element asks the API for with its `lang`
 * attribute (issue 46, CONTRACT §22: `es`, `en`, `fr`, `de`, `it`, and the spec's `gb` and
 * `ge`), passed through as `lang`; null for any other value or none, when the API's default
 * text is shown.
 */
export function listingLanguageOf(el: Element): string | null {
  const lang = (el.getAttribute('lang') ?? '').trim().toLowerCase();
  const known: Record<string, string> = { es: 'es', en: 'en', gb: 'en', fr: 'fr', de: 'de', ge: 'de', it: 'it' };
  return known[lang] ?? null;
}

/**
 * The language of the kit's own words for an element: Spanish with `lang="es"`, no `lang` or one
 * it does not know; English for the other languages of listings (`en`, `gb`, `fr`, `de`, `ge`, `it`).
 */
export const languageOf = (el: Element): Lang => {
  const lang = listingLanguageOf(el);
  return lang === null || lang === 'es' ? 'es' : 'en';
};

/** An element with its own children, built without parsing HTML (no attribute text can inject markup). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, string> = {}, ...children: Array<Node | string>) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

declare global {
  /** The kit's own elements, for {@link h} and `querySelector`. */
  interface HTMLElementTagNameMap {
    'inmo-listings': HTMLElement;
    'inmo-property': HTMLElement;
    'inmo-inquiry-form': HTMLElement;
    'inmo-rental-form': HTMLElement;
    'inmo-viewing-form': HTMLElement;
  }
}
