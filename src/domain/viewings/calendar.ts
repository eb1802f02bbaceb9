/**
 * An agent's calendar (CONTRACT §20 "Agents' calendars"): their viewings as one RFC 5545
 * iCalendar document, which a phone's calendar subscribes to by URL.
 *
 * Written by ical-generator; the business's `VTIMEZONE` comes from timezones-ical-library (the
 * IANA database compiled by libical's vzic, as recurring rules: Madrid's summer time from the last
 * Sunday of March to the last Sunday of October). One `VEVENT` per viewing:
 *
 * - `UID` `viewing-<id>@<host>`: stable, so a client updates the event instead of adding one;
 * - `SEQUENCE` the viewing's `sequence` (raised on every change); `DTSTAMP` its `updated_at`;
 * - `STATUS` `TENTATIVE` (requested), `CANCELLED` (cancelled), else `CONFIRMED`;
 * - `DTSTART`/`DTEND` local times with the business's `TZID` (UTC, `Z`, for the rare zone the
 *   library does not know, so the instant stays right);
 * - `SUMMARY` the lead's first name and the listing's title (its reference when it has none), so
 *   that two viewings of one listing read apart: `Lucía · Ático en Chamberí`; for a lead without a
 *   name, the local start time instead of the name (an agent's viewings do not overlap); a
 *   valuation (CONTRACT §24) says so first: `Valoración · Pedro · Piso en Delicias`;
 * - `LOCATION` the listing's address as privacy allows (CONTRACT §5: the exact address only when
 *   public, the approximate one when approximate, the city alone when hidden);
 * - `DESCRIPTION` the listing's reference and the viewing's console page, also as `URL`, where
 *   the exact address and the lead's phone are, behind the console's login.
 *
 * What the document carries, and what not: its URL is a capability anyone who holds it can read
 * with (a phone's calendar syncs it through its provider; an agent may share a calendar), so it
 * carries no more of a person than a first name, and no more of a listing than its public page
 * shows (docs/console.md "Your calendar on your phone"). The `VTIMEZONE` is written without
 * libical's `X-LIC-LOCATION` (the zone's name again), so the only location a reader meets is the
 * place.
 *
 * The same input always gives the same bytes (nothing reads the clock), which is what lets the
 * feed's ETag stand for its content.
 */
import ical, { ICalEventStatus } from 'ical-generator';
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { plainText } from '../catalogue/html.ts';
import type { ViewingKind, ViewingStatus } from './status.ts';

/** A viewing as the calendar shows it: times and `updated_at` canonical RFC 3339 UTC. */
export interface CalendarViewing {
  id: number;
  starts_at: string;
  ends_at: string;
  status: ViewingStatus;
  /** `visit`, or `valuation` (an owner's home, CONTRACT §24). */
  kind: ViewingKind;
  sequence: number;
  updated_at: string;
  /** The listing's title (may hold markup, written as plain text), its reference, address fields and privacy. */
  title: string | null;
  external_ref: string;
  address: string | null;
  address_approximate: string | null;
  address_privacy: string;
  city: string | null;
  /** The lead's name (null when unknown): only its first word is written. */
  lead_name: string | null;
}

/** What the whole calendar says besides its events. */
export interface CalendarHeading {
  /** The calendar's name, as a phone lists it (the business's and the agent's). */
  name: string;
  /** The business's IANA time zone. */
  zone: string;
  /** The host of the events' UIDs (`viewing-<id>@<host>`). */
  host: string;
  /** The origin of the console's links (`https://crm.example`, no trailing slash). */
  origin: string;
}

/** How often a client is asked to fetch the calendar again (`REFRESH-INTERVAL`, `X-PUBLISHED-TTL`), seconds. */
export const CALENDAR_REFRESH_SECONDS = 15 * 60;

/** A viewing's status as iCalendar's `STATUS` of an event. */
export const CALENDAR_STATUS: Readonly<Record<ViewingStatus, ICalEventStatus>> = {
  requested: ICalEventStatus.TENTATIVE,
  scheduled: ICalEventStatus.CONFIRMED,
  confirmed: ICalEventStatus.CONFIRMED,
  done: ICalEventStatus.CONFIRMED,
  no_show: ICalEventStatus.CONFIRMED,
  cancelled: ICalEventStatus.CANCELLED,
};

const blocks = new Map<string, string | null>();

/** The `VTIMEZONE` component of an IANA zone, or null when the library has none for it. */
export function vtimezoneOf(zone: string): string | null {
  let block = blocks.get(zone);
  if (block === undefined) {
    const found = tzlib_get_ical_block(zone);
    block =
      Array.isArray(found) && typeof found[0] === 'string' && found[0].startsWith('BEGIN:VTIMEZONE')
        ? found[0].replace(/^X-LIC-LOCATION:[^\r\n]*\r?\n/gm, '')
        : null;
    blocks.set(zone, block);
  }
  return block;
}

/**
 * An address with its city, as people write it: `Calle Mayor 1, Madrid`; the city is left out when
 * the address already ends with it (in any case), the address when there is none. Null when
 * neither is known. For the console, where agents see a listing's exact address.
 */
export function addressWithCity(address: string | null | undefined, city: string | null | undefined): string | null {
  const street = address?.trim();
  const town = city?.trim();
  if (!street) return town || null;
  if (!town || street.toLocaleLowerCase('es').endsWith(town.toLocaleLowerCase('es'))) return street;
  return `${street}, ${town}`;
}

/**
 * Where a viewing takes place as its listing's privacy lets it be said (CONTRACT §5): the address
 * and city when public, the approximate address and city when approximate, the city alone when
 * hidden (see {@link addressWithCity}). Null when nothing is known.
 */
export function calendarLocation(v: Pick<CalendarViewing, 'address' | 'address_approximate' | 'address_privacy' | 'city'>): string | null {
  return addressWithCity(
    v.address_privacy === 'public' ? v.address : v.address_privacy === 'approximate' ? v.address_approximate : null,
    v.city,
  );
}

/**
 * An event's title: `Valoración` first for a valuation, then the lead's first name (the first word
 * of its name), else the viewing's local start time `HH:mm` in `zone`, then the listing's title
 * (markup written as text), else its reference.
 */
export function calendarSummary(
  v: Pick<CalendarViewing, 'lead_name' | 'starts_at' | 'title' | 'external_ref'> & { kind?: ViewingKind },
  zone: Zone,
): string {
  const listing = plainText(v.title)?.trim() || v.external_ref;
  const first = v.lead_name?.trim().split(/\s+/u)[0];
  const summary = `${first || DateTime.fromMillis(Date.parse(v.starts_at), { zone }).toFormat('HH:mm')} · ${listing}`;
  return v.kind === 'valuation' ? `Valoración · ${summary}` : summary;
}

/**
 * The agent's calendar: an RFC 5545 document (CRLF lines, folded at 75 octets) with the
 * business's `VTIMEZONE` and one `VEVENT` per viewing, in the order given.
 */
export function agentCalendar(heading: CalendarHeading, viewings: readonly CalendarViewing[]): string {
  const zone = vtimezoneOf(heading.zone) === null ? null : heading.zone;
  const calendar = ical({
    name: heading.name,
    prodId: { company: 'inmo', product: 'viewings', language: 'ES' },
    // No calendar-wide zone (its name would make DTSTAMP a local time): each event names it, and
    // the generator writes the VTIMEZONE of every zone an event names.
    timezone: { name: null, generator: vtimezoneOf },
    ttl: CALENDAR_REFRESH_SECONDS,
  });
  // One zone object for every date (luxon looks a zone name up again each time it is given one).
  const local = zone === null ? FixedOffsetZone.utcInstance : IANAZone.create(zone);
  const at = (rfc3339: string) => DateTime.fromMillis(Date.parse(rfc3339), { zone: local });
  for (const v of viewings) {
    calendar.createEvent({
      id: `viewing-${v.id}@${heading.host}`,
      sequence: v.sequence,
      stamp: DateTime.fromMillis(Date.parse(v.updated_at), { zone: FixedOffsetZone.utcInstance }),
      start: at(v.starts_at),
      end: at(v.ends_at),
      timezone: zone,
      status: CALENDAR_STATUS[v.status],
      summary: calendarSummary(v, local),
      location: calendarLocation(v),
      description: `Ref. ${v.external_ref}\n${heading.origin}/console/viewings/${v.id}`,
      url: `${heading.origin}/console/viewings/${v.id}`,
    });
  }
  return calendar.toString();
}
