/**
 * Times as the agency keeps them (CONTRACT §20, §23): an instant or a local date written in the
 * business's time zone, in the page's language, for the pages of viewings. Unlike page.ts `when`
 * (rewritten by the browser into its own zone), these are the business's clock on any device:
 * a viewing at 10:00 in Madrid reads 10:00 wherever the agent is.
 */
import { DateTime } from 'luxon';
import type { Language } from './i18n.ts';

/** Formatters of instants (RFC 3339) and local dates (`YYYY-MM-DD`) in `zone`, in `language`. */
export function businessTime(zone: string, language: Language) {
  const locale = language === 'es' ? 'es-ES' : 'en-GB';
  const at = (instant: string) => DateTime.fromISO(instant, { zone }).setLocale(locale);
  const day = (date: string) => DateTime.fromISO(date, { zone }).setLocale(locale);
  return {
    zone,
    /** `10:00`. */
    hour: (instant: string) => at(instant).toFormat('HH:mm'),
    /** `viernes, 27 de marzo de 2026` of an instant. */
    dayOf: (instant: string) => at(instant).toLocaleString(DateTime.DATE_HUGE),
    /** `vie, 27 mar 2026` of an instant. */
    shortDayOf: (instant: string) => at(instant).toLocaleString({ weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }),
    /** The local date `YYYY-MM-DD` of an instant. */
    dateOf: (instant: string) => at(instant).toISODate() ?? '',
    /** `viernes, 27 de marzo de 2026` of a local date. */
    date: (date: string) => day(date).toLocaleString(DateTime.DATE_HUGE),
    /** `vie, 27 mar` of a local date. */
    shortDate: (date: string) => day(date).toLocaleString({ weekday: 'short', day: 'numeric', month: 'short' }),
  };
}

/** What {@link businessTime} gives a template. */
export type BusinessTime = ReturnType<typeof businessTime>;
