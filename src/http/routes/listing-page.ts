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
 * The pages are the Eta templates `views/listing.eta`, `listing-gone.eta` and `listing-thanks.eta`
 * (http/public-pages.ts renders them as the console renders its own); this module gives them
 * their values as plain text. An error of the catalogue that a form's service throws is the page
 * again, at the error's status (the plugin's error handler): the route chooses no status.
 *
 * A listing no longer in the public catalogue (sold, rented, withdrawn, made private) answers
 * 410 with a short page in words, for the page, the sheet and the form; a token no listing has
 * is 404 `Not Found`, as any unknown path. The token is never logged: the request's log line
 * names the route's pattern.
 */
import { randomBytes } from 'node:crypto';
import { isPersonView, type ListingViews } from '../../services/catalogue/listing-views.ts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { urlEncodedForms } from '../form-body.ts';
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

declare module 'fastify' {
  interface FastifyRequest {
    /** The form whose post is being handed to its service: what its page shows again if the service throws. */
    pageForm: PageFormPost | null;
  }
}

/** A form's post being handed to its service (see the plugin's error handler). */
type PageFormPost =
  | { kind: 'inquiry'; token: string; values: PageInquiryForm; submission: string | null }
  | { kind: 'viewing'; token: string; values: PageViewingForm; submission: string | null };

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

/** The bar at the top of every page of a listing (`views/_listing-top.eta`): the agency's name, and the page in each language. */
function topOf(token: string, lang: ListingLanguage, business: BusinessContact) {
  return {
    brand: business.name,
    navLabel: LISTING_WORDS[lang].languages,
    languages: LISTING_LANGUAGES.map((l) => ({
      href: `${PAGE_PATH}${token}?lang=${l}`,
      lang: l,
      name: LISTING_WORDS[l].languageName,
      current: l === lang,
    })),
  };
}

/** The agency's e-mail address as a link (`views/_listing-mailto.eta`), when it has one. */
function mailtoOf(words: ListingWords, business: BusinessContact) {
  return { label: words.email, email: business.email };
}

/** What the layout (`views/layout.eta`) is given for a page of a listing. */
function layoutOf(lang: ListingLanguage, title: string, bodyClass: string | null = null) {
  return { lang, title, icon: true, bodyClass };
}

/** The page of a listing no longer offered (410): `views/listing-gone.eta`. */
function gonePage(token: string, lang: ListingLanguage, business: BusinessContact) {
  const words = LISTING_WORDS[lang];
  return {
    ...layoutOf(lang, `${words.goneTitle} · ${business.name}`),
    top: topOf(token, lang, business),
    heading: words.goneTitle,
    text: fill(words.goneText, { business: business.name }),
    contact: words.goneContact,
    mailto: mailtoOf(words, business),
  };
}

/** One field of a page's form (`views/_listing-field.eta`), with what was typed and its fault in words. */
interface FormField {
  id: string;
  name: string;
  label: string;
  /** The "optional" hint, or null for a required field. */
  optional: string | null;
  type: string | null;
  autocomplete: string;
  required: boolean;
  maxlength: number;
  multiline: boolean;
  value: string;
  problem: string | null;
  problemId: string;
}

/**
 * The name, phone and e-mail fields of both forms (ids prefixed `f-`/`v-`, faults `e-`/`ve-`),
 * and the inquiry form's message.
 */
function contactFields(
  words: ListingWords,
  prefix: { id: string; fault: string },
  values: { name?: string; phone?: string; email?: string; message?: string },
  problem: (name: 'name' | 'phone' | 'email' | 'message') => string | null,
  withMessage: boolean,
): FormField[] {
  const field = (
    name: 'name' | 'phone' | 'email' | 'message',
    label: string,
    rest: Pick<FormField, 'type' | 'autocomplete' | 'required' | 'maxlength'> & { optional?: boolean; multiline?: boolean },
  ): FormField => ({
    id: `${prefix.id}-${name}`,
    name,
    label,
    optional: rest.optional ? words.optional : null,
    type: rest.type,
    autocomplete: rest.autocomplete,
    required: rest.required,
    maxlength: rest.maxlength,
    multiline: rest.multiline ?? false,
    value: values[name] ?? '',
    problem: problem(name),
    problemId: `${prefix.fault}-${name}`,
  });
  const fields = [
    field('name', words.name, { type: null, autocomplete: 'name', required: true, maxlength: NAME_MAX }),
    field('phone', words.phone, { type: 'tel', autocomplete: 'tel', required: true, maxlength: 64 }),
    field('email', words.email, { type: 'email', autocomplete: 'email', required: false, maxlength: EMAIL_MAX, optional: true }),
  ];
  if (withMessage)
    fields.push(
      field('message', words.message, {
        type: null,
        autocomplete: '',
        required: false,
        maxlength: MESSAGE_MAX,
        optional: true,
        multiline: true,
      }),
    );
  return fields;
}

/** The inquiry form (`views/_listing-inquiry.eta`), with what was sent and its faults after a refusal. */
function inquiryForm(token: string, lang: ListingLanguage, state: FormState, submission: string) {
  const words = LISTING_WORDS[lang];
  const problem = (name: keyof PageInquiryFaults) => {
    const fault = state.faults[name];
    return fault ? faultText(words, fault) : null;
  };
  const notice =
    state.notice === 'sent'
      ? { kind: 'notice', role: 'status', text: words.sent }
      : state.notice
        ? { kind: 'problem', role: 'alert', text: words[state.notice] }
        : null;
  return {
    notice,
    sent: state.notice === 'sent',
    action: `${PAGE_PATH}${token}?lang=${lang}#contact`,
    fields: contactFields(words, { id: 'f', fault: 'e' }, state.values, problem, true),
    trap: words.trap,
    consent: { label: words.consent, checked: state.values.consent === '1', problem: problem('consent'), problemId: 'e-consent' },
    submission,
    button: words.send,
  };
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
 * The viewing form (`views/_listing-viewing.eta`, CONTRACT §21, §20): the free slots of the next
 * 7 days grouped by day in the business's time zone, name, phone, optional e-mail, consent;
 * faults beside the fields.
 */
function viewingForm(token: string, lang: ListingLanguage, offer: Offer, state: ViewingState, submission: string, business: string) {
  const words = LISTING_WORDS[lang];
  const problem = (name: keyof PageViewingFaults) => {
    const fault = state.faults[name];
    if (!fault) return null;
    return name === 'slot' ? slotFaultText(words, fault as SlotFault) : faultText(words, fault as PageInquiryFault);
  };
  const days = new Map<string, Array<{ value: string; time: string; selected: boolean }>>();
  for (const slot of offer.slots) {
    const { day, time } = localWords(slot.start, offer.zone, lang);
    const stamp = toLocalRfc3339(slot.start, offer.zone);
    const options = days.get(day) ?? [];
    options.push({ value: stamp, time, selected: state.values.slot === stamp });
    days.set(day, options);
  }
  return {
    intro: fill(words.visitIntro, { business }),
    notice: state.notice ? words[state.notice] : null,
    noSlots: words.noSlots,
    // Null when no slot is free: the form is not shown.
    slots:
      offer.slots.length === 0
        ? null
        : {
            label: words.slot,
            choose: words.slotChoose,
            days: [...days].map(([label, options]) => ({ label, options })),
            problem: problem('slot'),
          },
    action: `${PAGE_PATH}${token}?lang=${lang}#visit`,
    fields: contactFields(words, { id: 'v', fault: 've' }, state.values, (name) => (name === 'message' ? null : problem(name)), false),
    trap: words.trap,
    consent: { label: words.visitConsent, checked: state.values.consent === '1', problem: problem('consent'), problemId: 've-consent' },
    submission,
    button: words.visitSend,
  };
}

/** The thank-you page of a viewing asked for, in the page's language: `views/listing-thanks.eta`. */
function thanksPage(token: string, lang: ListingLanguage, business: BusinessContact, title: string, when: string) {
  const words = LISTING_WORDS[lang];
  return {
    ...layoutOf(lang, `${words.thanksTitle} · ${business.name}`),
    top: topOf(token, lang, business),
    heading: words.thanksTitle,
    text: fill(words.thanksText, { when, business: business.name }),
    back: { href: `${PAGE_PATH}${token}?lang=${lang}`, text: `${words.back}: ${title}` },
    mailto: mailtoOf(words, business),
  };
}

/** The page of a public listing: `views/listing.eta`. */
function listingPage(
  token: string,
  page: Extract<ListingPage, { state: 'public' }>,
  state: FormState,
  submission: string,
  visit: { offer: Offer; state: ViewingState; submission: string },
) {
  const { view, business, photos } = page;
  const words = view.words;
  const lang = view.lang;
  return {
    ...layoutOf(lang, `${view.title} · ${business.name}`, 'listing-page'),
    top: topOf(token, lang, business),
    view,
    words,
    photos: photos.map((photo, i) => ({
      primary: i === 0,
      src: photo.src,
      alt: photo.title ?? fill(words.photo, { n: i + 1, total: photos.length }),
      srcset: photo.widths.length > 1 ? photo.widths.map((w) => `${w.url} ${w.width}w`).join(', ') : null,
      sizes: i === 0 ? '(max-width: 48rem) 100vw, 48rem' : '(max-width: 48rem) 50vw, 16rem',
    })),
    energy: view.energy ? { ...view.energy, scale: ENERGY_RATINGS } : null,
    viewing: viewingForm(token, lang, visit.offer, visit.state, visit.submission, business.name),
    contactIntro: fill(words.contactIntro, { business: business.name }),
    mailto: mailtoOf(words, business),
    inquiry: inquiryForm(token, lang, state, submission),
    offeredBy: fill(words.offeredBy, { business: business.name }),
  };
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
  /** Where the page's views are counted for the owner's report (CONTRACT §24). */
  listingViews: ListingViews;
  publicUrl: string | null;
  onJobsQueued: () => void;
  /** Inquiries per client IP per minute (0: no limit). */
  postsPerIpPerMinute: number;
}> = async (app, { db, writes, media, listingViews, publicUrl, onJobsQueued, postsPerIpPerMinute }) => {
  const policy = pagePolicy(media.publicUrl);
  /** A stored photo's URL on the page: on this server (relative, so it follows the page's origin) or on the media's public base. */
  const urlOf = (key: string) => (media.publicUrl !== null ? `${media.publicUrl}/${key}` : `/media/${key}`);
  const submissions = new LRUCache<string, true>({ max: SUBMISSIONS_KEPT, ttl: SUBMISSION_TTL_MS });
  const nonce = () => randomBytes(16).toString('hex');

  app.decorateRequest('pageForm', null);
  await app.register(rateLimit, { global: false });
  const perIp =
    postsPerIpPerMinute > 0
      ? app.createRateLimit({ max: postsPerIpPerMinute, timeWindow: 60_000, keyGenerator: (r) => `listing-page:${r.ip}` })
      : null;

  // The form's body as browsers send it; a body of any other type is read as an empty form (its faults, 422).
  urlEncodedForms(app, FORM_MAX_BYTES);

  /** Renders a template of `views/` (http/public-pages.ts) with the pages' headers. */
  const send = (reply: FastifyReply, status: number, template: string, data: object) =>
    reply.code(status).headers(headers(policy)).type('text/html; charset=utf-8').view(template, data);

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
    if (page.state === 'gone') return send(reply, 410, 'listing-gone.eta', gonePage(token, lang, page.business));
    const offer = await pageViewingSlots(db, page.businessId, page.propertyId);
    // A person's first sight of the page (not a form shown again, not a crawler or a preview).
    if (status === 200 && state.notice === null && isPersonView(request.method, request.headers)) {
      listingViews.count(page.propertyId, 'page');
    }
    return send(reply, status, 'listing.eta', listingPage(token, page, state, nonce(), { offer, state: visit, submission: nonce() }));
  };

  /** The thank-you page of a viewing asked for at `ms`. */
  const thanks = async (request: FastifyRequest, reply: FastifyReply, token: string, ms: number) => {
    const lang = languageOf(request);
    const page = await readListingPage(db, token, lang, urlOf);
    if (page === null) throw new InmoError('NOT_FOUND');
    if (page.state === 'gone') return send(reply, 410, 'listing-gone.eta', gonePage(token, lang, page.business));
    const { zone } = await pageViewingSlots(db, page.businessId, page.propertyId);
    return send(reply, 200, 'listing-thanks.eta', thanksPage(token, lang, page.business, page.view.title, localWords(ms, zone, lang).full));
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
   * An error of the catalogue thrown while a form's post is handed to its service (the request's
   * `pageForm`): the page again at the error's status and with its headers, the form as it was
   * posted and a notice (for `VIEWING_REQUESTS_LIMIT`, the listing's requests of the last 24 hours
   * used up, the words of the per-IP limit). The route chooses no status: the catalogue does
   * (issue 12's rule). Any other error, or one outside a post, goes to the app's handler.
   */
  app.setErrorHandler(async (error, request, reply) => {
    const form = request.pageForm;
    request.pageForm = null;
    if (form?.submission) submissions.delete(form.submission);
    if (!form || !(error instanceof InmoError)) throw error;
    request.errorCode = error.code;
    reply.headers(error.headers);
    const blank: FormState = { values: {}, faults: {}, notice: null };
    const notice = error.code === 'VIEWING_REQUESTS_LIMIT' ? 'throttled' : 'failed';
    if (form.kind === 'viewing') return show(request, reply, form.token, blank, error.status, { values: form.values, faults: {}, notice });
    return show(request, reply, form.token, { values: form.values, faults: {}, notice }, error.status);
  });

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
    // An error of the service is the page again, by the plugin's error handler.
    request.pageForm = { kind: 'viewing', token, values, submission };
    const result = await requestPageViewing(db, writes, token, values, {
      lang,
      pageUrl: `${serverOrigin(request, publicUrl)}${PAGE_PATH}${token}`,
    });
    request.pageForm = null;
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
      // An error of the service is the page again, by the plugin's error handler.
      request.pageForm = { kind: 'inquiry', token, values, submission };
      const result = await sendPageInquiry(db, writes, token, values, {
        lang,
        pageUrl: `${serverOrigin(request, publicUrl)}${PAGE_PATH}${token}`,
      });
      request.pageForm = null;
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
