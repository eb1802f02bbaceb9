/** What the website kit's elements share (issue 30, CONTRACT §17): building DOM without HTML text, and the page's language. */

/** The languages of the kit's words: Spanish by default, English with `lang="en"`. */
export type Lang = 'es' | 'en';

/** The language an element asks for with its `lang` attribute. */
export const languageOf = (el: Element): Lang => (el.getAttribute('lang') === 'en' ? 'en' : 'es');

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
  }
}
