/**
 * A listing's public page and sheet (CONTRACT §21), outside `/v1/ext`, without a key or a
 * cookie: the token in the path names the listing (services/catalogue/listing-page.ts).
 *
 * - `GET /l/<token>?lang=es|en|fr|de|it` (also `gb`, `ge`; Spanish by default): one page of the
 *   listing under its agency's name: photos, prices, facts, the energy rating on its A–G scale,
 *   the location as the API publishes it, the description in that language where the listing
 *   holds it, a viewing form (the free slots of the next 7 days) and an inquiry form. Served by inmo with the console's stylesheet, no script and
 *   a strict Content-Security-Policy (nothing from another site but photos kept on an https
 *   media host); not cached, not indexed, no referrer (the URL holds the token).
 * - `POST /l/<token>` (`application/x-www-form-urlencoded`: `name`, `phone`, `email`,
 *   `message`, `consent=1`, `submission`, and the trap field `website`; a body of another type
 *   is an empty form): the inquiry, made a
 *   lead as the website kit's would be; then 303 to the page with `sent=1` (a reload sends
 *   nothing again). A plain HTML form rather than the kit's script: it needs no publishable key
 *   made for the page, no script in the page (`script-src` stays `'none'`), works without
 *   JavaScript and speaks the page's five languages. Without a session there is nothing for a
 *   CSRF token to protect: a post from elsewhere can do no more than the public form itself.
 *   Against programs instead: a per-client-IP limit (the publishable-key forms' limit, 20 a
 *   minute unless set, counted before the body is read), a trap field people never see (filled,
 *   the answer is the same 303 and nothing is stored), and each rendered form's `submission`
 *   nonce, taken once per process for 10 minutes (a double click is one inquiry). Faults are
 *   shown beside their fields (422, nothing stored).
 * - The same `POST /l/<token>` with `form=viewing` (`slot`, one of the free slots the page offers
 *   (RFC 3339 with the business's offset), `name`, `phone`, `email`, `consent=1`, `submission`,
 *   `website`): the website kit's "Pedir visita" (CONTRACT §20), a `requested` viewing with source
 *   `website` (services/viewings/page-viewings.ts), under the same per-IP limit, trap and nonce;
 *   then 303 to `GET /l/<token>?visit=<its start, epoch ms>`, a thank-you page in the page's
 *   language that says the day and time in the business's time zone. A slot taken meanwhile is
 *   409 with the slots as they are now; other faults 422 beside their fields; nothing stored.
 * - `GET /l/<token>.pdf?lang=…`: the listing's A4 sheet (services/catalogue/listing-sheet.ts),
 *   laid out once for the same listing, language and agency (services/catalogue/sheet-cache.ts):
 *   a strong `ETag`, `Cache-Control: no-cache` (kept, asked again each time: a listing that
 *   leaves the catalogue is 410 at once), and 304 to an `If-None-Match` naming it.
 *
 * A listing no longer in the public catalogue (sold, rented, withdrawn, made private) answers
 * 410 with a short page in words, for the page, the sheet and the form; a token no listing has
 * is 404 `Not Found`, as any unknown path. The token is never logged: the request's log line
 * names the route's pattern.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/database.ts';
import { toLocalRfc3339 } from '../../domain/viewings/hours.ts';
import { LISTING_LANGUAGES, listingLanguage, type ListingLanguage } from '../../domain/catalogue/languages.ts';
import { ENERGY_RATINGS } from '../../domain/catalogue/listing-facts.ts';
import { fill, LISTING_WORDS, type ListingWords } from '../../domain/catalogue/listing-words.ts';
import { InmoError } from '../../errors.ts';
import type { LeadWrites } from '../../services/leads/intake.ts';
import {
  EMAIL_MAX,
  MESSAGE_MAX,
  NAME_MAX,
  PAGE_PATH,
  readListingPage,
  sendPageInquiry,
  type BusinessContact,
  type ListingPage,
  type PageInquiryFault,
  type PageInquiryFaults,
  type PageInquiryForm,
} from '../../services/catalogue/listing-page.ts';
import { publicListingSheet, sheetFileName } from '../../services/catalogue/listing-sheet.ts';
import {
  pageViewingSlots,
  requestPageViewing,
  type PageViewingFaults,
  type PageViewingForm,
  type SlotFault,
} from '../../services/viewings/page-viewings.ts';
import type { Slot } from '../../domain/viewings/hours.ts';
import { DateTime } from 'luxon';
import type { MediaOptions } from '../media.ts';
import { noneMatch } from '../conditional.ts';
import { serverOrigin } from '../origin.ts';
import { escape } from './unsubscribe.ts';

/** The route of the page, the sheet (`<token>.pdf`) and the form. */
export const LISTING_PAGE_ROUTE = '/l/:file';

/** How long a form's `submission` nonce is remembered, ms, and how many at most. */
const SUBMISSION_TTL_MS = 10 * 60_000;
const SUBMISSIONS_KEPT = 50_000;

/** Largest form body, bytes. */
const FORM_MAX_BYTES = 16 * 1024;

/** The Content-Security-Policy of the public pages (this one, the digest's: alert-page.ts): this server's files, photos over https, no script. */
export function pagePolicy(mediaPublicUrl: string | null): string {
  // Photos on a plain-http media base (a laptop install) are allowed by their own origin.
  const media = mediaPublicUrl?.startsWith('http:') ? ` ${new URL(mediaPublicUrl).origin}` : '';
  return `default-src 'none'; img-src 'self' https:${media}; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

/** Headers of the public pages (this one, its sheet and gone page, the digest's page): not framed, cached or indexed, no referrer. */
export function headers(policy: string) {
  return {
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-robots-tag': 'noindex',
  };
}

/** The token and whether the sheet is asked for, from the path's last part. */
function target(file: string): { token: string; pdf: boolean } {
  return file.endsWith('.pdf') ? { token: file.slice(0, -4), pdf: true } : { token: file, pdf: false };
}

/** The page's language from `lang` (Spanish unless one of the five is named). */
function languageOf(request: FastifyRequest): ListingLanguage {
  const lang = (request.query as Record<string, unknown>).lang;
  return listingLanguage(typeof lang === 'string' ? lang : null) ?? 'es';
}

/** What the form shows again after a refusal, and what it says. */
interface FormState {
  values: PageInquiryForm;
  faults: PageInquiryFaults;
  /** The form's own message: sent, or why nothing was. */
  notice: 'sent' | 'fix' | 'failed' | 'throttled' | null;
}

/** A field fault in words. */
function faultText(words: ListingWords, fault: PageInquiryFault): string {
  switch (fault) {
    case 'required':
      return words.required;
    case 'too_long':
      return words.tooLong;
    case 'phone':
      return words.badPhone;
    case 'email':
      return words.badEmail;
    case 'consent':
      return words.consentRequired;
  }
}

/** The head of every page of a listing: language, title, stylesheet. */
function head(lang: ListingLanguage, title: string): string {
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>` +
    `<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">` +
    `<link rel="stylesheet" href="/console/assets/console.css"></head>`
  );
}

/** The bar at the top: the agency's name, and the page in each language. */
function top(token: string, lang: ListingLanguage, business: BusinessContact, suffix = ''): string {
  const words = LISTING_WORDS[lang];
  const links = LISTING_LANGUAGES.map(
    (l) =>
      `<li><a href="${PAGE_PATH}${token}${suffix}?lang=${l}" hreflang="${l}" lang="${l}"${l === lang ? ' aria-current="page"' : ''}>${escape(LISTING_WORDS[l].languageName)}</a></li>`,
  ).join('');
  return `<header class="top"><span class="brand">${escape(business.name)}</span><nav aria-label="${escape(words.languages)}"><ul>${links}</ul></nav></header>`;
}

/** The agency's e-mail address as a link, when it has one. */
function mailto(words: ListingWords, business: BusinessContact): string {
  return business.email ? `<p>${escape(words.email)}: <a href="mailto:${escape(business.email)}">${escape(business.email)}</a></p>` : '';
}

/** The page of a listing no longer offered (410). */
function gonePage(token: string, lang: ListingLanguage, business: BusinessContact): string {
  const words = LISTING_WORDS[lang];
  return (
    head(lang, `${words.goneTitle} · ${business.name}`) +
    `<body>${top(token, lang, business)}<main id="main" class="narrow"><h1>${escape(words.goneTitle)}</h1>` +
    `<p>${escape(fill(words.goneText, { business: business.name }))}</p>` +
    (business.email ? `<p>${escape(words.goneContact)}</p>${mailto(words, business)}` : '') +
    `</main></body></html>`
  );
}

/** The inquiry form, with what was sent and its faults after a refusal. */
function inquiryForm(token: string, lang: ListingLanguage, state: FormState, submission: string): string {
  const words = LISTING_WORDS[lang];
  const value = (name: keyof PageInquiryForm) => escape(state.values[name] ?? '');
  const problem = (name: keyof PageInquiryFaults) => {
    const fault = state.faults[name];
    return fault ? `<p class="field-problem" id="e-${name}">${escape(faultText(words, fault))}</p>` : '';
  };
  const aria = (name: keyof PageInquiryFaults, hint?: string) => {
    const ids = [hint, state.faults[name] ? `e-${name}` : null].filter(Boolean).join(' ');
    return (ids ? ` aria-describedby="${ids}"` : '') + (state.faults[name] ? ' aria-invalid="true"' : '');
  };
  const notice =
    state.notice === 'sent'
      ? `<p class="notice" role="status">${escape(words.sent)}</p>`
      : state.notice
        ? `<p class="problem" role="alert">${escape(words[state.notice])}</p>`
        : '';
  if (state.notice === 'sent') return notice;
  return (
    notice +
    `<form method="post" action="${PAGE_PATH}${token}?lang=${lang}#contact" class="stack" novalidate>` +
    `<label for="f-name">${escape(words.name)}</label>` +
    `<input id="f-name" name="name" autocomplete="name" required maxlength="${NAME_MAX}" value="${value('name')}"${aria('name')}>${problem('name')}` +
    `<label for="f-phone">${escape(words.phone)}</label>` +
    `<input id="f-phone" name="phone" type="tel" autocomplete="tel" required maxlength="64" value="${value('phone')}"${aria('phone')}>${problem('phone')}` +
    `<label for="f-email">${escape(words.email)} <span class="hint">(${escape(words.optional)})</span></label>` +
    `<input id="f-email" name="email" type="email" autocomplete="email" maxlength="${EMAIL_MAX}" value="${value('email')}"${aria('email')}>${problem('email')}` +
    `<label for="f-message">${escape(words.message)} <span class="hint">(${escape(words.optional)})</span></label>` +
    `<textarea id="f-message" name="message" rows="4" maxlength="${MESSAGE_MAX}"${aria('message')}>${value('message')}</textarea>${problem('message')}` +
    `<div class="trap"><label for="f-website">${escape(words.trap)}</label><input id="f-website" name="website" tabindex="-1" autocomplete="off"></div>` +
    `<label class="check"><input type="checkbox" name="consent" value="1" required${state.values.consent === '1' ? ' checked' : ''}${aria('consent')}> ${escape(words.consent)}</label>${problem('consent')}` +
    `<input type="hidden" name="submission" value="${submission}">` +
    `<button type="submit">${escape(words.send)}</button></form>`
  );
}

/** What the viewing form shows again after a refusal, and what it says. */
interface ViewingState {
  values: PageViewingForm;
  faults: PageViewingFaults;
  notice: 'fix' | 'failed' | 'throttled' | null;
}

/** The viewing form's free slots: the business's time zone and the slots (epoch ms). */
interface Offer {
  zone: string;
  slots: Slot[];
}

/** A slot's fault in words. */
function slotFaultText(words: ListingWords, fault: SlotFault): string {
  return fault === 'taken' ? words.slotTaken : fault === 'gone' ? words.slotGone : words.slotRequired;
}

/** An instant as the page says it, in the business's time zone: `lunes, 30 de noviembre` and `10:00`. */
function localWords(ms: number, zone: string, lang: ListingLanguage): { day: string; time: string; full: string } {
  const at = DateTime.fromMillis(ms, { zone }).setLocale(lang);
  const day = at.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long' });
  const time = at.toFormat('HH:mm');
  return { day, time, full: `${day}, ${time}` };
}

/**
 * The viewing form (CONTRACT §21, §20): the free slots of the next 7 days grouped by day in
 * the business's time zone, name, phone, optional e-mail, consent; faults beside the fields.
 */
function viewingForm(
  token: string,
  lang: ListingLanguage,
  offer: Offer,
  state: ViewingState,
  submission: string,
  business: string,
): string {
  const words = LISTING_WORDS[lang];
  const value = (name: keyof PageViewingForm) => escape(state.values[name] ?? '');
  const problem = (name: keyof PageViewingFaults) => {
    const fault = state.faults[name];
    if (!fault) return '';
    const text = name === 'slot' ? slotFaultText(words, fault as SlotFault) : faultText(words, fault as PageInquiryFault);
    return `<p class="field-problem" id="ve-${name}">${escape(text)}</p>`;
  };
  const aria = (name: keyof PageViewingFaults, hint?: string) => {
    const ids = [hint, state.faults[name] ? `ve-${name}` : null].filter(Boolean).join(' ');
    return (ids ? ` aria-describedby="${ids}"` : '') + (state.faults[name] ? ' aria-invalid="true"' : '');
  };
  const intro = `<p id="v-intro">${escape(fill(words.visitIntro, { business }))}</p>`;
  const notice = state.notice ? `<p class="problem" role="alert">${escape(words[state.notice])}</p>` : '';
  if (offer.slots.length === 0) return `${notice}<p>${escape(words.noSlots)}</p>`;
  const days = new Map<string, string[]>();
  for (const slot of offer.slots) {
    const { day, time } = localWords(slot.start, offer.zone, lang);
    const stamp = toLocalRfc3339(slot.start, offer.zone);
    const options = days.get(day) ?? [];
    options.push(`<option value="${stamp}"${state.values.slot === stamp ? ' selected' : ''}>${escape(time)}</option>`);
    days.set(day, options);
  }
  const groups = [...days].map(([day, options]) => `<optgroup label="${escape(day)}">${options.join('')}</optgroup>`).join('');
  return (
    intro +
    notice +
    `<form method="post" action="${PAGE_PATH}${token}?lang=${lang}#visit" class="stack" novalidate>` +
    `<input type="hidden" name="form" value="viewing">` +
    `<label for="v-slot">${escape(words.slot)}</label>` +
    `<select id="v-slot" name="slot" required${aria('slot')}><option value="">${escape(words.slotChoose)}</option>${groups}</select>${problem('slot')}` +
    `<label for="v-name">${escape(words.name)}</label>` +
    `<input id="v-name" name="name" autocomplete="name" required maxlength="${NAME_MAX}" value="${value('name')}"${aria('name')}>${problem('name')}` +
    `<label for="v-phone">${escape(words.phone)}</label>` +
    `<input id="v-phone" name="phone" type="tel" autocomplete="tel" required maxlength="64" value="${value('phone')}"${aria('phone')}>${problem('phone')}` +
    `<label for="v-email">${escape(words.email)} <span class="hint">(${escape(words.optional)})</span></label>` +
    `<input id="v-email" name="email" type="email" autocomplete="email" maxlength="${EMAIL_MAX}" value="${value('email')}"${aria('email')}>${problem('email')}` +
    `<div class="trap"><label for="v-website">${escape(words.trap)}</label><input id="v-website" name="website" tabindex="-1" autocomplete="off"></div>` +
    `<label class="check"><input type="checkbox" name="consent" value="1" required${state.values.consent === '1' ? ' checked' : ''}${aria('consent')}> ${escape(words.visitConsent)}</label>${problem('consent')}` +
    `<input type="hidden" name="submission" value="${submission}">` +
    `<button type="submit">${escape(words.visitSend)}</button></form>`
  );
}

/** The thank-you page of a viewing asked for, in the page's language. */
function thanksPage(token: string, lang: ListingLanguage, business: BusinessContact, title: string, when: string): string {
  const words = LISTING_WORDS[lang];
  return (
    head(lang, `${words.thanksTitle} · ${business.name}`) +
    `<body>${top(token, lang, business)}<main id="main" class="narrow"><h1>${escape(words.thanksTitle)}</h1>` +
    `<p class="notice" role="status">${escape(fill(words.thanksText, { when, business: business.name }))}</p>` +
    `<p><a href="${PAGE_PATH}${token}?lang=${lang}">${escape(words.back)}: ${escape(title)}</a></p>` +
    mailto(words, business) +
    `</main></body></html>`
  );
}

/** The page of a public listing. */
function listingPage(
  token: string,
  page: Extract<ListingPage, { state: 'public' }>,
  state: FormState,
  submission: string,
  visit: { offer: Offer; state: ViewingState; submission: string },
): string {
  const { view, business, photos } = page;
  const words = view.words;
  const lang = view.lang;
  const parts: string[] = [];
  parts.push(`<h1 lang="${view.titleLang}">${escape(view.title)}</h1>`);
  if (view.kind) parts.push(`<p class="listing-kind">${escape(view.kind)}</p>`);
  if (view.prices.length) parts.push(`<p class="listing-price">${view.prices.map(escape).join(' · ')}</p>`);
  if (photos.length) {
    const items = photos.map((photo, i) => {
      const alt = photo.title ?? fill(words.photo, { n: i + 1, total: photos.length });
      const srcset =
        photo.widths.length > 1
          ? ` srcset="${photo.widths.map((w) => `${escape(w.url)} ${w.width}w`).join(', ')}" sizes="${i === 0 ? '(max-width: 48rem) 100vw, 48rem' : '(max-width: 48rem) 50vw, 16rem'}"`
          : '';
      return `<li${i === 0 ? ' class="primary"' : ''}><img src="${escape(photo.src)}"${srcset} alt="${escape(alt)}"${i === 0 ? '' : ' loading="lazy"'}></li>`;
    });
    parts.push(
      `<section aria-labelledby="h-photos"><h2 id="h-photos" class="visually-hidden">${escape(words.photos)}</h2><ul class="listing-photos">${items.join('')}</ul></section>`,
    );
  }
  const facts = view.facts.map((f) => `<dt>${escape(f.label)}</dt><dd>${escape(f.value)}</dd>`).join('');
  let energy = '';
  if (view.energy) {
    const rating = view.energy.rating;
    const body = rating
      ? `<ol class="energy-scale" aria-label="${escape(words.energyScale)}">${ENERGY_RATINGS.map(
          (r) =>
            `<li${r === rating ? ' aria-current="true"' : ''}><span class="energy-bar energy-${r}">${r}</span>${r === rating ? ` <span class="energy-this">← ${escape(words.energyThis)}</span>` : ''}</li>`,
        ).join('')}</ol>${view.energy.figures ? `<p class="hint">${escape(view.energy.figures)}</p>` : ''}`
      : `<p>${escape(view.energy.state ?? '')}</p>`;
    energy = `<h3>${escape(words.energy)}</h3>${body}`;
  }
  const location = view.location;
  const map = location.map
    ? `<p><a href="https://www.openstreetmap.org/?mlat=${location.map.lat}&amp;mlon=${location.map.lon}#map=${location.map.zoom}/${location.map.lat}/${location.map.lon}">${escape(words.map)}</a></p>`
    : '';
  parts.push(
    `<div class="listing-columns">` +
      `<section aria-labelledby="h-facts"><h2 id="h-facts">${escape(words.facts)}</h2>${facts ? `<dl>${facts}</dl>` : ''}${energy}</section>` +
      `<section aria-labelledby="h-location"><h2 id="h-location">${escape(location.heading)}</h2>` +
      location.lines.map((line) => `<p>${escape(line)}</p>`).join('') +
      (location.note ? `<p class="hint">${escape(location.note)}</p>` : '') +
      map +
      `</section></div>`,
  );
  // The description is the published HTML, already through the allowlist (domain/catalogue/html.ts).
  if (view.description) {
    parts.push(
      `<section aria-labelledby="h-description"><h2 id="h-description">${escape(words.description)}</h2><div class="listing-description" lang="${view.descriptionLang}">${view.description}</div></section>`,
    );
  }
  if (view.features.length) {
    parts.push(
      `<section aria-labelledby="h-features"><h2 id="h-features">${escape(words.featuresHeading)}</h2><ul class="listing-features">${view.features.map((f) => `<li>${escape(f)}</li>`).join('')}</ul></section>`,
    );
  }
  parts.push(
    `<section aria-labelledby="h-visit" id="visit" class="listing-contact"><h2 id="h-visit">${escape(words.visit)}</h2>` +
      viewingForm(token, lang, visit.offer, visit.state, visit.submission, business.name) +
      `</section>`,
  );
  parts.push(
    `<section aria-labelledby="h-contact" id="contact" class="listing-contact"><h2 id="h-contact">${escape(words.form)}</h2>` +
      `<p>${escape(fill(words.contactIntro, { business: business.name }))}</p>${mailto(words, business)}` +
      inquiryForm(token, lang, state, submission) +
      `</section>`,
  );
  return (
    head(lang, `${view.title} · ${business.name}`) +
    `<body class="listing-page">${top(token, lang, business)}<main id="main">${parts.join('')}</main>` +
    `<footer class="listing-foot"><p>${escape(fill(words.offeredBy, { business: business.name }))}</p></footer></body></html>`
  );
}

/**
 * Registers `GET /l/:file` (the page, or the sheet for `<token>.pdf`) and `POST /l/:file` (the
 * form) on an instance of their own (see the module's comment).
 * @param writes how the form's lead is written (a GroupCommit of the app's).
 * @param media where photos are kept and linked; @param publicUrl `INMO_PUBLIC_URL`, for the
 *   absolute page URL of the sheet's QR code and the lead's `sourcePage`.
 * @param postsPerIpPerMinute inquiries per client IP per minute (0: no limit).
 */
export const listingPageRoutes: FastifyPluginAsync<{
  db: Db;
  writes: LeadWrites;
  media: MediaOptions;
  publicUrl: string | null;
  onJobsQueued: () => void;
  /** Inquiries per client IP per minute (0: no limit). */
  postsPerIpPerMinute: number;
}> = async (app, { db, writes, media, publicUrl, onJobsQueued, postsPerIpPerMinute }) => {
  const policy = pagePolicy(media.publicUrl);
  /** A stored photo's URL on the page: on this server (relative, so it follows the page's origin) or on the media's public base. */
  const urlOf = (key: string) => (media.publicUrl !== null ? `${media.publicUrl}/${key}` : `/media/${key}`);
  const submissions = new LRUCache<string, true>({ max: SUBMISSIONS_KEPT, ttl: SUBMISSION_TTL_MS });
  const nonce = () => randomBytes(16).toString('hex');

  await app.register(rateLimit, { global: false });
  const perIp =
    postsPerIpPerMinute > 0
      ? app.createRateLimit({ max: postsPerIpPerMinute, timeWindow: 60_000, keyGenerator: (r) => `listing-page:${r.ip}` })
      : null;

  // The form's body as browsers send it; a body of any other type is read as an empty form (its faults, 422).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: FORM_MAX_BYTES }, (request, body, done) => {
    const form: Record<string, string> = {};
    if (/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      for (const [name, value] of new URLSearchParams(body as string)) if (!(name in form)) form[name] = value;
    }
    done(null, form);
  });

  const send = (reply: FastifyReply, status: number, html: string) =>
    reply.code(status).headers(headers(policy)).type('text/html; charset=utf-8').send(html);

  const blankVisit: ViewingState = { values: {}, faults: {}, notice: null };
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    state: FormState,
    status = 200,
    visit: ViewingState = blankVisit,
  ) => {
    const lang = languageOf(request);
    const page = await readListingPage(db, token, lang, urlOf);
    if (page === null) throw new InmoError('NOT_FOUND');
    if (page.state === 'gone') return send(reply, 410, gonePage(token, lang, page.business));
    const offer = await pageViewingSlots(db, page.businessId, page.propertyId);
    return send(reply, status, listingPage(token, page, state, nonce(), { offer, state: visit, submission: nonce() }));
  };

  /** The thank-you page of a viewing asked for at `ms`. */
  const thanks = async (request: FastifyRequest, reply: FastifyReply, token: string, ms: number) => {
    const lang = languageOf(request);
    const page = await readListingPage(db, token, lang, urlOf);
    if (page === null) throw new InmoError('NOT_FOUND');
    if (page.state === 'gone') return send(reply, 410, gonePage(token, lang, page.business));
    const { zone } = await pageViewingSlots(db, page.businessId, page.propertyId);
    return send(reply, 200, thanksPage(token, lang, page.business, page.view.title, localWords(ms, zone, lang).full));
  };

  /** Whether the client may post now (the inquiry form's limit, shared); when not, Retry-After is set. */
  const allowed = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    if (!perIp) return true;
    const verdict = await perIp(request);
    if (verdict.isAllowed || !verdict.isExceeded) return true;
    reply.header('retry-after', String(Math.max(1, verdict.ttlInSeconds)));
    request.errorCode = 'RATE_LIMITED';
    return false;
  };

  /**
   * The viewing form posted (`form=viewing`): limited, trapped and deduplicated as the inquiry
   * form; booked, then 303 to the thank-you page; refused, the page again with the faults
   * beside the fields and the slots as they are now (409 for a slot just taken, 422 otherwise).
   */
  const postViewing = async (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    lang: ListingLanguage,
    form: Record<string, string>,
  ) => {
    const values: PageViewingForm = { slot: form.slot, name: form.name, phone: form.phone, email: form.email, consent: form.consent };
    const blank: FormState = { values: {}, faults: {}, notice: null };
    if (!(await allowed(request, reply))) return show(request, reply, token, blank, 429, { values, faults: {}, notice: 'throttled' });
    if (typeof form.website === 'string' && form.website !== '') {
      if ((await readListingPage(db, token, lang, urlOf)) === null) throw new InmoError('NOT_FOUND');
      // Told what a person would be: thanked for the time chosen.
      const at = Date.parse(values.slot ?? '');
      const to = Number.isNaN(at) ? `sent=1#contact` : `visit=${at}`;
      return reply.code(303).header('location', `${PAGE_PATH}${token}?lang=${lang}&${to}`).send();
    }
    const submission =
      typeof form.submission === 'string' && /^[0-9a-f]{32}$/.test(form.submission) ? `${token}:v:${form.submission}` : null;
    if (submission !== null && submissions.has(submission))
      return reply.code(303).header('location', `${PAGE_PATH}${token}?lang=${lang}#visit`).send();
    if (submission !== null) submissions.set(submission, true);
    let result;
    try {
      result = await requestPageViewing(db, writes, token, values, {
        lang,
        pageUrl: `${serverOrigin(request, publicUrl)}${PAGE_PATH}${token}`,
      });
    } catch (error) {
      if (submission !== null) submissions.delete(submission);
      if (!(error instanceof InmoError)) throw error;
      request.errorCode = error.code;
      // The listing's requests of the last 24 hours are used up: said as the per-IP limit is.
      if (error.code === 'VIEWING_REQUESTS_LIMIT') {
        reply.headers(error.headers);
        return show(request, reply, token, blank, 429, { values, faults: {}, notice: 'throttled' });
      }
      return show(request, reply, token, blank, error.status, { values, faults: {}, notice: 'failed' });
    }
    if (result === null) {
      if (submission !== null) submissions.delete(submission);
      throw new InmoError('NOT_FOUND');
    }
    if (result.outcome !== 'sent') {
      if (submission !== null) submissions.delete(submission);
      if (result.outcome === 'gone') return show(request, reply, token, blank);
      const taken = result.faults.slot === 'taken';
      request.errorCode = taken ? 'VIEWING_SLOT_TAKEN' : 'PAGE_VIEWING_INVALID';
      // A slot no longer offered is not chosen again.
      const shown = result.faults.slot ? { ...values, slot: '' } : values;
      return show(request, reply, token, blank, taken ? 409 : 422, { values: shown, faults: result.faults, notice: 'fix' });
    }
    if (result.leadOutcome === 'created' || result.leadOutcome === 'completed') onJobsQueued();
    return reply.code(303).header('location', `${PAGE_PATH}${token}?lang=${lang}&visit=${result.startsAt}`).send();
  };

  app.get<{ Params: { file: string } }>(LISTING_PAGE_ROUTE, { schema: { hide: true } }, async (request, reply) => {
    const { token, pdf } = target(request.params.file);
    if (!pdf) {
      // After a viewing asked for (`visit` its start, epoch ms): the thank-you page.
      const visit = (request.query as Record<string, unknown>).visit;
      if (typeof visit === 'string' && /^\d{12,14}$/.test(visit)) return thanks(request, reply, token, Number(visit));
      const sent = (request.query as Record<string, unknown>).sent === '1';
      return show(request, reply, token, { values: {}, faults: {}, notice: sent ? 'sent' : null });
    }
    const lang = languageOf(request);
    const sheet = await publicListingSheet(db, media.store, token, lang, serverOrigin(request, publicUrl));
    if (sheet === null) throw new InmoError('NOT_FOUND');
    // Gone: the words of the page, as for the page itself.
    if (sheet === 'gone') return show(request, reply, token, { values: {}, faults: {}, notice: null });
    reply.headers(headers(policy)).header('cache-control', 'no-cache').header('etag', sheet.etag);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && noneMatch(ifNoneMatch, sheet.etag.slice(1, -1))) return reply.code(304).send();
    return reply
      .code(200)
      .header('content-type', 'application/pdf')
      .header('content-disposition', `inline; filename="${sheetFileName(sheet.title)}"`)
      .send(sheet.pdf);
  });

  app.post<{ Params: { file: string }; Body: Record<string, string> | undefined }>(
    LISTING_PAGE_ROUTE,
    { schema: { hide: true }, bodyLimit: FORM_MAX_BYTES },
    async (request, reply) => {
      const { token, pdf } = target(request.params.file);
      if (pdf) throw new InmoError('NOT_FOUND');
      const lang = languageOf(request);
      const form = request.body ?? {};
      if (form.form === 'viewing') return postViewing(request, reply, token, lang, form);
      const values: PageInquiryForm = {
        name: form.name,
        phone: form.phone,
        email: form.email,
        message: form.message,
        consent: form.consent,
      };
      const back = () => reply.code(303).header('location', `${PAGE_PATH}${token}?lang=${lang}&sent=1#contact`).send();
      if (!(await allowed(request, reply))) return show(request, reply, token, { values, faults: {}, notice: 'throttled' }, 429);
      // A program that filled the field people never see is told what a person would be, and nothing is stored.
      if (typeof form.website === 'string' && form.website !== '') {
        if ((await readListingPage(db, token, lang, urlOf)) === null) throw new InmoError('NOT_FOUND');
        return back();
      }
      const submission =
        typeof form.submission === 'string' && /^[0-9a-f]{32}$/.test(form.submission) ? `${token}:${form.submission}` : null;
      if (submission !== null && submissions.has(submission)) return back();
      if (submission !== null) submissions.set(submission, true);
      let result;
      try {
        result = await sendPageInquiry(db, writes, token, values, {
          lang,
          pageUrl: `${serverOrigin(request, publicUrl)}${PAGE_PATH}${token}`,
        });
      } catch (error) {
        if (submission !== null) submissions.delete(submission);
        if (!(error instanceof InmoError)) throw error;
        request.errorCode = error.code;
        return show(request, reply, token, { values, faults: {}, notice: 'failed' }, error.status);
      }
      if (result === null) {
        if (submission !== null) submissions.delete(submission);
        throw new InmoError('NOT_FOUND');
      }
      if (result.outcome !== 'sent') {
        if (submission !== null) submissions.delete(submission);
        if (result.outcome === 'gone') return show(request, reply, token, { values: {}, faults: {}, notice: null });
        request.errorCode = 'PAGE_INQUIRY_INVALID';
        return show(request, reply, token, { values, faults: result.faults, notice: 'fix' }, 422);
      }
      if (result.leadOutcome !== 'known') onJobsQueued();
      return back();
    },
  );
};
