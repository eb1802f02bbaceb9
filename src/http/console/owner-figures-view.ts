/**
 * The owner's figures (services/console/owner-figures.ts, CONTRACT §23) in words, for the
 * partial views/_owner-figures.eta: per figure a heading, a chart (bar-chart.ts) and the table
 * it draws, every code labelled (labels.ts), every duration in plain words, the period's dates
 * in the business's time zone. No raw code and no HTML here but the chart's (escaped there).
 */
import { DateTime } from 'luxon';
import type { OwnerFigures, FirstContact } from '../../services/console/owner-figures.ts';
import { barChart } from './bar-chart.ts';
import type { Language, Translate } from './i18n.ts';
import { labelOf, LEAD_SOURCE_LABEL, LEAD_STATUS_LABEL, PROPERTY_STATUS_LABEL } from './labels.ts';

/** One figure: a chart and the table beside it (the table is the data). */
export interface FigureSection {
  /** Unique in the page: the heading's id is `${id}-h`, the chart's title `${id}-chart`. */
  id: string;
  heading: string;
  /** The chart's markup (an `<svg role="img">` or an empty-state paragraph), escaped: print it raw. */
  chart: string;
  /** What the figure counts and how, when it needs saying. */
  note: string | null;
  columns: string[];
  rows: string[][];
  /** The totals row, if any. */
  total: string[] | null;
}

export interface OwnerFiguresView {
  /** "Últimos 30 días: del 29 oct al 27 nov de 2026." */
  period: string;
  sections: FigureSection[];
}

/**
 * A duration in plain words: under an hour in minutes ("25 min", at least 1), under 10 hours in
 * hours and minutes ("2 h 30 min", "3 h"), under two days in hours ("20 h"), then in days ("3 días").
 * @param seconds ≥ 0.
 */
export function durationInWords(seconds: number, t: Translate): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return t('duration_minutes', { n: minutes });
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 10) return rest === 0 ? t('duration_hours', { n: hours }) : t('duration_hours_minutes', { h: hours, m: rest });
  if (hours < 48) return t('duration_hours', { n: Math.round(minutes / 60) });
  const days = Math.round(minutes / 1440);
  return days === 1 ? t('duration_day') : t('duration_days', { n: days });
}

/** Whole days in words ("1 día", "12 días", "0 días"). */
function daysInWords(days: number, t: Translate): string {
  return days === 1 ? t('duration_day') : t('duration_days', { n: days });
}

const LOCALE: Record<Language, string> = { es: 'es-ES', en: 'en-GB' };

/**
 * The figures in `t`'s language.
 * @param lang the page's language (dates are written in its locale).
 */
export function ownerFiguresView(figures: OwnerFigures, t: Translate, lang: Language): OwnerFiguresView {
  const local = (instant: string) => DateTime.fromISO(instant, { zone: figures.timezone }).setLocale(LOCALE[lang]);
  const period = t('figures_period', {
    from: local(figures.from).toLocaleString({ day: 'numeric', month: 'short' }),
    to: local(figures.to).toLocaleString({ day: 'numeric', month: 'short', year: 'numeric' }),
  });
  const count = (n: number) => n.toLocaleString(LOCALE[lang]);

  const sources = figures.bySource.map((s) => ({
    label: s.source === null ? t('figures_no_source') : labelOf(t, LEAD_SOURCE_LABEL, s.source),
    count: s.count,
  }));
  const bySource: FigureSection = {
    id: 'figures-source',
    heading: t('figures_leads_by_source'),
    chart: barChart({
      id: 'figures-source-chart',
      title: t('figures_leads_by_source'),
      bars: sources.map((s) => ({ label: s.label, value: s.count, text: count(s.count) })),
      empty: t('figures_none_leads'),
    }),
    note: null,
    columns: [t('figures_col_source'), t('figures_col_leads')],
    rows: sources.map((s) => [s.label, count(s.count)]),
    total: [t('figures_total'), count(figures.leads)],
  };

  const statuses = figures.byStatus.map((s) => ({ label: labelOf(t, LEAD_STATUS_LABEL, s.status), count: s.count }));
  const byStatus: FigureSection = {
    id: 'figures-status',
    heading: t('figures_leads_by_status'),
    chart: barChart({
      id: 'figures-status-chart',
      title: t('figures_leads_by_status'),
      bars: statuses.map((s) => ({ label: s.label, value: s.count, text: count(s.count) })),
      empty: t('figures_none_leads'),
    }),
    note: null,
    columns: [t('figures_col_status'), t('figures_col_leads')],
    rows: statuses.map((s) => [s.label, count(s.count)]),
    total: [t('figures_total'), count(figures.leads)],
  };

  const median = (c: FirstContact) => (c.medianSeconds === null ? t('figures_not_contacted') : durationInWords(c.medianSeconds, t));
  const agents = [...figures.agents, ...(figures.unassigned.leads > 0 ? [{ name: t('figures_unassigned'), ...figures.unassigned }] : [])];
  const firstContact: FigureSection = {
    id: 'figures-contact',
    heading: t('figures_first_contact'),
    chart: barChart({
      id: 'figures-contact-chart',
      title: t('figures_first_contact'),
      bars: agents.map((a) => ({ label: a.name, value: a.medianSeconds ?? 0, text: median(a) })),
      empty: t('figures_none_contacts'),
    }),
    note: t('figures_first_contact_note'),
    columns: [t('figures_col_agent'), t('figures_col_leads'), t('figures_col_contacted'), t('figures_col_median_contact')],
    rows: agents.map((a) => [a.name, count(a.leads), count(a.contacted), median(a)]),
    total: [t('figures_total'), count(figures.firstContact.leads), count(figures.firstContact.contacted), median(figures.firstContact)],
  };

  const moves = figures.listings.map((l) => ({
    label: l.move === 'published' ? t('figures_published') : labelOf(t, PROPERTY_STATUS_LABEL, l.move),
    count: l.count,
    days: l.medianDays === null ? '—' : daysInWords(l.medianDays, t),
  }));
  const listings: FigureSection = {
    id: 'figures-listings',
    heading: t('figures_listings'),
    chart: barChart({
      id: 'figures-listings-chart',
      title: t('figures_listings'),
      bars: moves.map((m) => ({ label: m.label, value: m.count, text: count(m.count) })),
      empty: t('figures_none_listings'),
    }),
    note: t('figures_listings_note'),
    columns: [t('figures_col_move'), t('figures_col_listings'), t('figures_col_days_on_market')],
    rows: moves.map((m) => [m.label, count(m.count), m.days]),
    total: null,
  };

  return { period, sections: [bySource, byStatus, firstContact, listings] };
}
