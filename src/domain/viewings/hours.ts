/**
 * A business's clock for viewings (CONTRACT §20): its IANA time zone and its viewing hours, the
 * local periods of each weekday in which viewings are offered, and the local-time arithmetic on
 * them (luxon, over the IANA database that Node's Intl carries), so that summer time is right:
 * in `Europe/Madrid` 10:00 is 09:00 UTC in winter and 08:00 UTC from the last Sunday of March to
 * the last Sunday of October.
 *
 * Instants are epoch milliseconds; local dates are `YYYY-MM-DD`; local times `HH:MM` (24 h).
 * Calendar dates are counted without a zone (a date plus a day is the next date anywhere).
 */
import { DateTime, IANAZone } from 'luxon';

/** The time zone of a business that has not chosen one. */
export const DEFAULT_TIME_ZONE = 'Europe/Madrid';

/** ISO weekdays, Monday first (luxon's `weekday` 1–7 is the index + 1). */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A local period `[from, to)`, `HH:MM` each, `from` before `to`. */
export type LocalPeriod = readonly [from: string, to: string];

/** Local periods per weekday in which viewings are offered; a day absent or empty is closed. */
export type ViewingHours = Partial<Record<Weekday, readonly LocalPeriod[]>>;

/** Monday to Friday 10:00–14:00 and 16:00–20:00, Saturday 10:00–14:00 (CONTRACT §20). */
export const DEFAULT_VIEWING_HOURS: ViewingHours = Object.freeze({
  mon: [
    ['10:00', '14:00'],
    ['16:00', '20:00'],
  ],
  tue: [
    ['10:00', '14:00'],
    ['16:00', '20:00'],
  ],
  wed: [
    ['10:00', '14:00'],
    ['16:00', '20:00'],
  ],
  thu: [
    ['10:00', '14:00'],
    ['16:00', '20:00'],
  ],
  fri: [
    ['10:00', '14:00'],
    ['16:00', '20:00'],
  ],
  sat: [['10:00', '14:00']],
});

/** How long a viewing lasts unless said, minutes. */
export const VIEWING_MINUTES = 30;
/** The shortest viewing, minutes. */
export const MIN_VIEWING_MINUTES = 5;
/** The longest viewing, minutes: bounds how far back an overlapping viewing can start. */
export const MAX_VIEWING_MINUTES = 240;
/** Free slots are offered every this many minutes from the start of each period. */
export const SLOT_STEP_MINUTES = 30;

const MINUTE_MS = 60_000;
const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Whether `text` is a local time `HH:MM` (24 h, `00:00` to `23:59`). */
export const isLocalTime = (text: string): boolean => LOCAL_TIME.test(text);

/**
 * The canonical name of an IANA time zone (`europe/madrid` → `Europe/Madrid`).
 * @returns null when `text` names no zone of the IANA database (or is a fixed offset).
 */
export function canonicalTimeZone(text: string): string | null {
  const name = text.trim();
  if (!/^[A-Za-z]/.test(name) || !IANAZone.isValidZone(name)) return null;
  return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
}

const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * Reads viewing hours as stored or as a form gives them: `{"mon": [["10:00", "14:00"], …], …}`.
 * Periods are `HH:MM` (24 h, `24:00` allowed as an end), each from before to, sorted and not
 * overlapping within a day. @returns the hours, or an English sentence saying what is wrong.
 */
export function checkViewingHours(value: unknown): { hours: ViewingHours } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'Viewing hours must be an object of weekdays' };
  const hours: Partial<Record<Weekday, LocalPeriod[]>> = {};
  for (const [day, periods] of Object.entries(value as Record<string, unknown>)) {
    if (!(WEEKDAYS as readonly string[]).includes(day))
      return { error: `Unknown weekday ${JSON.stringify(day)}; use ${WEEKDAYS.join(', ')}` };
    if (!Array.isArray(periods)) return { error: `The hours of ${day} must be a list of [from, to] periods` };
    let end = -1;
    const kept: LocalPeriod[] = [];
    for (const period of periods as unknown[]) {
      const [from, to] = Array.isArray(period) && period.length === 2 ? (period as unknown[]) : [];
      const endOk = (t: unknown) => typeof t === 'string' && (LOCAL_TIME.test(t) || t === '24:00');
      if (typeof from !== 'string' || !LOCAL_TIME.test(from) || !endOk(to)) {
        return { error: `Each period of ${day} must be ["HH:MM", "HH:MM"]` };
      }
      const [start, stop] = [minutesOf(from), minutesOf(to as string)];
      if (stop <= start) return { error: `A period of ${day} must end after it starts` };
      if (start < end) return { error: `The periods of ${day} must be in order and not overlap` };
      end = stop;
      kept.push([from, to as string]);
    }
    if (kept.length) hours[day as Weekday] = kept;
  }
  return { hours };
}

/** The stored viewing hours (`businesses.viewing_hours`), or the default hours for null. */
export function parseViewingHours(stored: string | null): ViewingHours {
  if (stored === null) return DEFAULT_VIEWING_HOURS;
  const checked = checkViewingHours(JSON.parse(stored));
  if ('error' in checked) throw new Error(`Stored viewing hours are invalid: ${checked.error}`);
  return checked.hours;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Results of the time-zone library kept for reuse: luxon asks Node's Intl for every offset it
 * needs (tens of microseconds each), while a business asks about the same days and hours again
 * and again. Bounded: emptied whole once it holds `max` entries.
 */
class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string, make: () => V): V {
    const known = this.map.get(key);
    if (known !== undefined || this.map.has(key)) return known as V;
    if (this.map.size >= this.max) this.map.clear();
    const made = make();
    this.map.set(key, made);
    return made;
  }
}

/** Per zone and hour of UTC: the offset in force the whole hour, or null for an hour in which it changes. */
const hourOffsets = new Memo<number | null>(200_000);
/** Per zone, local date and time: luxon's instant for it, and whether that local time exists. */
const wallInstants = new Memo<{ ms: number; exists: boolean }>(200_000);

/**
 * The offset of `zone` from UTC at instant `ms`, minutes east (`60` for `+01:00`), from luxon's
 * IANA zone. Kept per hour of UTC whose start and end have the same offset: no zone changes its
 * offset twice within an hour, so that hour has it throughout; an hour with a change is asked
 * about each time.
 */
export function offsetAt(zone: string, ms: number): number {
  const tz = IANAZone.create(zone);
  const hour = Math.floor(ms / HOUR_MS);
  const whole = hourOffsets.get(`${zone} ${hour}`, () => {
    const first = tz.offset(hour * HOUR_MS);
    return first === tz.offset(hour * HOUR_MS + HOUR_MS - 1) ? first : null;
  });
  return whole ?? tz.offset(ms);
}

/** The local wall-clock reading of instant `ms` in `zone`, as `YYYY-MM-DDTHH:MM:SS` (ISO 8601, no offset). */
const wallClock = (ms: number, zone: string) => new Date(ms + offsetAt(zone, ms) * MINUTE_MS).toISOString().slice(0, 19);

const two = (n: number) => String(n).padStart(2, '0');

/** The local date of an instant in `zone`. */
export function localDate(ms: number, zone: string): string {
  return wallClock(ms, zone).slice(0, 10);
}

/** The date `days` after `date` (calendar days; negative goes back). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The Monday of the ISO week `date` is in (weeks start on Monday, as in Spain): `2026-11-27` → `2026-11-23`. */
export function weekStart(date: string): string {
  return addDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));
}

/** Whether `text` is a calendar date `YYYY-MM-DD` that exists (`2026-02-30` does not). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/**
 * Where luxon puts a local date and time (`HH:MM`, or `24:00`: the next day's start) of `zone`,
 * and whether that local time exists there: one skipped by the change to summer time is moved
 * forward by the skipped hour; one that happens twice (the hour repeated by the change back) is
 * taken with the offset in force after the change.
 */
function wallInstant(date: string, time: string, zone: string): { ms: number; exists: boolean } {
  return wallInstants.get(`${zone} ${date} ${time}`, () => {
    const [day, at] = time === '24:00' ? [addDays(date, 1), '00:00'] : [date, time];
    const resolved = DateTime.fromISO(`${day}T${at}`, { zone });
    return { ms: resolved.toMillis(), exists: resolved.toFormat('HH:mm') === at };
  });
}

/** The instant a local day starts in `zone` (its first existing minute, where midnight is skipped). */
export function dayStart(date: string, zone: string): number {
  return wallInstant(date, '00:00', zone).ms;
}

/**
 * The instant of a local wall-clock time (`HH:MM`, or `24:00`: the next day's start) in `zone`,
 * or null when that time does not exist there (skipped by the change to summer time). A time
 * that happens twice is taken with the offset in force after the change, as luxon resolves it.
 */
export function localInstant(date: string, time: string, zone: string): number | null {
  const { ms, exists } = wallInstant(date, time, zone);
  return exists ? ms : null;
}

/** An instant as RFC 3339 with the local offset of `zone`, to the second: `2026-03-30T10:00:00+02:00`. */
export function toLocalRfc3339(ms: number, zone: string): string {
  const offset = offsetAt(zone, ms);
  const abs = Math.abs(offset);
  return `${new Date(ms + offset * MINUTE_MS).toISOString().slice(0, 19)}${offset < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** A local date and time of an instant in `zone`: `{date: "2026-03-30", time: "10:00"}`. */
export function localDateTime(ms: number, zone: string): { date: string; time: string } {
  const wall = wallClock(ms, zone);
  return { date: wall.slice(0, 10), time: wall.slice(11, 16) };
}

/** A period of time: epoch ms, `[start, end)`. */
export interface Slot {
  start: number;
  end: number;
}

/** The weekday of a calendar date (Monday first). */
const weekdayOf = (date: string): Weekday => WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7];

/**
 * The periods of a local date in `zone` as instants. A bound that does not exist (inside the
 * hour skipped by the change to summer time) moves forward by the skipped hour, as luxon does.
 */
function periodsOn(date: string, zone: string, hours: ViewingHours): Slot[] {
  return (hours[weekdayOf(date)] ?? []).map(([from, to]) => ({
    start: wallInstant(date, from, zone).ms,
    end: wallInstant(date, to, zone).ms,
  }));
}

/**
 * Every slot viewing hours offer from local date `from` for `days` days: from the start of each
 * period every `stepMinutes` of real time, each `durationMinutes` long and ending within its
 * period, starting after `after` (epoch ms), in time order. A period across a change of offset
 * keeps its real length (an hour less on the day summer time starts).
 */
export function candidateSlots(options: {
  zone: string;
  hours: ViewingHours;
  from: string;
  days: number;
  after: number;
  durationMinutes?: number;
  stepMinutes?: number;
}): Slot[] {
  const duration = (options.durationMinutes ?? VIEWING_MINUTES) * MINUTE_MS;
  const step = (options.stepMinutes ?? SLOT_STEP_MINUTES) * MINUTE_MS;
  const slots: Slot[] = [];
  for (let d = 0; d < options.days; d++) {
    const date = addDays(options.from, d);
    for (const period of periodsOn(date, options.zone, options.hours)) {
      for (let start = period.start; start + duration <= period.end; start += step) {
        if (start > options.after) slots.push({ start, end: start + duration });
      }
    }
  }
  return slots;
}

/**
 * Whether `[start, end)` lies within one period of the viewing hours of its local day in `zone`.
 */
export function withinViewingHours(zone: string, hours: ViewingHours, start: number, end: number): boolean {
  if (!(end > start)) return false;
  return periodsOn(localDate(start, zone), zone, hours).some((period) => start >= period.start && end <= period.end);
}

/**
 * Whether `[start, end)` is a slot {@link candidateSlots} offers: within one period of the
 * viewing hours of its local day in `zone`, starting a whole number of `stepMinutes` (30 by
 * default) of real time after the period's start (10:00, 10:30, … for a period from 10:00).
 */
export function onSlotGrid(
  zone: string,
  hours: ViewingHours,
  start: number,
  end: number,
  stepMinutes: number = SLOT_STEP_MINUTES,
): boolean {
  if (!(end > start)) return false;
  const step = stepMinutes * MINUTE_MS;
  return periodsOn(localDate(start, zone), zone, hours).some(
    (period) => start >= period.start && end <= period.end && (start - period.start) % step === 0,
  );
}
