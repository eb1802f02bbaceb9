/**
 * inmo's website kit (issue 30, CONTRACT §17): custom elements any page can use with one script
 * tag and a publishable key (`AC_PUB_…`, CONTRACT §13). Runs in the visitor's browser: bundled
 * by esbuild into one ES module (services/integrations/website-kit-bundle.ts) and served at `/embed/v1/inmo.js`.
 *
 * - `<inmo-inquiry-form>`: name, phone, e-mail, message and the consent checkbox, sent to
 *   `POST /leads/inquiries` as a `demandante` with `source` (attribute; the page's host name by
 *   default), `sourcePage`, the §18 `consent` and, with `property-id`, the listing in `notes`.
 * - `<inmo-rental-form>`: the compact rental form, sent to `POST /leads/ingest`.
 * - `<inmo-viewing-form property-id>`: "Pedir visita" (CONTRACT §20): a listing's free times and
 *   the person's details, sent to `POST /viewings`; `<inmo-property>` opens one from its button.
 * - `<inmo-valuation>`: "¿Cuánto vale tu casa?" (CONTRACT §24): the home's address, postal code,
 *   type, size and bedrooms and the owner's details, sent to `POST /valuations`; shows the range.
 *
 * Each takes `api` (the base URL ending in `/v1/ext`), `key` and `lang` (`es` by default; `en`,
 * and `fr`, `de`, `it`, `gb`, `ge`, which the catalogue elements pass to the API for listings'
 * texts, with the kit's words in English; dom.ts), renders in an open shadow root styled by `--inmo-accent`, `--inmo-font` and `--inmo-radius`, sends one
 * `Idempotency-Key` per submission (a double click or a retry is one lead), shows the API's
 * refusals beside their fields (`aria-invalid`, announced), and dispatches `inmo-lead-created`
 * (`{outcome: "received"}` with a publishable key, which is told nothing more; `{lead_id?,
 * outcome}` otherwise) once the lead is sent. It requests nothing from any host but `api`.
 */

import { SLOT_TAKEN_DETAIL } from '../domain/viewings/slot-taken.ts';
import { h, languageOf, type Lang } from './dom.ts';
import './catalogue.ts';

const TEXTS = {
  es: {
    name: 'Nombre',
    phone: 'Teléfono',
    email: 'Correo electrónico',
    message: 'Mensaje',
    consent: 'Acepto que la agencia me contacte por WhatsApp, teléfono o correo sobre mi consulta.',
    send: 'Enviar',
    sending: 'Enviando…',
    sent: '¡Gracias! Hemos recibido tu consulta y te contactaremos pronto.',
    known: 'Ya teníamos tus datos: te contactaremos pronto.',
    required: 'Este campo es obligatorio.',
    consentRequired: 'Marca la casilla para que podamos contactarte.',
    badPhone: 'Escribe un teléfono válido, por ejemplo 612 34 56 78 o +44 7700 900123.',
    badEmail: 'Escribe un correo electrónico válido.',
    badBudget: 'Escribe una cantidad en euros (900) o un rango (700-900).',
    failed: 'No se ha podido enviar. Inténtalo de nuevo en unos minutos.',
    fix: 'Revisa los campos marcados.',
    budget: 'Presupuesto mensual (€)',
    entryDate: 'Fecha de entrada',
    people: 'Personas',
    habs: 'Habitaciones',
    pets: 'Mascotas',
    freeText: 'Algo más que debamos saber',
    form: 'Formulario de contacto',
    rentalForm: 'Formulario de alquiler',
    viewingForm: 'Pedir visita',
    slot: 'Día y hora de la visita',
    slotsLoading: 'Buscando horarios libres…',
    chooseSlot: 'Elige un horario',
    noSlots: 'No quedan horarios libres en los próximos 7 días. Escríbenos y te propondremos otro momento.',
    slotRequired: 'Elige el día y la hora de la visita.',
    slotTaken: 'Ese horario se acaba de ocupar. Elige otro de la lista, que ya está al día.',
    slotsFailed: 'No se han podido cargar los horarios libres. Inténtalo de nuevo en unos minutos.',
    requested: '¡Gracias! Hemos recibido tu petición de visita para el {when}. Un agente te la confirmará pronto.',
    valuationForm: '¿Cuánto vale tu casa?',
    address: 'Dirección (calle y número)',
    postalCode: 'Código postal',
    propertyType: 'Tipo de inmueble',
    size: 'Superficie (m²)',
    rooms: 'Dormitorios',
    choose: 'Elige una opción',
    badPostalCode: 'Escribe un código postal de 5 cifras, por ejemplo 28010.',
    badSize: 'Escribe los metros cuadrados, por ejemplo 85.',
    badRooms: 'Escribe el número de dormitorios, por ejemplo 3.',
    valueIt: 'Calcular el valor',
    perMonth: ' al mes',
    valued:
      'Según los inmuebles parecidos de tu zona, tu vivienda podría valer entre {low} y {high}. Te llamaremos para afinar la valoración.',
    notValued: 'Aún no tenemos bastantes inmuebles parecidos en tu zona para darte un rango: te llamaremos con una valoración.',
    valuationConsent: 'Acepto que la agencia me contacte por WhatsApp, teléfono o correo sobre la valoración de mi vivienda.',
    type_apartamento: 'Piso o apartamento',
    type_casa: 'Casa o chalet',
    type_local: 'Local',
    type_oficina: 'Oficina',
    type_nave: 'Nave',
    type_terreno: 'Terreno',
    type_aparcamiento: 'Garaje',
    type_almacenaje: 'Trastero',
    type_edificio: 'Edificio',
    at: 'a las',
    locale: 'es-ES',
  },
  en: {
    name: 'Name',
    phone: 'Phone',
    email: 'Email',
    message: 'Message',
    consent: 'I agree that the agency contacts me by WhatsApp, phone or email about my inquiry.',
    send: 'Send',
    sending: 'Sending…',
    sent: 'Thank you! We have received your inquiry and will contact you soon.',
    known: 'We already had your details: we will contact you soon.',
    required: 'This field is required.',
    consentRequired: 'Tick the box so that we may contact you.',
    badPhone: 'Enter a valid phone number, e.g. 612 34 56 78 or +44 7700 900123.',
    badEmail: 'Enter a valid email address.',
    badBudget: 'Enter an amount in euros (900) or a range (700-900).',
    failed: 'It could not be sent. Try again in a few minutes.',
    fix: 'Check the fields marked.',
    budget: 'Monthly budget (€)',
    entryDate: 'Moving-in date',
    people: 'People',
    habs: 'Bedrooms',
    pets: 'Pets',
    freeText: 'Anything else we should know',
    form: 'Contact form',
    rentalForm: 'Rental form',
    viewingForm: 'Request a viewing',
    slot: 'Day and time of the viewing',
    slotsLoading: 'Looking for free times…',
    chooseSlot: 'Choose a time',
    noSlots: 'There are no free times in the next 7 days. Write to us and we will suggest another time.',
    slotRequired: 'Choose the day and time of the viewing.',
    slotTaken: 'That time has just been taken. Choose another from the list, which is now up to date.',
    slotsFailed: 'The free times could not be loaded. Try again in a few minutes.',
    requested: 'Thank you! We have received your request for a viewing on {when}. An agent will confirm it soon.',
    valuationForm: 'What is your home worth?',
    address: 'Address (street and number)',
    postalCode: 'Postal code',
    propertyType: 'Type of property',
    size: 'Floor area (m²)',
    rooms: 'Bedrooms',
    choose: 'Choose one',
    badPostalCode: 'Enter a 5-digit postal code, e.g. 28010.',
    badSize: 'Enter the square metres, e.g. 85.',
    badRooms: 'Enter the number of bedrooms, e.g. 3.',
    valueIt: 'Work out its value',
    perMonth: ' a month',
    valued: 'From similar homes in your area, your home could be worth between {low} and {high}. We will call you to refine the valuation.',
    notValued: 'We do not have enough similar homes in your area to give you a range yet: we will call you with a valuation.',
    valuationConsent: 'I agree that the agency contacts me by WhatsApp, phone or email about the valuation of my home.',
    type_apartamento: 'Flat or apartment',
    type_casa: 'House',
    type_local: 'Shop',
    type_oficina: 'Office',
    type_nave: 'Warehouse',
    type_terreno: 'Land',
    type_aparcamiento: 'Parking space',
    type_almacenaje: 'Storage room',
    type_edificio: 'Building',
    at: 'at',
    locale: 'en-GB',
  },
};
type TextKey = keyof (typeof TEXTS)['es'];

const STYLE = `:host{display:block;font-family:var(--inmo-font,system-ui,sans-serif);line-height:1.4}
form{display:grid;gap:.8rem;max-width:34rem}
label{display:grid;gap:.25rem;font-weight:600}
.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
input,textarea,select{font:inherit;padding:.55rem;border:1px solid #6b6b6b;border-radius:var(--inmo-radius,6px);background:#fff;color:#111}
input[type=checkbox]{width:1.2rem;height:1.2rem;margin:.1rem 0 0}
[aria-invalid=true]{border-color:#b00020;outline:1px solid #b00020}
:focus-visible{outline:3px solid var(--inmo-accent,#1d4ed8);outline-offset:2px}
.error{color:#b00020;font-weight:400;margin:0}
button{font:inherit;font-weight:600;padding:.65rem 1.1rem;border:0;border-radius:var(--inmo-radius,6px);background:var(--inmo-accent,#1d4ed8);color:#fff;cursor:pointer;justify-self:start}
button[disabled]{opacity:.7;cursor:progress}
.status{margin:0;min-height:1.4em}
.done{padding:1rem;border:2px solid var(--inmo-accent,#1d4ed8);border-radius:var(--inmo-radius,6px)}`;

/** A field of a form: its input's name (CONTRACT §17), kind and whether it must be filled. */
interface Field {
  name: string;
  /** `slots`: a viewing's free times, as a select grouped by day. */
  kind: 'text' | 'tel' | 'email' | 'textarea' | 'date' | 'number' | 'checkbox' | 'slots' | 'choice';
  required?: boolean;
  /** A `choice`'s values, each labelled by the text `<name>_<value>` … of {@link TEXTS}. */
  options?: readonly string[];
  autocomplete?: string;
}

/** A random id for a submission (crypto.randomUUID needs a secure context: not every agency's site is https). */
function submissionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** One submission: its `Idempotency-Key` (also the rental form's `id`) and when it was made. */
interface Submission {
  id: string;
  at: string;
}

/** A refusal of the API: field name → message, and a message for the whole form. */
interface Refusal {
  fields: Map<string, string>;
  general: string | null;
}

/**
 * A form element: renders its fields, checks what it can before sending, sends once per
 * submission and shows the answer. Subclasses say which fields, where and what to send.
 */
abstract class InmoForm extends HTMLElement {
  protected abstract readonly fields: Field[];
  protected abstract readonly label: TextKey;
  /** The request for the values given: the path under `api` and the JSON body. */
  protected abstract request(values: Map<string, string>, consent: object, submission: Submission): { path: string; body: object };
  /** API field names (in `loc`) → this form's input names. */
  protected abstract readonly apiFields: Record<string, string>;
  /** The consent's words unless the page gives its own (`consent-text`). */
  protected readonly consentKey: TextKey = 'consent';
  /** The submit button's words. */
  protected readonly sendKey: TextKey = 'send';

  private form: HTMLFormElement | null = null;
  private pending: (Submission & { values: string }) | null = null;
  private sending = false;

  protected get language(): Lang {
    return languageOf(this);
  }

  protected t(key: TextKey): string {
    return TEXTS[this.language][key];
  }

  connectedCallback(): void {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    const style = h('style');
    style.textContent = STYLE;
    const form = h('form', { novalidate: '', 'aria-label': this.getAttribute('form-label') ?? this.t(this.label) });
    const uid = submissionId().slice(0, 8);
    for (const field of this.fields) {
      const id = `inmo-${uid}-${field.name}`;
      const error = h('p', { class: 'error', id: `${id}-error`, hidden: '' });
      const attrs: Record<string, string> = { id, name: field.name, 'aria-describedby': `${id}-error` };
      if (field.required) attrs.required = '';
      if (field.autocomplete) attrs.autocomplete = field.autocomplete;
      if (field.kind === 'textarea') {
        form.append(h('label', { for: id }, this.t(field.name as TextKey)), h('textarea', { ...attrs, rows: '4' }), error);
      } else if (field.kind === 'slots') {
        form.append(h('label', { for: id }, this.t(field.name as TextKey)), h('select', attrs), error);
      } else if (field.kind === 'choice') {
        const options = (field.options ?? []).map((value) => h('option', { value }, this.t(`type_${value}` as TextKey)));
        form.append(
          h('label', { for: id }, this.t(field.name as TextKey)),
          h('select', attrs, h('option', { value: '' }, this.t('choose')), ...options),
          error,
        );
      } else if (field.kind === 'checkbox') {
        const text = this.getAttribute('consent-text') ?? this.t(this.consentKey);
        form.append(h('label', { class: 'check' }, h('input', { ...attrs, type: 'checkbox', value: '1' }), text), error);
      } else {
        const type = field.kind === 'number' ? 'text' : field.kind;
        const extra: Record<string, string> = field.kind === 'number' ? { inputmode: 'numeric' } : {};
        form.append(h('label', { for: id }, this.t(field.name as TextKey)), h('input', { ...attrs, ...extra, type }), error);
      }
    }
    form.append(h('button', { type: 'submit' }, this.t(this.sendKey)), h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    root.append(style, form);
    this.form = form;
    this.prepare();
  }

  /** Called once the form is in place (the viewing form loads its free times). */
  protected prepare(): void {}

  /**
   * A 409 that is not about the lead: the refusal to show, or null to read it as the forms do
   * (a known person, or the same submission still in flight).
   */
  protected conflict(_detail: unknown): Refusal | null {
    return null;
  }

  /** The thank-you once sent: `known` when the API said the person was already known; `answer` the API's body. */
  protected thanks(known: boolean, _answer: unknown): string {
    return this.t(known ? 'known' : 'sent');
  }

  protected input(name: string): HTMLInputElement | HTMLTextAreaElement {
    return this.form!.elements.namedItem(name) as HTMLInputElement;
  }

  /** Marks each field with its fault (or none), announces the first, and focuses it. */
  private show(refusal: Refusal): void {
    for (const field of this.fields) {
      const input = this.input(field.name);
      const error = this.shadowRoot!.getElementById(`${input.id}-error`)!;
      const message = refusal.fields.get(field.name);
      if (message) {
        input.setAttribute('aria-invalid', 'true');
        error.textContent = message;
        error.hidden = false;
      } else {
        input.removeAttribute('aria-invalid');
        error.textContent = '';
        error.hidden = true;
      }
    }
    const first = this.fields.find((f) => refusal.fields.has(f.name));
    this.status(refusal.general ?? (first ? this.t('fix') : ''));
    if (first) this.input(first.name).focus();
  }

  protected status(text: string): void {
    this.form!.querySelector('.status')!.textContent = text;
  }

  /** What the browser can tell before sending: required fields, the consent, an e-mail's shape. */
  protected check(values: Map<string, string>): Map<string, string> {
    const faults = new Map<string, string>();
    for (const field of this.fields) {
      const value = values.get(field.name) ?? '';
      if (field.kind === 'checkbox' && field.required && value !== '1') faults.set(field.name, this.t('consentRequired'));
      else if (field.kind === 'slots' && value === '') faults.set(field.name, this.t('slotRequired'));
      else if (field.required && value.trim() === '') faults.set(field.name, this.t('required'));
      else if (field.kind === 'email' && value.trim() !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()))
        faults.set(field.name, this.t('badEmail'));
    }
    return faults;
  }

  private async submit(): Promise<void> {
    if (this.sending) return;
    const values = new Map<string, string>();
    for (const field of this.fields) {
      const input = this.input(field.name);
      values.set(field.name, field.kind === 'checkbox' ? ((input as HTMLInputElement).checked ? '1' : '') : input.value);
    }
    const faults = this.check(values);
    if (faults.size > 0) return this.show({ fields: faults, general: null });
    const consent = {
      marketing: this.hasAttribute('consent-marketing'),
      whatsapp: true,
      text: this.getAttribute('consent-text') ?? this.t(this.consentKey),
      ...(this.getAttribute('consent-version') ? { version: this.getAttribute('consent-version') } : {}),
    };
    // The same submission sent again (a retry after a failure) keeps its key and its body: one lead at most.
    const given = JSON.stringify([...values]);
    if (this.pending?.values !== given) this.pending = { id: submissionId(), at: new Date().toISOString(), values: given };
    const { path, body } = this.request(values, consent, this.pending);
    const text = JSON.stringify(body);
    const button = this.form!.querySelector('button')!;
    this.sending = true;
    button.disabled = true;
    this.status(this.t('sending'));
    try {
      const response = await fetch(`${(this.getAttribute('api') ?? '').replace(/\/+$/, '')}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Api-Key': this.getAttribute('key') ?? '', 'Idempotency-Key': this.pending.id },
        body: text,
      });
      const answer = (await response.json().catch(() => null)) as { lead_id?: number; detail?: unknown } | null;
      const conflict = response.status === 409 ? this.conflict(answer?.detail) : null;
      if (conflict) {
        this.show(conflict);
        return;
      }
      if (response.ok || response.status === 409) {
        const known = response.status === 409 && typeof answer?.detail === 'string' && !/Retry/i.test(answer.detail);
        if (response.status === 409 && !known) throw new Error('in flight');
        // A publishable key is not told whether the person was known (CONTRACT §13): `received`.
        const outcome = known ? 'exists' : (response.headers.get('Inmo-Lead-Outcome') ?? 'received');
        this.done(this.thanks(known, answer), { ...(answer?.lead_id ? { lead_id: answer.lead_id } : {}), outcome });
        return;
      }
      this.show(response.status === 422 ? this.refusal(answer?.detail) : { fields: new Map(), general: this.t('failed') });
    } catch {
      this.show({ fields: new Map(), general: this.t('failed') });
    } finally {
      this.sending = false;
      button.disabled = false;
    }
  }

  /** A 422's detail as fields' faults: FastAPI's list (`loc` names the field), or the phone's sentence. */
  private refusal(detail: unknown): Refusal {
    const fields = new Map<string, string>();
    if (typeof detail === 'string') {
      if (/phone/i.test(detail)) fields.set('phone', this.t('badPhone'));
      return { fields, general: fields.size ? null : detail };
    }
    for (const issue of Array.isArray(detail) ? (detail as Array<{ loc?: unknown[]; msg?: string }>) : []) {
      const name = this.apiFields[String(issue.loc?.slice(1).join('.'))];
      if (name && !fields.has(name)) fields.set(name, issue.msg ?? this.t('fix'));
    }
    return { fields, general: fields.size ? null : this.t('failed') };
  }

  /** The lead is sent: the form gives way to a thank-you, focused and announced, and the page is told. */
  private done(message: string, detail: { lead_id?: number; outcome: string }): void {
    const note = h('p', { class: 'done', role: 'status', tabindex: '-1' }, message);
    this.form!.replaceWith(note);
    note.focus();
    this.dispatchEvent(new CustomEvent('inmo-lead-created', { detail, bubbles: true, composed: true }));
  }

  /** `source`: the attribute, else the page's host name. */
  protected source(): string {
    return this.getAttribute('source') ?? location.hostname;
  }
}

/** The person's fields, first in both forms. */
const CONTACT: Field[] = [
  { name: 'name', kind: 'text', required: true, autocomplete: 'name' },
  { name: 'phone', kind: 'tel', required: true, autocomplete: 'tel' },
  { name: 'email', kind: 'email', autocomplete: 'email' },
];

/** `<inmo-inquiry-form>`: `POST /leads/inquiries` (CONTRACT §17). */
class InmoInquiryForm extends InmoForm {
  protected readonly label = 'form' as const;
  protected readonly fields: Field[] = [
    ...CONTACT,
    { name: 'message', kind: 'textarea' },
    { name: 'consent', kind: 'checkbox', required: true },
  ];
  protected readonly apiFields = { name: 'name', phone_number_1: 'phone', personal_email: 'email', notes: 'message', consent: 'consent' };

  protected request(values: Map<string, string>, consent: object) {
    // Inside <inmo-property>, or with property-id: the listing the person asks about.
    const listing = this.getAttribute('property-id') ?? this.closest('inmo-property')?.getAttribute('property-id') ?? null;
    const message = values.get('message')!.trim();
    const notes = [message, listing ? `Ref. ${listing}` : ''].filter(Boolean).join('\n');
    const email = values.get('email')!.trim();
    return {
      path: '/leads/inquiries',
      body: {
        name: values.get('name')!.trim(),
        phone_number_1: values.get('phone')!.trim(),
        type: 'demandante',
        source: this.source(),
        sourcePage: location.href,
        consent,
        ...(email ? { personal_email: email } : {}),
        ...(notes ? { notes } : {}),
      },
    };
  }
}

/** `<inmo-rental-form>`: `POST /leads/ingest` (CONTRACT §17). */
class InmoRentalForm extends InmoForm {
  protected readonly label = 'rentalForm' as const;
  protected readonly fields: Field[] = [
    ...CONTACT,
    { name: 'budget', kind: 'number' },
    { name: 'entryDate', kind: 'date' },
    { name: 'people', kind: 'number' },
    { name: 'habs', kind: 'number' },
    { name: 'pets', kind: 'text' },
    { name: 'freeText', kind: 'textarea' },
    { name: 'consent', kind: 'checkbox', required: true },
  ];
  protected readonly apiFields = { 'contact.name': 'name', 'contact.phone': 'phone', 'search.budget': 'budget', 'search.habs': 'habs' };

  /** A budget the API reads (`900`, `700-900`): anything else it answers with a 500, so it is refused here. */
  protected override check(values: Map<string, string>): Map<string, string> {
    const faults = super.check(values);
    const budget = values
      .get('budget')!
      .trim()
      .replace(/[.\s€]/g, '');
    if (budget !== '' && !/^\d+(-\d+)?$/.test(budget)) faults.set('budget', this.t('badBudget'));
    return faults;
  }

  protected request(values: Map<string, string>, consent: object, submission: Submission) {
    const text = (name: string) => values.get(name)!.trim() || null;
    const email = text('email');
    const free = [text('freeText'), email ? `Email: ${email}` : null].filter(Boolean).join('\n') || null;
    return {
      path: '/leads/ingest',
      body: {
        id: submission.id,
        createdAt: submission.at,
        source: this.source(),
        sourcePage: location.href,
        contact: { name: text('name'), phone: text('phone') },
        search: {
          budget:
            values
              .get('budget')!
              .trim()
              .replace(/[.\s€]/g, '') || null,
          entryDate: text('entryDate'),
          people: text('people'),
          habs: text('habs'),
          pets: text('pets'),
          freeText: free,
        },
        consent,
      },
    };
  }
}

/** A free time as `GET /viewings/availability` gives it: local to the business, with its offset. */
interface FreeSlot {
  starts_at: string;
  ends_at: string;
}

/**
 * `<inmo-viewing-form property-id>` ("Pedir visita", CONTRACT §20): the listing's free times of
 * the next 7 days (`GET /viewings/availability`) grouped by day, and the person's name, phone,
 * e-mail and consent, sent to `POST /viewings` with a `lead`; a publishable key's request is
 * `requested` until an agent confirms it. A time taken meanwhile (409) is said beside the
 * select, whose times are loaded again. Times read as the business's local ones (the API's offset).
 */
class InmoViewingForm extends InmoForm {
  protected readonly label = 'viewingForm' as const;
  protected readonly fields: Field[] = [
    { name: 'slot', kind: 'slots', required: true },
    ...CONTACT,
    { name: 'consent', kind: 'checkbox', required: true },
  ];
  protected readonly apiFields = {
    starts_at: 'slot',
    'lead.name': 'name',
    'lead.phone_number_1': 'phone',
    'lead.personal_email': 'email',
    'lead.consent': 'consent',
  };

  private get api(): string {
    return (this.getAttribute('api') ?? '').replace(/\/+$/, '');
  }

  /** "jueves 3 de diciembre" / "Thursday 3 December" of a local date `YYYY-MM-DD`. */
  private day(date: string): string {
    const format = new Intl.DateTimeFormat(this.t('locale'), { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
    return format.format(new Date(`${date}T00:00:00Z`)).replace(',', '');
  }

  protected override prepare(): void {
    void this.load();
  }

  /** Fills the select with the free times, by day; says so when there are none or they cannot be read. */
  private async load(): Promise<void> {
    const select = this.input('slot') as unknown as HTMLSelectElement;
    select.replaceChildren(h('option', { value: '' }, this.t('slotsLoading')));
    select.setAttribute('aria-busy', 'true');
    let slots: FreeSlot[];
    try {
      const id = encodeURIComponent(this.getAttribute('property-id') ?? '');
      const response = await fetch(`${this.api}/viewings/availability?property_id=${id}&days=7`, {
        headers: { 'X-Api-Key': this.getAttribute('key') ?? '' },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      slots = ((await response.json()) as { data: FreeSlot[] }).data;
    } catch {
      select.replaceChildren(h('option', { value: '' }, this.t('slotsFailed')));
      select.removeAttribute('aria-busy');
      this.status(this.t('slotsFailed'));
      return;
    }
    const days = new Map<string, FreeSlot[]>();
    for (const slot of slots) days.set(slot.starts_at.slice(0, 10), [...(days.get(slot.starts_at.slice(0, 10)) ?? []), slot]);
    select.replaceChildren(
      h('option', { value: '' }, slots.length ? this.t('chooseSlot') : this.t('noSlots')),
      ...[...days].map(([date, times]) =>
        h('optgroup', { label: this.day(date) }, ...times.map((t) => h('option', { value: t.starts_at }, t.starts_at.slice(11, 16)))),
      ),
    );
    select.removeAttribute('aria-busy');
    if (!slots.length) this.status(this.t('noSlots'));
  }

  /** The time taken meanwhile (VIEWING_SLOT_TAKEN): said beside the select, whose times are read again. */
  protected override conflict(detail: unknown): Refusal | null {
    if (detail !== SLOT_TAKEN_DETAIL) return null;
    void this.load();
    return { fields: new Map([['slot', this.t('slotTaken')]]), general: null };
  }

  protected override thanks(): string {
    const chosen = this.input('slot').value;
    const when = `${this.day(chosen.slice(0, 10))} ${this.t('at')} ${chosen.slice(11, 16)}`;
    return this.t('requested').replace('{when}', when);
  }

  protected request(values: Map<string, string>, consent: object) {
    const email = values.get('email')!.trim();
    return {
      path: '/viewings',
      body: {
        property_id: Number(this.getAttribute('property-id')),
        starts_at: values.get('slot')!,
        lead: {
          name: values.get('name')!.trim(),
          phone_number_1: values.get('phone')!.trim(),
          ...(email ? { personal_email: email } : {}),
          source: this.source(),
          sourcePage: location.href,
          consent,
        },
      },
    };
  }
}

/** The property types an owner may ask a valuation for (the catalogue's, spec §2.2). */
const VALUATION_TYPES = ['apartamento', 'casa', 'local', 'oficina', 'nave', 'terreno', 'aparcamiento', 'almacenaje', 'edificio'] as const;

/** A valuation's range as `POST /valuations` answers it (CONTRACT §24). */
interface ValuationAnswer {
  valuation?: { operation: 'venta' | 'alquiler'; range: { low: number; high: number } | null };
}

/**
 * `<inmo-valuation>` ("¿Cuánto vale tu casa?", CONTRACT §24): the home's address, postal code,
 * type, floor area and bedrooms, and the owner's name, phone, e-mail and consent, sent to `POST
 * /valuations` (`operation` attribute `venta` by default, or `alquiler`); the answer shows the
 * suggested range, or says an agent will call when the area has too few comparables. The owner
 * becomes a `propietario` lead of the agency.
 */
class InmoValuation extends InmoForm {
  protected readonly label = 'valuationForm' as const;
  protected override readonly consentKey = 'valuationConsent' as const;
  protected override readonly sendKey = 'valueIt' as const;
  protected readonly fields: Field[] = [
    { name: 'address', kind: 'text', required: true, autocomplete: 'street-address' },
    { name: 'postalCode', kind: 'text', required: true, autocomplete: 'postal-code' },
    { name: 'propertyType', kind: 'choice', required: true, options: VALUATION_TYPES },
    { name: 'size', kind: 'number', required: true },
    { name: 'rooms', kind: 'number' },
    ...CONTACT,
    { name: 'consent', kind: 'checkbox', required: true },
  ];
  protected readonly apiFields = {
    address: 'address',
    postal_code: 'postalCode',
    property_type: 'propertyType',
    size_total: 'size',
    bedrooms: 'rooms',
    name: 'name',
    phone_number_1: 'phone',
    personal_email: 'email',
    consent: 'consent',
  };

  /** A postal code of 5 digits and a floor area the API reads, checked here before sending. */
  protected override check(values: Map<string, string>): Map<string, string> {
    const faults = super.check(values);
    const postal = values.get('postalCode')!.trim();
    if (postal !== '' && !/^\d{5}$/.test(postal)) faults.set('postalCode', this.t('badPostalCode'));
    const size = values.get('size')!.trim();
    if (size !== '' && !(Number(size.replace(',', '.')) >= 10)) faults.set('size', this.t('badSize'));
    const rooms = values.get('rooms')!.trim();
    if (rooms !== '' && !/^\d{1,2}$/.test(rooms)) faults.set('rooms', this.t('badRooms'));
    return faults;
  }

  protected request(values: Map<string, string>, consent: object) {
    const text = (name: string) => values.get(name)!.trim();
    const rooms = text('rooms');
    return {
      path: '/valuations',
      body: {
        address: text('address'),
        postal_code: text('postalCode'),
        property_type: text('propertyType'),
        operation: this.getAttribute('operation') === 'alquiler' ? 'alquiler' : 'venta',
        size_total: Number(text('size').replace(',', '.')),
        ...(rooms ? { bedrooms: Number(rooms) } : {}),
        name: text('name'),
        phone_number_1: text('phone'),
        ...(text('email') ? { personal_email: text('email') } : {}),
        source: this.source(),
        sourcePage: location.href,
        consent,
      },
    };
  }

  /** The range in the page's language (euros without cents; a rent a month), or that an agent will call. */
  protected override thanks(_known: boolean, answer: unknown): string {
    const valuation = (answer as ValuationAnswer | null)?.valuation;
    if (!valuation?.range) return this.t('notValued');
    const euros = (n: number) =>
      `${n.toLocaleString(this.t('locale'), { maximumFractionDigits: 0 })} €${valuation.operation === 'alquiler' ? this.t('perMonth') : ''}`;
    return this.t('valued').replace('{low}', euros(valuation.range.low)).replace('{high}', euros(valuation.range.high));
  }
}

for (const [name, element] of [
  ['inmo-valuation', InmoValuation],
  ['inmo-inquiry-form', InmoInquiryForm],
  ['inmo-rental-form', InmoRentalForm],
  ['inmo-viewing-form', InmoViewingForm],
] as const) {
  if (!customElements.get(name)) customElements.define(name, element);
}
