/**
 * Listings (both roles, CONTRACT §14): `GET /properties` (query `q`, `status`, `operation`,
 * `type`, `page`), `GET /properties/new`, `GET /properties/:id` (the listing, its photos, its
 * public preview and its form); `POST /properties` creates and `POST /properties/:id` edits (the
 * import format's field names, schemas/console-forms.ts `ListingForm`), 303 to the listing's
 * page, or 422 with each fault beside its field and nothing stored (the title and description in
 * five languages, the energy certificate and the facts of CONTRACT §22 included); one-click changes:
 * `POST /properties/:id/status` (`status`; for sold and rented also `closed_price` and
 * `closed_on`, asked by `GET /properties/:id/close?status=`), `/public` and `/featured` (`value`
 * `1` or `0`), and the list's one control per row, `POST /properties/:id/action` (`action`).
 *
 * The list (CONTRACT §23): a thumbnail per row (the first photo's smallest width), sorted by
 * date, price or reference (`sort`, `dir`; links in the column headers, kept with the search and
 * filters), and `POST /properties/bulk` (`action`, `ids`): publish, unpublish, feature,
 * unfeature or withdraw the listings ticked, all or none (409 naming those it cannot apply to).
 * Every 4xx stores nothing.
 *
 * The listing's viewings, and `POST /properties/:id/viewings` books one (viewing-form.ts: `lead_id`,
 * chosen among the newest leads or those `GET /properties/:id?lead_q=` finds, `date`, `time`,
 * `duration_minutes`, `user_id`), 303 to the page's viewings, or the page again with the
 * reasons (422), nothing stored.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ADDRESS_PRIVACY,
  FEATURES,
  OPERATIONS,
  PROPERTY_STATUSES,
  PROPERTY_TYPES,
  RENTAL_TYPES,
  SUBTYPES,
} from '../../../domain/catalogue/terms.ts';
import type { ListingRecord } from '../../../domain/catalogue/property-record.ts';
import {
  heldTexts,
  languageState,
  LISTING_LANGUAGES,
  listingLanguage,
  type LanguageState,
  type ListingLanguage,
  type StoredTexts,
} from '../../../domain/catalogue/languages.ts';
import { CERTIFICATE_STATUSES, CONDITIONS, ENERGY_RATINGS, listingFacts } from '../../../domain/catalogue/listing-facts.ts';
import { InmoError } from '../../../errors.ts';
import {
  ListingBulkForm,
  ListingForm,
  ListingRowActionForm,
  ListingStatusForm,
  ListingSwitchForm,
  PhotoForm,
} from '../../../schemas/console-forms.ts';
import { MAX_PHOTO_BYTES, PHOTO_WIDTHS, photoAtWidth, PhotoRefusedError, type PhotoRefusal } from '../../../media/photos.ts';
import { isClosingStatus, type ClosingFault } from '../../../domain/catalogue/closing.ts';
import { businessClock } from '../../../services/viewings/clock.ts';
import { kitPreview } from '../kit-preview.ts';
import { addPhotos, changePhoto, PHOTO_ACTIONS, type PhotoAction } from '../../../services/catalogue/photos.ts';
import { mediaUrl } from '../../media.ts';
import { serverOrigin } from '../../origin.ts';
import { listingPageToken, PAGE_PATH } from '../../../services/catalogue/listing-page.ts';
import { consoleListingSheet, sheetFileName } from '../../../services/catalogue/listing-sheet.ts';
import { receiveUploads } from '../uploads.ts';
import {
  BULK_ACTIONS,
  BULK_MAX,
  LISTING_SORT_KEYS,
  type ListingSortKey,
  bulkChangeListings,
  businessToday,
  ClosingInvalidError,
  LISTINGS_PER_PAGE,
  ListingActionRefusedError,
  ListingInvalidError,
  listingsPage,
  moveListing,
  saveListing,
  listingInFull,
  STATUS_MOVES,
  SWITCHABLE_STATUSES,
  switchListing,
  type BulkAction,
  type ListingFault,
  type ListingSearch,
} from '../../../services/catalogue/listings.ts';
import type { MessageKey, Translate } from '../i18n.ts';
import { importFaultText } from '../import-faults.ts';
import { importFault } from '../../../domain/catalogue/import-faults.ts';
import { LISTING_FIELD_LABEL, labelOf, PROPERTY_STATUS_LABEL, STATUS_MOVE_LABEL } from '../labels.ts';
import { render, sendPdf } from '../page.ts';
import { csrfCheckedRoute, field, idParam, query, readForm, type ConsoleDeps } from '../forms.ts';
import { linkListingOwner, listingOwner, OWNER_TYPE } from '../../../services/catalogue/listing-owners.ts';
import { businessTime } from '../local-time.ts';
import { bookFromForm, newViewingForm, type ViewingFormState } from '../viewing-form.ts';
import { leadChoices } from '../../../services/leads/leads.ts';
import { assignableUsers } from '../../../services/leads/pipeline.ts';
import { viewingsOf } from '../../../services/viewings/console.ts';

/** Leads offered by the listing page's viewing form. */
const LEAD_CHOICES = 50;

/** The number fields of the form: € for prices, m² for the size, decimal degrees for the position. */
const NUMBER_FIELDS = ['price', 'price_rent', 'price_transfer', 'size_total', 'lat', 'lon'] as const;
const INTEGER_FIELDS = ['bedrooms', 'bathrooms'] as const;
const TEXT_FIELDS = [
  'external_ref',
  'title',
  'description',
  'rental_type',
  'type',
  'subtype',
  'address',
  'address_approximate',
  'building_name',
  'postal_code',
  'city',
  'province',
  'country',
  'address_privacy',
  'status',
] as const;

/** The languages of the form other than Spanish (whose texts are `title` and `description`). */
const OTHER_LANGUAGES = LISTING_LANGUAGES.filter((lang) => lang !== 'es');
/** The form's fields of the texts in other languages: `titles.en`, `descriptions.en`… */
const LANGUAGE_FIELDS = OTHER_LANGUAGES.flatMap((lang) => [`titles.${lang}`, `descriptions.${lang}`] as const);
/** The parts of the energy certificate, each a field `energy_certificate.<part>`. */
const CERTIFICATE_PARTS = ['status', 'rating', 'consumption_kwh_m2_year', 'emissions_kg_co2_m2_year'] as const;
const CERTIFICATE_FIELDS = CERTIFICATE_PARTS.map((part) => `energy_certificate.${part}` as const);
/** The facts kept in `specs` that the form writes as they are typed (the certificate apart). */
const FACT_FIELDS = ['floor', 'community_fees', 'year_built', 'condition'] as const;

/** Whether a form post carries a field at all (even empty): a field left out keeps what is stored. */
const sent = (body: unknown, name: string) => typeof body === 'object' && body !== null && Object.hasOwn(body, name);

/** How far a stored listing is written in each language, in {@link LISTING_LANGUAGES} order. */
function heldLanguages(fields: StoredTexts): Array<{ lang: ListingLanguage; state: LanguageState }> {
  const titles = heldTexts(fields.title, fields.titles);
  const descriptions = heldTexts(fields.description, fields.descriptions);
  return LISTING_LANGUAGES.map((lang) => ({ lang, state: languageState(lang, titles[lang] ?? '', descriptions[lang] ?? '') }));
}

/**
 * A number as people type it in Spain or elsewhere: `250000`, `250.000` (thousands), `82,5`,
 * `1.250,50`, `82.5`, with spaces or a `€`. Empty is null; anything else is kept as typed, for
 * the import format's check to refuse with its reason.
 */
export function typedNumber(text: string): number | string | null {
  const bare = text.replace(/[\s€]/g, '');
  if (bare === '') return null;
  let canonical = bare;
  if (/^-?\d{1,3}(\.\d{3})+(,\d+)?$/.test(bare)) canonical = bare.replace(/\./g, '').replace(',', '.');
  else if (/^-?\d+,\d+$/.test(bare)) canonical = bare.replace(',', '.');
  return /^-?(\d+\.?\d*|\.\d+)$/.test(canonical) ? Number(canonical) : text;
}

/**
 * The import line a listing form stands for (CONTRACT §14): its fields over the stored line of
 * the listing (media, specs and features the form does not offer are kept). An empty field is
 * null; checked boxes are the operations and the features; `public` and `is_featured` are `1`.
 */
export function recordFromForm(body: unknown, stored: ListingRecord | null): Record<string, unknown> {
  const { value } = readForm(body, ListingForm);
  const record: Record<string, unknown> = { ...(stored ?? {}) };
  for (const name of TEXT_FIELDS) record[name] = value[name].trim() === '' ? null : value[name].trim();
  for (const name of [...NUMBER_FIELDS, ...INTEGER_FIELDS]) record[name] = typedNumber(value[name]);
  record.operation = value.operation.length ? value.operation.join(',') : null;
  record.public = value.public === '1';
  record.is_featured = value.is_featured === '1';
  // Features: those of the catalogue's terms as the form names them; others kept as they came.
  const storedFeatures = new Map((stored?.features ?? []).map((f) => [f.key, f]));
  const features = [...new Set(value.features)].map(
    (key) => storedFeatures.get(key) ?? { key, label: FEATURES[key]?.label ?? key, value: true, isextra: FEATURES[key]?.isextra ?? false },
  );
  record.features = features.length ? features : null;
  // Texts in other languages (CONTRACT §22): `title`/`description` are the Spanish ones, so `titles.es` is never sent.
  for (const field of ['titles', 'descriptions'] as const) {
    const held = (stored?.[field] ?? {}) as Partial<Record<string, string | null>>;
    const texts: Partial<Record<ListingLanguage, string>> = {};
    for (const lang of OTHER_LANGUAGES) {
      const name = `${field}.${lang}` as const;
      const text = (sent(body, name) ? value[name] : (held[lang] ?? '')).trim();
      if (text !== '') texts[lang] = text;
    }
    record[field] = Object.keys(texts).length ? texts : null;
  }
  record.specs = specsFromForm(body, value, stored?.specs ?? null);
  return record;
}

/**
 * A listing's `specs` with the facts of the form (domain/catalogue/listing-facts.ts): each fact
 * the form sends replaces the stored one where it stands, or is added after the other keys; an
 * empty one is removed (not stated); one the form leaves out is kept. Numbers as people type
 * them ({@link typedNumber}); a floor unchanged keeps its stored form (a number stays a number),
 * a new one is kept as typed. The import's rules check them all when the line is saved.
 */
function specsFromForm(
  body: unknown,
  value: ReturnType<typeof formValues>,
  stored: Record<string, unknown> | null,
): Record<string, unknown> | null {
  const specs: Record<string, unknown> = { ...(stored ?? {}) };
  const put = (key: string, fact: unknown) => {
    if (fact === null) delete specs[key];
    else specs[key] = fact;
  };
  if (CERTIFICATE_FIELDS.some((name) => sent(body, name))) {
    const part = (name: (typeof CERTIFICATE_PARTS)[number]) => value[`energy_certificate.${name}`].trim();
    const certificate = {
      status: part('status') || null,
      rating: part('rating') || null,
      consumption_kwh_m2_year: typedNumber(part('consumption_kwh_m2_year')),
      emissions_kg_co2_m2_year: typedNumber(part('emissions_kg_co2_m2_year')),
    };
    put('energy_certificate', Object.values(certificate).every((v) => v === null) ? null : certificate);
  }
  if (sent(body, 'floor')) {
    const floor = value.floor.trim();
    put(
      'floor',
      floor === '' ? null : specs.floor !== undefined && specs.floor !== null && String(specs.floor) === floor ? specs.floor : floor,
    );
  }
  for (const name of ['community_fees', 'year_built'] as const) if (sent(body, name)) put(name, typedNumber(value[name]));
  if (sent(body, 'condition')) put('condition', value.condition.trim() || null);
  return Object.keys(specs).length ? specs : null;
}

/**
 * The form's field a fault of the import line is shown beside: its own, or for `titles.es` and
 * `descriptions.es` the Spanish `title` and `description`; a part of the line the form has no
 * field for (a photo's URL, a key of `specs`) is shown at the top, beside the reference, as before.
 */
function formField(field: string): string {
  if (field === 'titles.es' || field === 'descriptions.es') return field.startsWith('titles') ? 'title' : 'description';
  return Object.hasOwn(LISTING_FIELD_LABEL, field) ? field : 'external_ref';
}

/**
 * A sale or rental asked of the listing form (its status field moved to `vendida` or
 * `alquilada`): refused beside the field, since only the page that asks for the price and the
 * day records one (CONTRACT §23, `/console/properties/{id}/close`); null for any other status,
 * or the one the listing already has.
 */
function closingFromForm(body: unknown, current: string | null | undefined): ListingFault | null {
  const status = (body as { status?: unknown } | null)?.status;
  if ((status === 'vendida' || status === 'alquilada') && status !== current) return { field: 'status', type: 'closing' };
  return null;
}

/**
 * What a fault tells the user beside its field: the words of a rejected import line
 * (import-faults.ts), but where the form offers a list ("Choose one of the options").
 */
function faultText(t: Translate, fault: ListingFault): string {
  if (fault.type === 'taken') return t('listing_fault_taken');
  if (fault.type === 'closing') return t('listing_fault_closing');
  const rule = fault.type === 'fact' ? `fact_${fault.kind}` : fault.type === 'rule' ? fault.rule : fault.type;
  if (rule === undefined) return t('listing_fault_invalid');
  if (rule === 'literal_error' || rule === 'choice' || rule === 'fact_choice') return t('listing_fault_choice');
  return importFaultText(t, importFault(fault.field, rule, fault.ctx));
}

/** The form's values as sent, to show again (every field as text). */
function formValues(body: unknown) {
  return readForm(body, ListingForm).value;
}

/** The stored line as the form's values. */
function valuesOf(record: ListingRecord) {
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const facts = listingFacts(record.specs);
  const certificate = facts.energy_certificate;
  return {
    ...Object.fromEntries([...TEXT_FIELDS, ...NUMBER_FIELDS, ...INTEGER_FIELDS].map((name) => [name, text(record[name])])),
    ...Object.fromEntries(
      LANGUAGE_FIELDS.map((name) => {
        const [field, lang] = name.split('.') as ['titles' | 'descriptions', ListingLanguage];
        return [name, text(record[field]?.[lang])];
      }),
    ),
    ...Object.fromEntries(CERTIFICATE_PARTS.map((part) => [`energy_certificate.${part}`, text(certificate?.[part])])),
    ...Object.fromEntries(FACT_FIELDS.map((name) => [name, text(facts[name])])),
    operation: record.operation ? record.operation.split(',') : [],
    public: record.public ? '1' : '',
    is_featured: record.is_featured ? '1' : '',
    features: (record.features ?? []).map((f) => f.key),
  } as ReturnType<typeof formValues>;
}

/** A new listing's form: available, public, the area published. */
const NEW_LISTING = valuesOf({ external_ref: '', status: 'disponible', public: true, address_privacy: 'approximate', country: 'España' });

/** Prices as es-ES (or en) currency, whole euros. */
const euros = (lang: string) => {
  const format = new Intl.NumberFormat(lang === 'en' ? 'en-GB' : 'es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
  return (n: number | null) => (n === null ? '—' : format.format(n));
};

/** A day (`YYYY-MM-DD`) in words: `27 de noviembre de 2026`, `27 November 2026`. */
const longDay = (lang: string, day: string) =>
  new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** Photos taken in one upload. */
const PHOTOS_PER_UPLOAD = 20;

/** What a refused photo tells the agent. */
const PHOTO_REFUSALS: Record<PhotoRefusal, MessageKey> = {
  format: 'photo_refused_format',
  too_large: 'photo_refused_too_large',
  too_many_pixels: 'photo_refused_too_many_pixels',
  too_large_dimensions: 'photo_refused_too_large_dimensions',
  truncated: 'photo_refused_truncated',
};

/** The first direction of each sort: newest, cheapest, A to Z. */
const SORT_DEFAULT_DIR: Record<ListingSortKey, 'asc' | 'desc'> = { date: 'desc', price: 'asc', ref: 'asc' };

/** The filters of a list URL's query, as its links and forms carry them. */
type ListFilters = { q: string; status: string; operation: string; type: string };

/**
 * The search, sort and page a list URL's query names (`q`, `status`, `operation`, `type`,
 * `sort`, `dir`, `page`); a value the list does not know is ignored.
 */
function listQuery(q: Record<string, string | undefined>): { search: ListingSearch; page: number; filters: ListFilters } {
  const key = (LISTING_SORT_KEYS as readonly string[]).includes(q.sort ?? '') ? (q.sort as ListingSortKey) : 'date';
  const dir = q.dir === 'asc' || q.dir === 'desc' ? q.dir : SORT_DEFAULT_DIR[key];
  const search: ListingSearch = {
    text: q.q?.trim() || undefined,
    status: (PROPERTY_STATUSES as readonly string[]).includes(q.status ?? '') ? q.status : undefined,
    operation: (OPERATIONS as readonly string[]).includes(q.operation ?? '') ? (q.operation as ListingSearch['operation']) : undefined,
    type: (PROPERTY_TYPES as readonly string[]).includes(q.type ?? '') ? q.type : undefined,
    sort: { key, dir },
  };
  const page = Math.max(1, Math.min(1_000_000, Number.parseInt(q.page ?? '1', 10) || 1));
  return {
    search,
    page,
    filters: { q: search.text ?? '', status: search.status ?? '', operation: search.operation ?? '', type: search.type ?? '' },
  };
}

/** The query parameters of a sort: none for the default (newest first). */
const sortParams = (sort: { key: ListingSortKey; dir: 'asc' | 'desc' }): Record<string, string> =>
  sort.key === 'date' && sort.dir === 'desc' ? {} : { sort: sort.key, dir: sort.dir };

/** The list's URL with these parameters (empty ones left out). */
function listUrl(params: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '')).toString();
  return `/console/properties${query ? `?${query}` : ''}`;
}

/** Where a bulk action returns: the list it was sent from, never elsewhere. */
const listBack = (back: string) => (/^\/console\/properties(\?[^\s#]*)?$/.test(back) ? back : '/console/properties');

/** The words of each bulk action, in the list's menu and its messages. */
const BULK_ACTION_LABEL: Record<BulkAction, MessageKey> = {
  publish: 'property_make_public',
  unpublish: 'property_make_private',
  feature: 'property_feature',
  unfeature: 'property_unfeature',
  withdraw: 'move_retirada',
};

/** What the list says after a bulk action (`done`, `changed`, `unchanged` of its URL), or null. */
const BULK_DONE: Record<BulkAction, MessageKey> = {
  publish: 'bulk_done_publish',
  unpublish: 'bulk_done_unpublish',
  feature: 'bulk_done_feature',
  unfeature: 'bulk_done_unfeature',
  withdraw: 'bulk_done_withdraw',
};
function bulkNotice(t: Translate, q: Record<string, string | undefined>): string | null {
  if (!(BULK_ACTIONS as readonly string[]).includes(q.done ?? '')) return null;
  const count = (text: string | undefined) => (/^\d{1,4}$/.test(text ?? '') ? Number(text) : 0);
  const changed = count(q.changed);
  const unchanged = count(q.unchanged);
  const said = t(BULK_DONE[q.done as BulkAction], { n: changed });
  return unchanged > 0 ? `${said} ${t('bulk_unchanged', { n: unchanged })}` : said;
}

/**
 * The one-click moves offered for a listing of `status` and `operation` (the comma-separated
 * operations): {@link STATUS_MOVES}, with sold only for a sale or transfer and rented only for a
 * rental (any, for a listing that states none).
 */
function offeredMoves(status: string, operation: string | null): readonly string[] {
  const sells = operation === null || /venta|traspaso/.test(operation);
  const rents = operation === null || operation.includes('alquiler');
  return (STATUS_MOVES[status] ?? []).filter((s) => (s !== 'vendida' || sells) && (s !== 'alquilada' || rents));
}

/**
 * The one control of a listing's row (CONTRACT §23): its one-click moves (sold and rented only
 * where its operations allow, each asking for the price and day next), then publish or stop,
 * feature or stop. None for a sold, rented or withdrawn listing: an edit changes it.
 */
function rowActions(
  t: Translate,
  p: { status: string; operation: string | null; public: number; is_featured: number },
): Array<{ value: string; label: string }> | null {
  if (!SWITCHABLE_STATUSES.includes(p.status)) return null;
  const moves = offeredMoves(p.status, p.operation).map((s) => ({
    value: s,
    label: labelOf(t, STATUS_MOVE_LABEL, s) + (isClosingStatus(s) ? '…' : ''),
  }));
  return [
    ...moves,
    p.public ? { value: 'unpublish', label: t('property_make_private') } : { value: 'publish', label: t('property_make_public') },
    p.is_featured ? { value: 'unfeature', label: t('property_unfeature') } : { value: 'feature', label: t('property_feature') },
  ];
}

/** A listing as a refusal names it: its title (or "untitled") and reference. */
const named = (t: Translate, l: { title: string | null; external_ref: string }) =>
  t('listing_named', { title: l.title ?? t('property_untitled'), ref: l.external_ref });

/** Why an action was refused, in words: a sentence, and a line per listing. */
function refusedProblem(t: Translate, error: ListingActionRefusedError): { text: string; items: string[] } {
  return {
    text: t('bulk_refused', { action: t(BULK_ACTION_LABEL[error.action]) }),
    items: error.refused.map((l) =>
      l.reason === 'invalid'
        ? t('refused_invalid', { listing: named(t, l) })
        : t('refused_status', { listing: named(t, l), status: labelOf(t, PROPERTY_STATUS_LABEL, l.status).toLocaleLowerCase() }),
    ),
  };
}

/** The words of a fault of a sale or rental, beside its field. */
function closingFaultText(t: Translate, fault: ClosingFault): string {
  switch (fault.kind) {
    case 'missing':
      return t(fault.field === 'closed_price' ? 'closing_price_missing' : 'closing_day_missing');
    case 'number':
      return t('closing_price_number');
    case 'range':
      return t('closing_price_range');
    case 'date':
      return t('closing_day_invalid');
    case 'future':
      return t('closing_day_future');
    case 'too_old':
      return t('closing_day_too_old');
  }
}

export async function listingPages(app: FastifyInstance, { db, media, publicUrl }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);
  /** The vocabularies the pages label and the form offers. */
  const terms = {
    statuses: PROPERTY_STATUSES,
    operations: OPERATIONS,
    types: PROPERTY_TYPES,
    rentalTypes: RENTAL_TYPES,
    privacy: ADDRESS_PRIVACY,
    subtypes: Object.entries(SUBTYPES).map(([key, { label, type }]) => ({ key, label, type })),
    features: Object.entries(FEATURES).map(([key, { label }]) => ({ key, label })),
    languages: LISTING_LANGUAGES,
    certificateStatuses: CERTIFICATE_STATUSES,
    ratings: ENERGY_RATINGS,
    conditions: CONDITIONS,
    languageState,
  };

  /**
   * The list at `url` (a `/console/properties` URL: its search, filters, sort and page), with
   * `extra` for the page (a problem, the rows still ticked) and `status`.
   */
  const listPage = async (request: FastifyRequest, reply: FastifyReply, url: string, extra: Record<string, unknown> = {}, status = 200) => {
    const t = request.t;
    const q = Object.fromEntries(new URL(url, 'http://console.invalid').searchParams);
    const { search, page, filters } = listQuery(q);
    const businessId = request.consoleSession!.businessId;
    const [{ rows, total, byStatus }, { zone }] = await Promise.all([
      listingsPage(db, businessId, search, page),
      businessClock(db, businessId),
    ]);
    const day = new Intl.DateTimeFormat(request.consoleLanguage === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'medium', timeZone: zone });
    const sort = search.sort!;
    const link = (extraParams: Record<string, string>) => listUrl({ ...filters, ...sortParams(sort), ...extraParams });
    const sortLinks = Object.fromEntries(
      LISTING_SORT_KEYS.map((key) => {
        const dir = sort.key === key ? (sort.dir === 'asc' ? 'desc' : 'asc') : SORT_DEFAULT_DIR[key];
        return [
          key,
          {
            href: listUrl({ ...filters, ...sortParams({ key, dir }) }),
            ariaSort: sort.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : null,
            ascNext: dir === 'asc',
          },
        ];
      }),
    );
    const notice = bulkNotice(t, q);
    return render(
      reply,
      'properties',
      {
        ...terms,
        listings: rows.map((p) => {
          const name = p.title ?? t('property_untitled');
          return {
            ...p,
            name,
            thumb: p.photo === null ? null : photoAtWidth(p.photo, PHOTO_WIDTHS[0]),
            updated: day.format(new Date(p.imported_at)),
            actions: rowActions(t, p),
          };
        }),
        total,
        byStatus: Object.fromEntries(byStatus),
        all: [...byStatus.values()].reduce((a, b) => a + b, 0),
        filters,
        sort,
        sortLinks,
        statusLink: (s: string) => listUrl({ ...(s ? { status: s } : {}), ...sortParams(sort) }),
        bulkActions: BULK_ACTIONS.map((a) => ({ value: a, label: t(BULK_ACTION_LABEL[a]) })),
        selected: [],
        notice,
        problem: null,
        first: total === 0 ? 0 : (page - 1) * LISTINGS_PER_PAGE + 1,
        last: Math.min(total, page * LISTINGS_PER_PAGE),
        previous: page > 1 ? link({ page: String(page - 1) }) : null,
        next: page * LISTINGS_PER_PAGE < total ? link({ page: String(page + 1) }) : null,
        back: listUrl({ ...filters, ...sortParams(sort), ...(page > 1 ? { page: String(page) } : {}) }),
        euros: euros(request.consoleLanguage),
        ...extra,
      },
      status,
    );
  };

  app.get('/properties', async (request, reply) => listPage(request, reply, request.url));

  app.post('/properties/bulk', csrfChecked, async (request, reply) => {
    const { value } = readForm(request.body, ListingBulkForm);
    const back = listBack(value.back);
    const ids = [...new Set((value.ids as string[]).map(idParam))];
    const refuse = (problem: string, code: string) => {
      request.errorCode = code;
      return listPage(request, reply, back, { problem: { text: problem, items: [] }, selected: ids }, 422);
    };
    if (!(BULK_ACTIONS as readonly string[]).includes(value.action)) return refuse(request.t('bulk_action_invalid'), 'LISTING_BULK_ACTION');
    if (ids.length === 0) return refuse(request.t('bulk_none_selected'), 'LISTING_BULK_EMPTY');
    if (ids.includes(null)) throw new InmoError('NOT_FOUND');
    if (ids.length > BULK_MAX) return refuse(request.t('bulk_too_many', { max: BULK_MAX }), 'LISTING_BULK_TOO_MANY');
    const action = value.action as BulkAction;
    try {
      const done = await bulkChangeListings(db, request.consoleSession!.businessId, ids as number[], action, {
        type: 'user',
        id: request.consoleSession!.userId,
      });
      const to = new URL(back, 'http://console.invalid');
      to.searchParams.set('done', action);
      to.searchParams.set('changed', String(done.changed));
      to.searchParams.set('unchanged', String(done.unchanged));
      return reply.code(303).header('location', `${to.pathname}${to.search}`).send();
    } catch (error) {
      if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') throw new InmoError('NOT_FOUND');
      if (!(error instanceof ListingActionRefusedError)) throw error;
      request.errorCode = 'LISTING_BULK_REFUSED';
      return listPage(request, reply, back, { problem: refusedProblem(request.t, error), selected: ids }, 409);
    }
  });

  const formPage = (
    reply: FastifyReply,
    view: 'property-new' | 'property',
    values: ReturnType<typeof formValues>,
    extra: Record<string, unknown>,
    faults: ListingFault[] = [],
    status = 200,
  ) => {
    const t = reply.request.t;
    // The first fault of a field is the one shown beside it.
    const byField: Record<string, string> = {};
    for (const f of faults) byField[formField(f.field)] ??= faultText(t, f);
    return render(reply, view, { ...terms, form: values, faults: byField, euros: euros(reply.request.consoleLanguage), ...extra }, status);
  };

  app.get('/properties/new', async (_request, reply) => formPage(reply, 'property-new', NEW_LISTING, {}));

  app.post('/properties', csrfChecked, async (request, reply) => {
    const closing = closingFromForm(request.body, null);
    if (closing) {
      request.errorCode = 'LISTING_INVALID';
      return formPage(reply, 'property-new', formValues(request.body), {}, [closing], 422);
    }
    try {
      const { id } = await saveListing(db, request.consoleSession!.businessId, null, recordFromForm(request.body, null), {
        type: 'user',
        id: request.consoleSession!.userId,
      });
      return reply.code(303).header('location', `/console/properties/${id}?saved=1`).send();
    } catch (error) {
      if (!(error instanceof ListingInvalidError)) throw error;
      request.errorCode = 'LISTING_INVALID';
      return formPage(reply, 'property-new', formValues(request.body), {}, error.faults, 422);
    }
  });

  /** The listing of the URL, if it is the session's business's; else 404, as for a missing one. */
  const ownListing = async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = idParam(request.params.id);
    const listing = id === null ? undefined : await listingInFull(db, request.consoleSession!.businessId, id);
    if (!listing) throw new InmoError('NOT_FOUND');
    return listing;
  };

  const listingPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    listing: NonNullable<Awaited<ReturnType<typeof listingInFull>>>,
    values = valuesOf(listing.record),
    faults: ListingFault[] = [],
    status = 200,
    problem: string | null = null,
    /** The viewing form as typed, after a refusal. */
    viewingForm?: ViewingFormState,
    /** Why the owner was not linked, in words. */
    ownerProblem: string | null = null,
  ) => {
    const session = request.consoleSession!;
    // The leads offered: the newest, or those found by `lead_q` (name, phone or e-mail).
    const leadQuery = ((request.query as Record<string, string | undefined>).lead_q ?? '').slice(0, 200);
    // The owners offered (CONTRACT §24): `propietario` leads, the newest or those `owner_q` finds.
    const ownerQuery = ((request.query as Record<string, string | undefined>).owner_q ?? '').slice(0, 200);
    const [{ zone, viewings }, leads, users, owner, ownerChoices] = await Promise.all([
      viewingsOf(db, session.businessId, { propertyId: listing.id }),
      leadChoices(db, session.businessId, LEAD_CHOICES, leadQuery),
      assignableUsers(db, session.businessId),
      listingOwner(db, session.businessId, listing.id),
      leadChoices(db, session.businessId, LEAD_CHOICES, ownerQuery, OWNER_TYPE),
    ]);
    return formPage(
      reply,
      'property',
      values,
      {
        viewings,
        time: businessTime(zone, request.consoleLanguage),
        viewingLeads: leads,
        leadQuery,
        viewingUsers: users,
        owner,
        ownerChoices,
        ownerQuery,
        ownerProblem,
        // An agent books for themselves unless they choose; an owner leaves it to the listing's agent.
        viewingForm: viewingForm ?? newViewingForm({ user_id: session.role === 'agent' ? String(session.userId) : '' }),
        listing,
        // The listing's public page and sheet (CONTRACT §21).
        pageUrl: `${PAGE_PATH}${await listingPageToken(db, request.consoleSession!.businessId, listing.id)}`,
        preview: listing.published === null ? null : kitPreview(listing.published, request.consoleLanguage, request.t),
        switchable: SWITCHABLE_STATUSES.includes(listing.fields.status),
        closing:
          listing.closing === null
            ? null
            : {
                price: euros(request.consoleLanguage)(listing.closing.price),
                day: longDay(request.consoleLanguage, listing.closing.on),
              },
        facts: listingFacts(listing.record.specs),
        held: heldLanguages(listing.fields),
        moves: offeredMoves(listing.fields.status, listing.fields.operation),
        saved: (request.query as Record<string, string>).saved === '1' && status === 200,
        added: (request.query as Record<string, string>).added === '1' && status === 200,
        maxPhotoBytes: MAX_PHOTO_BYTES,
        photoActions: PHOTO_ACTIONS,
        problem,
        back: `/console/properties/${listing.id}`,
      },
      faults,
      status,
    );
  };

  app.get<{ Params: { id: string } }>('/properties/:id', async (request, reply) => listingPage(request, reply, await ownListing(request)));

  // The listing's owner linked, or unlinked with an empty `lead_id` (CONTRACT §24).
  app.post<{ Params: { id: string } }>('/properties/:id/owner', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    const chosen = field(request.body, 'lead_id');
    const leadId = chosen === '' ? null : (idParam(chosen) ?? 0);
    try {
      await linkListingOwner(db, {
        businessId: request.consoleSession!.businessId,
        propertyId: listing.id,
        leadId,
        actor: { type: 'user', id: request.consoleSession!.userId },
      });
    } catch (error) {
      if (!(error instanceof InmoError) || (error.code !== 'LISTING_OWNER_NOT_PROPIETARIO' && error.code !== 'LEAD_NOT_FOUND')) throw error;
      request.errorCode = error.code;
      const values = valuesOf(listing.record);
      return listingPage(request, reply, listing, values, [], 422, null, undefined, request.t('listing_owner_not_propietario'));
    }
    return reply.code(303).header('location', `/console/properties/${listing.id}#h-owner`).send();
  });

  // The listing's A4 sheet (CONTRACT §21) in `lang` (the console's language unless one of the five is named).
  app.get<{ Params: { id: string } }>('/properties/:id/sheet.pdf', async (request, reply) => {
    const listing = await ownListing(request);
    const lang = listingLanguage(query(request).lang) ?? request.consoleLanguage;
    const sheet = await consoleListingSheet(
      db,
      media.store,
      request.consoleSession!.businessId,
      listing.id,
      lang,
      serverOrigin(request, publicUrl),
    );
    if (!sheet) throw new InmoError('NOT_FOUND');
    return sendPdf(reply, sheet.pdf, sheetFileName(sheet.title));
  });

  app.post<{ Params: { id: string } }>('/properties/:id', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    // Photos and videos are not the form's: kept as they are when the edit is written (an upload may have come since).
    const { images: _images, videos: _videos, ...edited } = recordFromForm(request.body, listing.record);
    const closing = closingFromForm(request.body, listing.record.status);
    if (closing) {
      request.errorCode = 'LISTING_INVALID';
      return listingPage(request, reply, listing, formValues(request.body), [closing], 422);
    }
    try {
      await saveListing(db, request.consoleSession!.businessId, listing.id, edited, {
        type: 'user',
        id: request.consoleSession!.userId,
      });
    } catch (error) {
      if (!(error instanceof ListingInvalidError)) throw error;
      request.errorCode = 'LISTING_INVALID';
      return listingPage(request, reply, listing, formValues(request.body), error.faults, 422);
    }
    return reply.code(303).header('location', `/console/properties/${listing.id}?saved=1`).send();
  });

  // A viewing booked from the listing's page (CONTRACT §20): refused, the page again with the reasons beside the fields (422).
  app.post<{ Params: { id: string } }>('/properties/:id/viewings', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    const booked = await bookFromForm(db, request.consoleSession!.businessId, request.body, { propertyId: listing.id }, request.t);
    if ('form' in booked) {
      request.errorCode = 'VIEWING_FORM';
      return listingPage(request, reply, listing, undefined, [], 422, null, booked.form);
    }
    return reply.code(303).header('location', `/console/properties/${listing.id}#h-viewings`).send();
  });

  /** Where a one-click change returns: the page it was made from (a listings page or the listing's), never elsewhere. */
  const backTo = (back: string, id: number) =>
    /^\/console\/properties(\/\d+)?(\?[^\s#]*)?$/.test(back) ? back : `/console/properties/${id}`;

  /** The page that asks for the price and day of a sale or rental, with what was typed and its faults. */
  const closePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    listing: NonNullable<Awaited<ReturnType<typeof listingInFull>>>,
    status: string,
    back: string,
    typed: { closed_price: string; closed_on: string } | null = null,
    faults: ClosingFault[] = [],
    code = 200,
  ) => {
    const today = await businessToday(db, request.consoleSession!.businessId);
    const f = listing.fields;
    // The asking price, to confirm or correct: the rent for a rental, else the sale (or transfer) price.
    const asked = status === 'alquilada' ? f.price_rent : (f.price ?? f.price_transfer);
    const byField: Record<string, string> = {};
    for (const fault of faults) byField[fault.field] ??= closingFaultText(request.t, fault);
    return render(
      reply,
      'property-close',
      {
        listing,
        name: f.title ?? request.t('property_untitled'),
        status,
        back: backTo(back, listing.id),
        today,
        todayText: longDay(request.consoleLanguage, today),
        form: typed ?? { closed_price: asked === null ? '' : String(asked), closed_on: today },
        faults: byField,
        title: request.t(status === 'vendida' ? 'close_title_vendida' : 'close_title_alquilada'),
      },
      code,
    );
  };

  /** A one-click move that is not one (409), shown on the listing's page. */
  const moveRefused = (request: FastifyRequest, reply: FastifyReply, listing: NonNullable<Awaited<ReturnType<typeof listingInFull>>>) => {
    request.errorCode = 'LISTING_STATUS_MOVE';
    return listingPage(request, reply, listing, undefined, [], 409, request.t('LISTING_STATUS_MOVE'));
  };

  /** A switch or bulk action refused for the listing (409), said in words on its page. */
  const actionRefused = (
    request: FastifyRequest,
    reply: FastifyReply,
    listing: NonNullable<Awaited<ReturnType<typeof listingInFull>>>,
    error: ListingActionRefusedError,
  ) => {
    request.errorCode = 'LISTING_ACTION_REFUSED';
    const { text, items } = refusedProblem(request.t, error);
    return listingPage(request, reply, listing, undefined, [], 409, `${text} ${items.join(' ')}`);
  };

  app.get<{ Params: { id: string } }>('/properties/:id/close', async (request, reply) => {
    const listing = await ownListing(request);
    const q = query(request);
    const status = q.status ?? '';
    if (!isClosingStatus(status) || !(STATUS_MOVES[listing.fields.status] ?? []).includes(status))
      return moveRefused(request, reply, listing);
    return closePage(request, reply, listing, status, q.back ?? '');
  });

  /** Moves the listing to `status` (sold and rented with the price and day typed), or answers why not. */
  const move = async (
    request: FastifyRequest,
    reply: FastifyReply,
    listing: NonNullable<Awaited<ReturnType<typeof listingInFull>>>,
    status: string,
    back: string,
    typed: { closed_price: string; closed_on: string },
  ) => {
    try {
      await moveListing(
        db,
        request.consoleSession!.businessId,
        listing.id,
        status,
        { type: 'user', id: request.consoleSession!.userId },
        { price: typedNumber(typed.closed_price), on: typed.closed_on },
      );
    } catch (error) {
      if (error instanceof ClosingInvalidError) {
        request.errorCode = 'LISTING_CLOSING_INVALID';
        return closePage(request, reply, listing, status, back, typed, error.faults, 422);
      }
      if (!(error instanceof InmoError) || error.code !== 'LISTING_STATUS_MOVE') throw error;
      return moveRefused(request, reply, listing);
    }
    return reply.code(303).header('location', backTo(back, listing.id)).send();
  };

  app.post<{ Params: { id: string } }>('/properties/:id/status', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    const { status, back, closed_price, closed_on } = readForm(request.body, ListingStatusForm).value;
    return move(request, reply, listing, status, back, { closed_price, closed_on });
  });

  /** Switches the listing public or featured, or answers why not. */
  const switchTo = async (
    request: FastifyRequest,
    reply: FastifyReply,
    listing: NonNullable<Awaited<ReturnType<typeof listingInFull>>>,
    flag: 'public' | 'is_featured',
    on: boolean,
    back: string,
  ) => {
    try {
      await switchListing(db, request.consoleSession!.businessId, listing.id, flag, on, {
        type: 'user',
        id: request.consoleSession!.userId,
      });
    } catch (error) {
      if (!(error instanceof ListingActionRefusedError)) throw error;
      return actionRefused(request, reply, listing, error);
    }
    return reply.code(303).header('location', backTo(back, listing.id)).send();
  };

  for (const [path, flag] of [
    ['public', 'public'],
    ['featured', 'is_featured'],
  ] as const) {
    app.post<{ Params: { id: string } }>(`/properties/:id/${path}`, csrfChecked, async (request, reply) => {
      const listing = await ownListing(request);
      const { value, back } = readForm(request.body, ListingSwitchForm).value;
      return switchTo(request, reply, listing, flag, value === '1', back);
    });
  }

  /** The list's one control per row: a move (sold and rented ask for the price and day first), or a switch. */
  app.post<{ Params: { id: string } }>('/properties/:id/action', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    const { action, back } = readForm(request.body, ListingRowActionForm).value;
    if (isClosingStatus(action)) {
      if (!(STATUS_MOVES[listing.fields.status] ?? []).includes(action)) return moveRefused(request, reply, listing);
      const to = new URLSearchParams({ status: action, back: backTo(back, listing.id) });
      return reply.code(303).header('location', `/console/properties/${listing.id}/close?${to}`).send();
    }
    if ((PROPERTY_STATUSES as readonly string[]).includes(action))
      return move(request, reply, listing, action, back, { closed_price: '', closed_on: '' });
    const switches: Record<string, ['public' | 'is_featured', boolean]> = {
      publish: ['public', true],
      unpublish: ['public', false],
      feature: ['is_featured', true],
      unfeature: ['is_featured', false],
    };
    if (!Object.hasOwn(switches, action)) {
      request.errorCode = 'LISTING_ACTION';
      return listingPage(request, reply, listing, undefined, [], 422, request.t('row_action_invalid'));
    }
    const [flag, on] = switches[action];
    return switchTo(request, reply, listing, flag, on, back);
  });

  // Photos: files read only here, after the session and CSRF checks (the token in the URL).
  app.post<{ Params: { id: string } }>('/properties/:id/images', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    const refuse = (status: number, problem: string) => {
      request.errorCode = 'PHOTO_REFUSED';
      return listingPage(request, reply, listing, undefined, [], status, problem);
    };
    let upload;
    try {
      upload = request.consoleUpload = await receiveUploads(request, { maxBytes: MAX_PHOTO_BYTES, maxFiles: PHOTOS_PER_UPLOAD });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') return refuse(413, request.t('photo_refused_too_large'));
      if (code === 'FST_FILES_LIMIT') return refuse(413, request.t('photo_too_many'));
      throw error;
    }
    if (!upload || upload.files.length === 0) return refuse(422, request.t('photo_missing'));
    try {
      await addPhotos(db, media.store, request.consoleSession!.businessId, listing.id, upload.files, (key) =>
        mediaUrl(media, publicUrl, request, key),
      );
    } catch (error) {
      if (!(error instanceof PhotoRefusedError)) throw error;
      return refuse(422, request.t(PHOTO_REFUSALS[error.reason], { file: error.fileName }));
    }
    return reply.code(303).header('location', `/console/properties/${listing.id}?added=1#h-photos`).send();
  });

  app.post<{ Params: { id: string; image_id: string } }>('/properties/:id/images/:image_id', csrfChecked, async (request, reply) => {
    const listing = await ownListing(request);
    const imageId = idParam(request.params.image_id);
    if (imageId === null || !listing.images.some((i) => i.id === imageId)) throw new InmoError('NOT_FOUND');
    const { action, title } = readForm(request.body, PhotoForm).value;
    if (!(PHOTO_ACTIONS as readonly string[]).includes(action)) {
      request.errorCode = 'PHOTO_ACTION';
      return listingPage(request, reply, listing, undefined, [], 422, request.t('photo_action_invalid'));
    }
    await changePhoto(db, media.store, request.consoleSession!.businessId, listing.id, imageId, action as PhotoAction, title);
    return reply.code(303).header('location', `/console/properties/${listing.id}#h-photos`).send();
  });
}
