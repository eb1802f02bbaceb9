/**
 * The console's viewing forms (CONTRACT §20): reading what was typed, and saying beside each
 * field why it was refused. The lead's page and the listing's page book with the same form
 * (views/_viewing-form.eta); the viewing's page moves one (date and time) and records feedback.
 * The rules are services/viewings/console.ts's.
 */
import { viewingRulesFromEnv } from '../../config.ts';
import type { Static } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { ViewingForm } from '../../schemas/console-forms.ts';
import { bookFromConsole, ViewingFormError, type ViewingFormField, type ViewingFormReason } from '../../services/viewings/console.ts';
import type { Viewing } from '../../domain/viewings/presenter.ts';
import { readForm } from './forms.ts';
import type { MessageKey, Translate } from './i18n.ts';

/** A viewing form as a page shows it: the values typed (or the defaults), and the words of each refused field. */
export interface ViewingFormState {
  values: Static<typeof ViewingForm>;
  faults: Partial<Record<ViewingFormField, string>>;
}

/** A new viewing's form: 30 minutes, the rest empty or as `defaults` say. */
export function newViewingForm(defaults: Partial<Static<typeof ViewingForm>> = {}): ViewingFormState {
  return {
    values: {
      property_id: '',
      property_ref: '',
      lead_id: '',
      date: '',
      time: '',
      duration_minutes: '30',
      user_id: '',
      kind: '',
      ...defaults,
    },
    faults: {},
  };
}

/** A time as browsers send it, `HH:MM` or `HH:MM:SS` (a seconds step): `HH:MM`. */
export const typedTime = (text: string) => (/^\d{2}:\d{2}:\d{2}$/.test(text.trim()) ? text.trim().slice(0, 5) : text.trim());

/** An id typed or chosen: null when empty, 0 (no row) when not digits. */
const typedId = (text: string): number | null => (text.trim() === '' ? null : /^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : 0);

/** The words of a refused field. */
function faultWords(t: Translate, field: ViewingFormField, reason: ViewingFormReason): string {
  const keys: Record<ViewingFormReason, MessageKey> = {
    required:
      field === 'property_id'
        ? 'viewing_fault_property_required'
        : field === 'lead_id'
          ? 'viewing_fault_lead_required'
          : 'viewing_fault_required',
    date: 'viewing_fault_date',
    time: 'viewing_fault_time',
    time_skipped: 'viewing_fault_time_skipped',
    past: 'viewing_fault_past',
    outside_hours: 'viewing_fault_outside_hours',
    taken: 'viewing_fault_taken',
    horizon: 'viewing_fault_horizon',
    lead_busy: 'viewing_fault_lead_busy',
    not_found: field === 'lead_id' ? 'viewing_fault_lead_not_found' : 'viewing_fault_property_not_found',
    agent: 'viewing_fault_agent',
    duration: 'viewing_fault_duration',
    not_owner: 'viewing_fault_not_owner',
    kind: 'viewing_fault_kind',
  };
  return reason === 'horizon' ? t(keys[reason], { days: viewingRulesFromEnv().horizonDays }) : t(keys[reason]);
}

/** The words of each refused field (the first fault of a field is the one said). */
export function faultsOf(t: Translate, error: ViewingFormError): ViewingFormState['faults'] {
  const faults: ViewingFormState['faults'] = {};
  for (const f of error.faults) faults[f.field] ??= faultWords(t, f.field, f.reason);
  return faults;
}

/**
 * Books the viewing a form posted (source `console`, status `scheduled`; `kind` `visit` when not
 * given, or `valuation`), its lead or listing fixed by the page it was posted from.
 * @returns the viewing, or the form again with the values typed and the words of each refused field (nothing stored).
 */
export async function bookFromForm(
  db: Db,
  businessId: number,
  body: unknown,
  fixed: { leadId: number } | { propertyId: number },
  t: Translate,
): Promise<{ viewing: Viewing } | { form: ViewingFormState }> {
  const { value } = readForm(body, ViewingForm);
  const values = { ...value, time: typedTime(value.time), date: value.date.trim() };
  const minutes = values.duration_minutes.trim();
  const kind = values.kind.trim() === '' ? 'visit' : values.kind.trim();
  if (kind !== 'visit' && kind !== 'valuation') return { form: { values, faults: { kind: faultWords(t, 'kind', 'kind') } } };
  try {
    const viewing = await bookFromConsole(db, businessId, {
      propertyId: 'propertyId' in fixed ? fixed.propertyId : typedId(values.property_id),
      propertyRef: 'propertyId' in fixed ? null : values.property_ref,
      leadId: 'leadId' in fixed ? fixed.leadId : typedId(values.lead_id),
      date: values.date,
      time: values.time,
      durationMinutes: minutes === '' ? undefined : /^\d{1,3}$/.test(minutes) ? Number(minutes) : Number.NaN,
      userId: typedId(values.user_id),
      kind,
    });
    return { viewing };
  } catch (error) {
    if (!(error instanceof ViewingFormError)) throw error;
    return { form: { values, faults: faultsOf(t, error) } };
  }
}
