/**
 * The assistant's viewing offer (domain/messaging/viewing-offer.ts, CONTRACT §20): which slots,
 * in words a person reads in the business's time zone, within WhatsApp's list limits; the row
 * ids a list reply brings back; the references a lead's words and an inquiry's notes name.
 */
import { describe, expect, it } from 'vitest';
import { candidateSlots, DEFAULT_VIEWING_HOURS } from '../../src/domain/viewings/hours.ts';
import {
  inquiryReferences,
  namedWeekday,
  offerList,
  pickSlots,
  readSlotChoice,
  referencesIn,
  slotInWords,
  slotRowTitle,
} from '../../src/domain/messaging/viewing-offer.ts';

const MADRID = 'Europe/Madrid';
// Monday 30 November 2026, 08:00 in Madrid.
const free = candidateSlots({
  zone: MADRID,
  hours: DEFAULT_VIEWING_HOURS,
  from: '2026-11-30',
  days: 7,
  after: Date.parse('2026-11-30T07:00:00Z'),
});
const words = (slots: Array<{ start: number }>) => slots.map((s) => slotInWords(s.start, MADRID, 'es'));

describe('pickSlots', () => {
  it('offers the first free slot of each of the next three days', () => {
    expect(words(pickSlots(free, MADRID))).toEqual([
      'lunes 30 de noviembre, 10:00',
      'martes 1 de diciembre, 10:00',
      'miércoles 2 de diciembre, 10:00',
    ]);
  });

  it('on a weekday the lead named, three times at least two hours apart', () => {
    expect(words(pickSlots(free, MADRID, 'thu'))).toEqual([
      'jueves 3 de diciembre, 10:00',
      'jueves 3 de diciembre, 12:00',
      'jueves 3 de diciembre, 16:00',
    ]);
  });

  it('fills up from the next slots when fewer days are free, and offers none when none is', () => {
    const oneDay = free.filter((s) => s.start < Date.parse('2026-11-30T23:00:00Z'));
    expect(words(pickSlots(oneDay, MADRID))).toEqual([
      'lunes 30 de noviembre, 10:00',
      'lunes 30 de noviembre, 10:30',
      'lunes 30 de noviembre, 11:00',
    ]);
    expect(pickSlots([], MADRID)).toEqual([]);
  });
});

describe('the list', () => {
  it('reads the times in the business’s time zone, in Spanish and English, titles within 24 characters', () => {
    const summer = Date.parse('2026-09-30T14:30:00Z');
    expect(slotInWords(summer, MADRID, 'es')).toBe('miércoles 30 de septiembre, 16:30');
    expect(slotInWords(summer, MADRID, 'en')).toBe('Wednesday 30 September, 16:30');
    expect(slotInWords(summer, 'Atlantic/Canary', 'es')).toBe('miércoles 30 de septiembre, 15:30');
    const winter = Date.parse('2026-12-30T15:30:00Z');
    expect(slotRowTitle(winter, MADRID, 'es')).toBe('Miércoles 30 dic, 16:30');
    expect(slotRowTitle(winter, MADRID, 'en')).toBe('Wednesday 30 Dec, 16:30');
    for (const slot of free) expect(slotRowTitle(slot.start, MADRID, 'es').length).toBeLessThanOrEqual(24);
  });

  it('names each slot in its row id, which reads back; another list’s ids are nobody’s choice', () => {
    const slots = pickSlots(free, MADRID);
    const list = offerList({ id: 12, title: 'Piso en Delicias', external_ref: 'Z-1' }, slots, MADRID, 'en');
    expect(list.button).toBe('See times');
    expect(list.rows.map((r) => readSlotChoice(r.id))).toEqual(slots.map((s) => ({ propertyId: 12, startsAt: s.start, language: 'en' })));
    expect(list.body).toContain('“Piso en Delicias” (ref. Z-1)');
    for (const id of ['r1', 'viewing:0:1796000000:es', 'viewing:12:1796000000', 'viewing:12:1796000000:fr', 'viewing:12:abc:es']) {
      expect(readSlotChoice(id), id).toBeNull();
    }
  });
});

describe('what a lead names', () => {
  it('a weekday, and references: never a bare number, which is a day, an hour or a phone', () => {
    expect(namedWeekday('¿Puedo verlo el miércoles?')).toBe('wed');
    expect(namedWeekday('Can I see it on Saturday?')).toBe('sat');
    expect(namedWeekday('¿Puedo verlo mañana?')).toBeNull();
    expect(referencesIn('¿Puedo ver el Z-12 el jueves 3 a las 10:30? Mi móvil es 612 34 56 78')).toEqual(['Z-12', '612']);
    expect(referencesIn('The one with ref REF123, or #45')).toEqual(['REF123', '#45']);
    expect(referencesIn(null)).toEqual([]);
  });

  it('the listing an inquiry was about, newest first: the kit’s, a portal e-mail’s, a viewing request’s', () => {
    expect(
      inquiryReferences([
        'Consulta recibida por correo de idealista.\nReferencia del anuncio: ID-77',
        'Me interesa.\nRef. 12',
        'Visita pedida al inmueble Z-3 («Ático») para el 01/12/2026 a las 10:00.',
      ]),
    ).toEqual(['Z-3', '12', 'ID-77']);
    expect(inquiryReferences(['Busco piso en el centro.'])).toEqual([]);
  });
});
