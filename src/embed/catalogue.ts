/**
 * The website kit's catalogue elements (issue 30, CONTRACT §17), over `GET /properties` and
 * `GET /properties/{id}` with a publishable key:
 *
 * - `<inmo-listings>`: the public catalogue as cards (primary image, title, price or rent, city,
 *   size, bedrooms), filters (`operation`, `type`, `city`, maximum price, minimum bedrooms) and
 *   pages of `page-size` (12). The first filters come from the attributes; then the filters, the
 *   page and an opened listing live in the page's URL (`inmo_*` parameters), so a reload or the
 *   back button shows the same. A card links to `detail-url` (`{id}` replaced) or opens the
 *   listing in place.
 * - `<inmo-property property-id>`: one listing: its photos (buttons, arrow keys, swipe), prices,
 *   size, rooms, features, the description (the API's sanitised HTML, kept to an allowlist again
 *   here), where it is only as precisely as the API publishes it (CONTRACT §5), a "Pedir visita"
 *   button that opens an `<inmo-viewing-form>` (its free times, CONTRACT §20), and an
 *   `<inmo-inquiry-form>` about it.
 *
 * Both pass their `lang` to the API (issue 46, CONTRACT §22): titles and descriptions come in that
 * language where a listing holds it.
 */
import { photoSources } from '../media/photo-widths.ts';
import { h, languageOf, listingLanguageOf, type Lang } from './dom.ts';

const TYPES = ['apartamento', 'casa', 'local', 'nave', 'almacenaje', 'oficina', 'terreno', 'edificio', 'garaje'];
const OPERATIONS = ['venta', 'alquiler', 'traspaso'];

const WORDS = {
  es: {
    operation: 'Operación',
    type: 'Tipo',
    city: 'Ciudad',
    maxPrice: 'Precio máximo (€)',
    minBedrooms: 'Dormitorios (mínimo)',
    any: 'Cualquiera',
    search: 'Buscar',
    loading: 'Cargando…',
    none: 'No hay inmuebles con estos filtros.',
    found: (n: number) => `${n.toLocaleString('es-ES')} ${n === 1 ? 'inmueble' : 'inmuebles'}`,
    previous: 'Anterior',
    next: 'Siguiente',
    page: (p: number, of: number) => `Página ${p} de ${of}`,
    perMonth: '/mes',
    transfer: 'Traspaso',
    bedrooms: (n: number) => `${n} ${n === 1 ? 'dormitorio' : 'dormitorios'}`,
    bathrooms: (n: number) => `${n} ${n === 1 ? 'baño' : 'baños'}`,
    back: 'Volver al listado',
    photo: (i: number, n: number) => `Foto ${i} de ${n}`,
    previousPhoto: 'Foto anterior',
    nextPhoto: 'Foto siguiente',
    photos: 'Fotos',
    features: 'Características',
    where: 'Ubicación',
    approximate: 'Ubicación aproximada',
    failed: 'No se ha podido cargar. Inténtalo de nuevo más tarde.',
    missing: 'Este inmueble ya no está disponible.',
    ask: 'Pregunta por este inmueble',
    visit: 'Pedir visita',
    filters: 'Filtros',
    venta: 'Venta',
    alquiler: 'Alquiler',
    traspaso: 'Traspaso',
    types: ['Piso o apartamento', 'Casa', 'Local', 'Nave', 'Trastero', 'Oficina', 'Terreno', 'Edificio', 'Garaje'],
  },
  en: {
    operation: 'Operation',
    type: 'Type',
    city: 'City',
    maxPrice: 'Maximum price (€)',
    minBedrooms: 'Bedrooms (at least)',
    any: 'Any',
    search: 'Search',
    loading: 'Loading…',
    none: 'No properties match these filters.',
    found: (n: number) => `${n.toLocaleString('en-GB')} ${n === 1 ? 'property' : 'properties'}`,
    previous: 'Previous',
    next: 'Next',
    page: (p: number, of: number) => `Page ${p} of ${of}`,
    perMonth: '/month',
    transfer: 'Transfer',
    bedrooms: (n: number) => `${n} ${n === 1 ? 'bedroom' : 'bedrooms'}`,
    bathrooms: (n: number) => `${n} ${n === 1 ? 'bathroom' : 'bathrooms'}`,
    back: 'Back to the list',
    photo: (i: number, n: number) => `Photo ${i} of ${n}`,
    previousPhoto: 'Previous photo',
    nextPhoto: 'Next photo',
    photos: 'Photos',
    features: 'Features',
    where: 'Location',
    approximate: 'Approximate location',
    failed: 'It could not be loaded. Try again later.',
    missing: 'This property is no longer available.',
    ask: 'Ask about this property',
    visit: 'Request a viewing',
    filters: 'Filters',
    venta: 'For sale',
    alquiler: 'For rent',
    traspaso: 'Business transfer',
    types: ['Flat or apartment', 'House', 'Shop', 'Warehouse', 'Storage room', 'Office', 'Land', 'Building', 'Garage'],
  },
};

const STYLE = `:host{display:block;font-family:var(--inmo-font,system-ui,sans-serif);line-height:1.4;color:#111}
form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin-bottom:1rem}
label{display:grid;gap:.25rem;font-weight:600;font-size:.9rem}
input,select{font:inherit;padding:.45rem;border:1px solid #6b6b6b;border-radius:var(--inmo-radius,6px);background:#fff;color:#111;min-width:8rem}
button,a.button{font:inherit;font-weight:600;padding:.5rem 1rem;border:0;border-radius:var(--inmo-radius,6px);background:var(--inmo-accent,#1d4ed8);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button[disabled]{opacity:.5;cursor:default}
:focus-visible{outline:3px solid var(--inmo-accent,#1d4ed8);outline-offset:2px}
ul.cards{list-style:none;padding:0;margin:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr))}
article{border:1px solid #ccc;border-radius:var(--inmo-radius,6px);overflow:hidden;height:100%;display:flex;flex-direction:column}
article img,.photo img{width:100%;aspect-ratio:4/3;object-fit:cover;background:#eee;display:block}
.noimg{width:100%;aspect-ratio:4/3;background:#e5e5e5}
article .body{padding:.75rem;display:grid;gap:.25rem}
h3{margin:0;font-size:1.05rem}
h3 a{color:inherit}
.price{font-weight:700;font-size:1.1rem;margin:0}
.facts{margin:0;color:#444}
.pager{display:flex;gap:1rem;align-items:center;margin-top:1rem}
.status{margin:.5rem 0}
.gallery{position:relative;max-width:48rem}
.gallery .controls{display:flex;gap:.5rem;align-items:center;margin:.5rem 0}
.description{max-width:48rem}
.visit{margin:1rem 0}
#inmo-visit{margin-bottom:1.5rem}`;

type Words = (typeof WORDS)['es'];

/** A listing as `GET /properties` gives it: the fields the elements show. */
interface Property {
  id: number;
  operation: string | null;
  type: string | null;
  title: string | null;
  price: number | null;
  size_total: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  city: string | null;
  province: string | null;
  address: string | null;
  description: string | null;
  images: Array<{ url: string; is_primary: boolean; title: string | null }> | null;
  features: Array<{ label: string | null; key: string }> | null;
  specs: { price_calc?: { price_alq: number | null; price_trasp: number | null }; address_privacy?: string } | null;
}

/** `GET {api}{path}` with the element's key. @throws Error with the status when it is not 200. */
async function read<T>(el: Element, path: string): Promise<T> {
  const api = (el.getAttribute('api') ?? '').replace(/\/+$/, '');
  const response = await fetch(`${api}${path}`, { headers: { 'X-Api-Key': el.getAttribute('key') ?? '' } });
  if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
  return (await response.json()) as T;
}

const euros = (lang: Lang, n: number) =>
  new Intl.NumberFormat(lang === 'en' ? 'en-GB' : 'es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 }).format(n);

/** What a listing costs, in words: the sale price, or the rent a month, or the transfer price. */
function priceOf(p: Property, lang: Lang, w: Words): string {
  const rent = p.specs?.price_calc?.price_alq ?? null;
  const transfer = p.specs?.price_calc?.price_trasp ?? null;
  if (p.price !== null && p.operation !== 'alquiler') return euros(lang, p.price);
  if (rent !== null) return `${euros(lang, rent)}${w.perMonth}`;
  if (transfer !== null) return `${w.transfer}: ${euros(lang, transfer)}`;
  return p.price !== null ? euros(lang, p.price) : '';
}

function factsOf(p: Property, w: Words): string {
  return [p.city, p.size_total !== null ? `${p.size_total} m²` : null, p.bedrooms !== null ? w.bedrooms(p.bedrooms) : null]
    .filter(Boolean)
    .join(' · ');
}

/**
 * An image's `src` (the widest width stored), and `srcset` and `sizes` when the photo store
 * offers it in several widths: only those it stores of that photo (src/media/photo-widths.ts).
 */
function picture(url: string, sizes: string): Record<string, string> {
  const { src, srcset } = photoSources(url);
  return srcset === null ? { src } : { src, srcset, sizes };
}

/** The tags and no attribute of the API's description HTML that are shown: text can hold nothing else. */
const ALLOWED = new Set(['P', 'BR', 'UL', 'OL', 'LI', 'B', 'STRONG', 'I', 'EM', 'H3', 'H4', 'H5', 'H6']);

/** The description's HTML, kept to {@link ALLOWED} tags without attributes (defence in depth: the API sanitised it). */
function description(html: string): DocumentFragment {
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  const copy = (from: Node, into: Node) => {
    for (const child of Array.from(from.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) into.appendChild(document.createTextNode(child.textContent ?? ''));
      else if (child.nodeType === Node.ELEMENT_NODE) {
        const tag = (child as Element).tagName;
        if (tag === 'SCRIPT' || tag === 'STYLE') continue;
        const kept = ALLOWED.has(tag) ? document.createElement(tag.toLowerCase()) : null;
        copy(child, kept ?? into);
        if (kept) into.appendChild(kept);
      }
    }
  };
  const out = document.createDocumentFragment();
  copy(parsed.body, out);
  return out;
}

/** The filters and place of `<inmo-listings>`, as in the page's URL. */
interface State {
  operation: string;
  type: string;
  city: string;
  max_price: string;
  min_bedrooms: string;
  page: number;
  property: string;
}
const FILTERS = ['operation', 'type', 'city', 'max_price', 'min_bedrooms'] as const;

class InmoListings extends HTMLElement {
  private root: ShadowRoot | null = null;
  private readonly onPopState = () => void this.show();

  private get w(): Words {
    return WORDS[languageOf(this)];
  }

  connectedCallback(): void {
    if (!this.root) {
      this.root = this.attachShadow({ mode: 'open' });
      window.addEventListener('popstate', this.onPopState);
    }
    void this.show();
  }

  disconnectedCallback(): void {
    window.removeEventListener('popstate', this.onPopState);
  }

  /** The state in the page's URL, else the attributes' filters on the first page. */
  private state(): State {
    const url = new URLSearchParams(location.search);
    const inUrl = [...FILTERS, 'page', 'property'].some((k) => url.has(`inmo_${k}`));
    const get = (k: string) => (inUrl ? (url.get(`inmo_${k}`) ?? '') : (this.getAttribute(k) ?? ''));
    return {
      operation: get('operation'),
      type: get('type'),
      city: get('city'),
      max_price: get('max_price'),
      min_bedrooms: get('min_bedrooms'),
      page: Math.max(1, Number.parseInt(url.get('inmo_page') ?? '1', 10) || 1),
      property: url.get('inmo_property') ?? '',
    };
  }

  /** Moves to `state`: a new entry of the page's history, then shows it. */
  private go(state: State): void {
    const url = new URL(location.href);
    for (const key of [...url.searchParams.keys()]) if (key.startsWith('inmo_')) url.searchParams.delete(key);
    for (const key of FILTERS) if (state[key]) url.searchParams.set(`inmo_${key}`, state[key]);
    url.searchParams.set('inmo_page', String(state.page));
    if (state.property) url.searchParams.set('inmo_property', state.property);
    history.pushState(null, '', url);
    void this.show();
  }

  private pageSize(): number {
    const n = Number.parseInt(this.getAttribute('page-size') ?? '12', 10);
    return n >= 1 && n <= 100 ? n : 12;
  }

  private async show(): Promise<void> {
    const root = this.root!;
    const state = this.state();
    const style = h('style');
    style.textContent = STYLE;
    if (state.property) {
      const back = h('button', { type: 'button' }, this.w.back);
      back.addEventListener('click', () => history.back());
      const property = h('inmo-property', {
        'property-id': state.property,
        api: this.getAttribute('api') ?? '',
        key: this.getAttribute('key') ?? '',
        lang: this.getAttribute('lang') ?? 'es',
      });
      root.replaceChildren(style, back, property);
      back.focus();
      return;
    }
    const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, this.w.loading);
    const list = h('div', { 'aria-busy': 'true' });
    root.replaceChildren(style, this.filters(state), status, list);
    const size = this.pageSize();
    const query = new URLSearchParams({ limit: String(size), offset: String((state.page - 1) * size) });
    for (const key of FILTERS) if (state[key]) query.set(key, state[key]);
    const language = listingLanguageOf(this);
    if (language !== null) query.set('lang', language);
    let page: { data: Property[]; total: number };
    try {
      page = await read(this, `/properties?${query}`);
    } catch {
      status.textContent = this.w.failed;
      list.removeAttribute('aria-busy');
      return;
    }
    list.removeAttribute('aria-busy');
    status.textContent = page.total === 0 ? this.w.none : this.w.found(page.total);
    if (page.total === 0) return;
    const cards = h('ul', { class: 'cards' });
    for (const p of page.data) cards.append(h('li', {}, this.card(p, state)));
    const pages = Math.max(1, Math.ceil(page.total / size));
    const previous = h('button', { type: 'button' }, this.w.previous);
    const next = h('button', { type: 'button' }, this.w.next);
    previous.toggleAttribute('disabled', state.page <= 1);
    next.toggleAttribute('disabled', state.page >= pages);
    previous.addEventListener('click', () => this.go({ ...state, page: state.page - 1 }));
    next.addEventListener('click', () => this.go({ ...state, page: state.page + 1 }));
    list.append(
      cards,
      h(
        'nav',
        { class: 'pager', 'aria-label': this.w.page(state.page, pages) },
        previous,
        h('span', {}, this.w.page(state.page, pages)),
        next,
      ),
    );
  }

  private filters(state: State): HTMLFormElement {
    const w = this.w;
    const select = (name: string, label: string, values: string[], labels: string[], chosen: string) => {
      const el = h('select', { name, id: `f-${name}` }, h('option', { value: '' }, w.any));
      values.forEach((v, i) => el.append(h('option', v === chosen ? { value: v, selected: '' } : { value: v }, labels[i])));
      return h('label', {}, label, el);
    };
    const input = (name: string, label: string, value: string, extra: Record<string, string> = {}) =>
      h('label', {}, label, h('input', { name, value, ...extra }));
    const form = h(
      'form',
      { class: 'filters', role: 'search', 'aria-label': w.filters },
      select(
        'operation',
        w.operation,
        OPERATIONS,
        OPERATIONS.map((o) => w[o as 'venta']),
        state.operation,
      ),
      select('type', w.type, TYPES, w.types, state.type),
      input('city', w.city, state.city, { autocomplete: 'address-level2' }),
      input('max_price', w.maxPrice, state.max_price, { inputmode: 'numeric' }),
      select('min_bedrooms', w.minBedrooms, ['1', '2', '3', '4', '5'], ['1+', '2+', '3+', '4+', '5+'], state.min_bedrooms),
      h('button', { type: 'submit' }, w.search),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const text = (k: string) => String(data.get(k) ?? '').trim();
      this.go({
        operation: text('operation'),
        type: text('type'),
        city: text('city'),
        max_price: text('max_price').replace(/[^\d]/g, ''),
        min_bedrooms: text('min_bedrooms'),
        page: 1,
        property: '',
      });
    });
    return form;
  }

  private card(p: Property, state: State): HTMLElement {
    const lang = languageOf(this);
    const title = p.title ?? `#${p.id}`;
    const template = this.getAttribute('detail-url');
    const href = template ? template.replaceAll('{id}', String(p.id)) : `?${new URLSearchParams({ inmo_property: String(p.id) })}`;
    const link = h('a', { href }, title);
    if (!template) {
      link.addEventListener('click', (event) => {
        event.preventDefault();
        this.go({ ...state, property: String(p.id) });
      });
    }
    const image = p.images?.find((i) => i.is_primary) ?? p.images?.[0];
    return h(
      'article',
      { 'data-property-id': String(p.id) },
      image
        ? h('img', { ...picture(image.url, '(max-width: 40rem) 100vw, 20rem'), alt: '', loading: 'lazy', decoding: 'async' })
        : h('div', { class: 'noimg' }),
      h(
        'div',
        { class: 'body' },
        h('h3', {}, link),
        h('p', { class: 'price' }, priceOf(p, lang, this.w)),
        h('p', { class: 'facts' }, factsOf(p, this.w)),
      ),
    );
  }
}

class InmoProperty extends HTMLElement {
  private root: ShadowRoot | null = null;

  static get observedAttributes() {
    return ['property-id'];
  }

  connectedCallback(): void {
    this.root ??= this.attachShadow({ mode: 'open' });
    void this.show();
  }

  attributeChangedCallback(): void {
    if (this.root) void this.show();
  }

  private async show(): Promise<void> {
    const root = this.root!;
    const lang = languageOf(this);
    const w = WORDS[lang];
    const style = h('style');
    style.textContent = STYLE;
    const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, w.loading);
    root.replaceChildren(style, status);
    const id = this.getAttribute('property-id') ?? '';
    let p: Property;
    try {
      if (!/^\d{1,10}$/.test(id)) throw Object.assign(new Error('no id'), { status: 404 });
      const language = listingLanguageOf(this);
      p = (await read<{ data: Property }>(this, `/properties/${id}${language === null ? '' : `?lang=${language}`}`)).data;
    } catch (error) {
      status.textContent = (error as { status?: number }).status === 404 ? w.missing : w.failed;
      return;
    }
    status.textContent = '';
    const rent = p.specs?.price_calc?.price_alq ?? null;
    const transfer = p.specs?.price_calc?.price_trasp ?? null;
    const prices = [
      p.price !== null ? euros(lang, p.price) : null,
      rent !== null ? `${euros(lang, rent)}${w.perMonth}` : null,
      transfer !== null ? `${w.transfer}: ${euros(lang, transfer)}` : null,
    ].filter((x): x is string => x !== null);
    const facts = [
      p.size_total !== null ? `${p.size_total} m²` : null,
      p.bedrooms !== null ? w.bedrooms(p.bedrooms) : null,
      p.bathrooms !== null ? w.bathrooms(p.bathrooms) : null,
    ].filter((x): x is string => x !== null);
    const article = h('article', { 'aria-labelledby': 'inmo-title' }, h('h2', { id: 'inmo-title' }, p.title ?? `#${p.id}`));
    const images = p.images ?? [];
    if (images.length) article.append(this.gallery(images, p.title ?? '', w));
    article.append(h('p', { class: 'price' }, prices.join(' · ')));
    if (facts.length) article.append(h('p', { class: 'facts' }, facts.join(' · ')));
    const features = (p.features ?? []).filter((f) => f.label);
    if (features.length) article.append(h('h3', {}, w.features), h('ul', {}, ...features.map((f) => h('li', {}, f.label!))));
    if (p.description) {
      const body = h('div', { class: 'description' });
      body.append(description(p.description));
      article.append(body);
    }
    // Only as precise as the API publishes it (CONTRACT §5): a hidden address comes without one.
    const place = [p.address, p.city, p.province].filter(Boolean).join(', ');
    if (place) article.append(h('h3', {}, p.specs?.address_privacy === 'approximate' ? w.approximate : w.where), h('p', {}, place));
    const formOf = (tag: 'inmo-inquiry-form' | 'inmo-viewing-form', label: string) => {
      const form = h(tag, {
        api: this.getAttribute('api') ?? '',
        key: this.getAttribute('key') ?? '',
        lang,
        'property-id': String(p.id),
        'form-label': label,
      });
      for (const name of ['source', 'consent-text', 'consent-version', 'consent-marketing']) {
        const value = this.getAttribute(name);
        if (value !== null) form.setAttribute(name, value);
      }
      return form;
    };
    // "Pedir visita" (CONTRACT §20): the free times are asked for when the visitor opens it.
    const visit = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'inmo-visit' }, w.visit);
    const visitPanel = h('div', { id: 'inmo-visit', hidden: '' });
    visit.addEventListener('click', () => {
      const open = visitPanel.hidden;
      if (open && !visitPanel.firstChild) visitPanel.append(formOf('inmo-viewing-form', w.visit));
      visitPanel.hidden = !open;
      visit.setAttribute('aria-expanded', String(open));
    });
    article.append(h('div', { class: 'visit' }, visit), visitPanel, h('h3', {}, w.ask), formOf('inmo-inquiry-form', w.ask));
    root.replaceChildren(style, article);
  }

  /** The photos one at a time: buttons, the arrow keys on the gallery, and a swipe. */
  private gallery(images: NonNullable<Property['images']>, title: string, w: Words): HTMLElement {
    let at = Math.max(
      0,
      images.findIndex((i) => i.is_primary),
    );
    const img = h('img', { alt: '' });
    const counter = h('span', { 'aria-live': 'polite' });
    const show = (i: number) => {
      at = (i + images.length) % images.length;
      img.removeAttribute('srcset');
      for (const [name, value] of Object.entries(picture(images[at].url, '(max-width: 48rem) 100vw, 48rem'))) img.setAttribute(name, value);
      img.setAttribute('alt', images[at].title ?? title);
      counter.textContent = w.photo(at + 1, images.length);
    };
    const previous = h('button', { type: 'button' }, w.previousPhoto);
    const next = h('button', { type: 'button' }, w.nextPhoto);
    previous.addEventListener('click', () => show(at - 1));
    next.addEventListener('click', () => show(at + 1));
    const photo = h(
      'div',
      { class: 'photo', tabindex: '0', role: 'group', 'aria-roledescription': 'carousel', 'aria-label': w.photos },
      img,
    );
    photo.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowLeft') show(at - 1);
      else if (event.key === 'ArrowRight') show(at + 1);
    });
    let startX: number | null = null;
    photo.addEventListener('pointerdown', (event) => (startX = event.clientX));
    photo.addEventListener('pointerup', (event) => {
      if (startX !== null && Math.abs(event.clientX - startX) > 40) show(at + (event.clientX < startX ? 1 : -1));
      startX = null;
    });
    show(at);
    const controls = images.length > 1 ? [h('div', { class: 'controls' }, previous, counter, next)] : [];
    return h('div', { class: 'gallery' }, photo, ...controls);
  }
}

for (const [name, element] of [
  ['inmo-listings', InmoListings],
  ['inmo-property', InmoProperty],
] as const) {
  if (!customElements.get(name)) customElements.define(name, element);
}
