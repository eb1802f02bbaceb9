/**
 * What a lead is told of a viewing (CONTRACT §20), the pure rules: dates in the business's time
 * zone and the lead's language, the place as privacy allows (§5), the channel's templates by
 * purpose, the buttons' payloads, and INMO_VIEWING_REMINDER_HOURS.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { checkTemplates, storedTemplates } from '../../src/domain/messaging/templates.ts';
import {
  noticePlace,
  noticeWhen,
  readButtonPayload,
  readButtonText,
  templateParameters,
  viewingEmail,
} from '../../src/domain/messaging/viewing-notice.ts';

const listing = { address: 'Calle Mayor 1', address_approximate: 'Centro', city: 'Madrid' };

describe('viewing notices', () => {
  it('say the local date and time in the business’s time zone, in each language, across summer time', () => {
    // 08:00 UTC is 10:00 in Madrid in summer, 09:00 in the Canaries.
    expect(noticeWhen('2026-03-30T08:00:00.000+00:00', 'Europe/Madrid', 'es')).toEqual({ date: 'lunes, 30 de marzo', time: '10:00' });
    expect(noticeWhen('2026-03-30T08:00:00.000+00:00', 'Atlantic/Canary', 'en')).toEqual({ date: 'Monday, March 30', time: '09:00' });
    expect(noticeWhen('2026-03-27T09:00:00.000+00:00', 'Europe/Madrid', 'de').date).toBe('Freitag, 27. März');
    expect(noticeWhen('2026-03-27T09:00:00.000+00:00', 'Europe/Madrid', 'it').date).toBe('venerdì 27 marzo');
    expect(noticeWhen('2026-03-27T09:00:00.000+00:00', 'Europe/Madrid', 'xx').date).toBe('viernes, 27 de marzo');
  });

  it('give the address as privacy allows: public, approximate, or the agent will send the meeting point', () => {
    expect(noticePlace({ ...listing, address_privacy: 'public' })).toEqual({ kind: 'address', text: 'Calle Mayor 1, Madrid' });
    expect(noticePlace({ ...listing, address_privacy: 'approximate' })).toEqual({ kind: 'address', text: 'Centro, Madrid' });
    expect(noticePlace({ ...listing, address_privacy: 'hidden' })).toEqual({ kind: 'hidden' });
    const facts = { purpose: 'scheduled' as const, startsAt: '2026-03-30T08:00:00Z', zone: 'Europe/Madrid', listing: 'Ático' };
    expect(templateParameters('fr', { ...facts, place: { kind: 'hidden' } })[3]).toBe('Votre agent vous enverra le point de rendez-vous.');
    const mail = viewingEmail(
      'es',
      { ...facts, place: { kind: 'hidden' } },
      {
        businessName: 'Inmo <Uno>',
        leadName: null,
        unsubscribeUrl: 'https://x.example/u/t',
        links: { confirm: 'https://x.example/v/a', cancel: 'https://x.example/v/b' },
      },
    );
    expect(mail.text).toContain('Tu agente te enviará el punto de encuentro.');
    expect(mail.html).toContain('Inmo &lt;Uno&gt;');
    expect(mail.html).not.toContain('Calle');
  });

  it('read the channel’s templates by purpose, refusing unknown purposes and names WhatsApp would not take', () => {
    expect(checkTemplates({ viewing_reminder: ' recordatorio_1 ', viewing_cancelled: '' })).toEqual({
      templates: { viewing_reminder: 'recordatorio_1' },
    });
    expect(checkTemplates({ viewing_party: 'x' })).toHaveProperty('error');
    expect(checkTemplates({ viewing_reminder: 'Con espacios' })).toHaveProperty('error');
    expect(checkTemplates([])).toHaveProperty('error');
    expect(storedTemplates('not json')).toEqual({});
  });

  it('read a button’s answer from its payload, else from its words', () => {
    expect(readButtonPayload('viewing:12:confirm')).toEqual({ viewingId: 12, action: 'confirm' });
    expect(readButtonPayload('viewing:x:confirm')).toBeNull();
    expect(readButtonText(' Cancelar ')).toBe('cancel');
    expect(readButtonText('Bestätigen')).toBe('confirm');
    expect(readButtonText('Hola')).toBeNull();
  });

  it('are reminded INMO_VIEWING_REMINDER_HOURS before, 24 by default, 0 for none', () => {
    expect(loadConfig({}).worker.viewingReminderHours).toBe(24);
    expect(loadConfig({ INMO_VIEWING_REMINDER_HOURS: '0' }).worker.viewingReminderHours).toBe(0);
    expect(() => loadConfig({ INMO_VIEWING_REMINDER_HOURS: '1000' })).toThrow('INMO_VIEWING_REMINDER_HOURS');
    expect(() => loadConfig({ INMO_VIEWING_REMINDER_HOURS: 'tomorrow' })).toThrow('INMO_VIEWING_REMINDER_HOURS');
  });
});
