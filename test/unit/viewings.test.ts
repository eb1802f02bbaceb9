/**
 * The pure rules of viewings (CONTRACT §20): time zones and viewing hours across the changes
 * of summer time (domain/viewings/hours.ts), agents' free time (agenda.ts) and what may be done
 * to a viewing (status.ts).
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { freeAgent, freeSlots, type Held } from '../../src/domain/viewings/agenda.ts';
import {
  candidateSlots,
  canonicalTimeZone,
  checkViewingHours,
  DEFAULT_VIEWING_HOURS,
  localInstant,
  parseViewingHours,
  toLocalRfc3339,
  withinViewingHours,
  type Slot,
} from '../../src/domain/viewings/hours.ts';
import { nextStatus, VIEWING_ACTIONS, VIEWING_STATUSES } from '../../src/domain/viewings/status.ts';

const MADRID = 'Europe/Madrid';
const H = 3_600_000;
const local = (slots: Slot[], zone = MADRID) => slots.map((s) => toLocalRfc3339(s.start, zone));

describe('time zones', () => {
  it('takes IANA names in any case, as their canonical spelling, and nothing else', () => {
    expect(canonicalTimeZone('europe/madrid')).toBe('Europe/Madrid');
    expect(canonicalTimeZone(' Atlantic/Canary ')).toBe('Atlantic/Canary');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    for (const wrong of ['Madrid/Centro', '+01:00', 'CET+1', '', 'Europe/Madrid/Centro'])
      expect(canonicalTimeZone(wrong), wrong).toBeNull();
  });
});

describe('viewing hours across summer time (Europe/Madrid, 2026: 29 March and 25 October)', () => {
  const allDay = { sun: [['00:00', '24:00']] } as const;

  it('a day that loses an hour has 23 hourly slots, one that gains an hour 25, each a real hour', () => {
    const march = candidateSlots({
      zone: MADRID,
      hours: allDay,
      from: '2026-03-29',
      days: 1,
      after: 0,
      durationMinutes: 60,
      stepMinutes: 60,
    });
    const october = candidateSlots({
      zone: MADRID,
      hours: allDay,
      from: '2026-10-25',
      days: 1,
      after: 0,
      durationMinutes: 60,
      stepMinutes: 60,
    });
    expect([march.length, october.length]).toEqual([23, 25]);
    expect(local(march).slice(1, 3)).toEqual(['2026-03-29T01:00:00+01:00', '2026-03-29T03:00:00+02:00']);
    expect(local(october).slice(2, 4)).toEqual(['2026-10-25T02:00:00+02:00', '2026-10-25T02:00:00+01:00']);
    for (const s of [...march, ...october]) expect(s.end - s.start).toBe(H);
  });

  it('keeps 10:00 local on both sides of each change: 09:00 UTC in winter, 08:00 UTC in summer', () => {
    const week = (from: string) =>
      candidateSlots({ zone: MADRID, hours: DEFAULT_VIEWING_HOURS, from, days: 4, after: 0 }).filter((s) =>
        toLocalRfc3339(s.start, MADRID).includes('T10:00'),
      );
    expect(week('2026-03-27').map((s) => new Date(s.start).toISOString())).toEqual([
      '2026-03-27T09:00:00.000Z',
      '2026-03-28T09:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
    ]);
    expect(week('2026-10-23').map((s) => new Date(s.start).toISOString())).toEqual([
      '2026-10-23T08:00:00.000Z',
      '2026-10-24T08:00:00.000Z',
      '2026-10-26T09:00:00.000Z',
    ]);
  });

  it('has no instant for a local time the change to summer time skips', () => {
    expect(localInstant('2026-03-29', '02:30', MADRID)).toBeNull();
    expect(localInstant('2026-03-29', '03:00', MADRID)).toBe(Date.parse('2026-03-29T01:00:00Z'));
    expect(localInstant('2026-03-28', '24:00', MADRID)).toBe(Date.parse('2026-03-28T23:00:00Z'));
  });

  it('judges a period by its local day’s hours: whole, in one period, before the end', () => {
    const at = (iso: string, minutes = 30) => [Date.parse(iso), Date.parse(iso) + minutes * 60_000] as const;
    const within = (iso: string, minutes?: number) => withinViewingHours(MADRID, DEFAULT_VIEWING_HOURS, ...at(iso, minutes));
    expect(within('2026-03-30T08:00:00Z')).toBe(true); // 10:00 CEST
    expect(within('2026-03-27T08:00:00Z')).toBe(false); // 09:00 CET
    expect(within('2026-03-30T11:30:00Z')).toBe(true); // 13:30–14:00
    expect(within('2026-03-30T11:45:00Z')).toBe(false); // past 14:00
    expect(within('2026-03-30T08:00:00Z', 420)).toBe(false); // across the midday break
    expect(within('2026-03-29T09:00:00Z')).toBe(false); // Sunday
    expect(within('2026-03-28T15:00:00Z')).toBe(false); // Saturday afternoon
  });
});

describe('local times as the time-zone library gives them', () => {
  it('writes any instant with the offset luxon gives it, around every change of 2026, in zones with half-hour offsets too', () => {
    const zones = ['Europe/Madrid', 'Atlantic/Canary', 'America/St_Johns', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC'];
    const year = [Date.parse('2026-01-01T00:00:00Z'), Date.parse('2027-01-01T00:00:00Z')];
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: year[0], max: year[1] }), (zone, ms) => {
        const second = Math.floor(ms / 1000) * 1000;
        const expected = DateTime.fromMillis(second, { zone })
          .toISO({ suppressMilliseconds: true, includeOffset: true })!
          .replace(/Z$/, '+00:00');
        expect(toLocalRfc3339(second, zone)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
    // Every minute around each change of 2026, in order and backwards: Madrid's fall on an hour
    // of UTC, St John's and Lord Howe's inside one (an hour whose offset is not kept).
    const changes: Array<[string, string]> = [
      [MADRID, '2026-03-29T01:00:00Z'],
      [MADRID, '2026-10-25T01:00:00Z'],
      ['America/St_Johns', '2026-03-08T05:30:00Z'],
      ['America/St_Johns', '2026-11-01T04:30:00Z'],
      ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
    ];
    for (const [zone, change] of changes) {
      const minutes = Array.from({ length: 240 }, (_, i) => Date.parse(change) + (i - 120) * 60_000);
      for (const ms of [...minutes, ...minutes.reverse()])
        expect(toLocalRfc3339(ms, zone), `${zone} ${new Date(ms).toISOString()}`).toBe(
          DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }),
        );
    }
  });
});

describe('stored viewing hours', () => {
  it('reads null as the default hours and checks what is stored or given', () => {
    expect(parseViewingHours(null)).toBe(DEFAULT_VIEWING_HOURS);
    expect(checkViewingHours({ mon: [['09:00', '13:00']], sun: [] })).toEqual({ hours: { mon: [['09:00', '13:00']] } });
    const faults: Array<[unknown, string]> = [
      [[], 'Viewing hours must be an object of weekdays'],
      [{ lunes: [] }, 'Unknown weekday "lunes"; use mon, tue, wed, thu, fri, sat, sun'],
      [{ mon: '10-14' }, 'The hours of mon must be a list of [from, to] periods'],
      [{ mon: [['10', '14']] }, 'Each period of mon must be ["HH:MM", "HH:MM"]'],
      [{ mon: [['14:00', '10:00']] }, 'A period of mon must end after it starts'],
      [
        {
          mon: [
            ['10:00', '14:00'],
            ['13:00', '15:00'],
          ],
        },
        'The periods of mon must be in order and not overlap',
      ],
    ];
    for (const [value, error] of faults) expect(checkViewingHours(value)).toEqual({ error });
  });
});

describe('agents’ free time', () => {
  const slotsOf = (starts: number[]) => starts.map((s) => ({ start: s, end: s + 30 }));
  const held = fc.array(
    fc.record({ userId: fc.integer({ min: 1, max: 3 }), start: fc.integer({ min: 0, max: 600 }), len: fc.integer({ min: 1, max: 120 }) }),
    { maxLength: 25 },
  );

  it('offers exactly the slots in which some agent has no held period overlapping', () => {
    fc.assert(
      fc.property(held, fc.integer({ min: 0, max: 3 }), (periods, agentCount) => {
        const agents = [1, 2, 3].slice(0, agentCount);
        const taken: Held[] = periods.map((p) => ({ userId: p.userId, start: p.start, end: p.start + p.len }));
        const slots = slotsOf(Array.from({ length: 24 }, (_, i) => i * 30));
        const free = freeSlots(slots, agents, taken);
        for (const slot of slots) {
          const someoneFree = agents.some((a) => !taken.some((h) => h.userId === a && h.start < slot.end && slot.start < h.end));
          expect(free.includes(slot)).toBe(someoneFree);
          expect(freeAgent(slot, agents, taken) !== null).toBe(someoneFree);
        }
      }),
    );
  });

  it('gives a slot to the first free agent in the order given; a period ending at the slot’s start leaves it free', () => {
    const taken: Held[] = [{ userId: 1, start: 0, end: 30 }];
    expect(freeAgent({ start: 0, end: 30 }, [1, 2], taken)).toBe(2);
    expect(freeAgent({ start: 30, end: 60 }, [1, 2], taken)).toBe(1);
    expect(freeAgent({ start: 0, end: 30 }, [1], taken)).toBeNull();
  });
});

describe('what may be done to a viewing', () => {
  it('follows the table of CONTRACT §20', () => {
    const table = Object.fromEntries(
      VIEWING_STATUSES.map((status) => [status, Object.fromEntries(VIEWING_ACTIONS.map((action) => [action, nextStatus(status, action)]))]),
    );
    expect(table).toEqual({
      requested: { confirm: 'scheduled', cancel: 'cancelled', done: null, no_show: null, reschedule: 'requested', feedback: null },
      scheduled: { confirm: 'confirmed', cancel: 'cancelled', done: 'done', no_show: 'no_show', reschedule: 'scheduled', feedback: null },
      confirmed: { confirm: null, cancel: 'cancelled', done: 'done', no_show: 'no_show', reschedule: 'scheduled', feedback: null },
      done: { confirm: null, cancel: null, done: null, no_show: null, reschedule: null, feedback: 'done' },
      cancelled: { confirm: null, cancel: null, done: null, no_show: null, reschedule: null, feedback: null },
      no_show: { confirm: null, cancel: null, done: null, no_show: null, reschedule: null, feedback: null },
    });
  });
});
