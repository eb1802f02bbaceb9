/**
 * The words of listings an agent sends by hand (CONTRACT §21 "By hand"), in each of the five
 * languages: the e-mail says they were chosen for the lead (by the agent, by name, when it has
 * one) with the alert's listing cards; the WhatsApp text has each listing's link and its
 * "No me interesa" link; no placeholder or code reaches the person, and it fits WhatsApp's limit.
 */
import { describe, expect, it } from 'vitest';
import { alertEmail, handWhatsAppText, type AlertListing } from '../../src/domain/messaging/alert-email.ts';

const listing = (n: number): AlertListing => ({
  title: `Piso ${n} con terraza`,
  price: 180_000 + n,
  monthly: false,
  size: 90,
  bedrooms: 3,
  city: 'Madrid',
  photoUrl: null,
  url: `https://inmo.example/l/${String(n).padStart(32, '0')}`,
  dismissUrl: `https://inmo.example/a/${'x'.repeat(42)}${n % 10}`,
  priceDropped: false,
});

const INTROS = {
  es: 'Lucía Gil, de Agencia Sol, ha seleccionado para ti estos inmuebles:',
  en: 'Lucía Gil of Agencia Sol has chosen these properties for you:',
  fr: 'Lucía Gil, de Agencia Sol, a sélectionné pour vous ces biens :',
  de: 'Lucía Gil von Agencia Sol hat diese Immobilien für Sie ausgewählt:',
  it: 'Lucía Gil di Agencia Sol ha selezionato per te questi immobili:',
} as const;

describe('listings sent by hand, in words', () => {
  for (const [language, intro] of Object.entries(INTROS)) {
    it(`${language}: the e-mail and the WhatsApp text say an agent chose them, with every listing's links`, () => {
      const listings = [listing(1), listing(2)];
      const mail = alertEmail(language, {
        businessName: 'Agencia Sol',
        leadName: 'Marta',
        listings,
        unsubscribeUrl: 'https://inmo.example/u/t',
        chosenBy: { by: 'agent', agentName: 'Lucía Gil' },
      });
      expect(mail.text).toContain(intro);
      expect(mail.subject).toContain('Agencia Sol');
      expect(mail.html).toContain(intro.replace(/&/g, '&amp;'));
      const text = handWhatsAppText(language, { businessName: 'Agencia Sol', leadName: 'Marta', agentName: 'Lucía Gil', listings });
      expect(text).toContain(intro);
      for (const l of listings) {
        expect(text).toContain(l.url!);
        expect(text).toContain(l.dismissUrl);
      }
      for (const words of [mail.subject, mail.text, text]) expect(words).not.toMatch(/\{|\}|undefined|\bnull\b/);
    });
  }

  it('says the agency chose them when the agent has no name to give, and differs from an alert', () => {
    const words = { businessName: 'Agencia Sol', leadName: null, listings: [listing(1)], unsubscribeUrl: 'https://inmo.example/u/t' };
    const byHand = alertEmail('es', { ...words, chosenBy: { by: 'agent', agentName: null } });
    expect(byHand.subject).toBe('Un inmueble de Agencia Sol seleccionado para ti');
    expect(byHand.text).toContain('Hemos seleccionado para ti estos inmuebles de Agencia Sol:');
    const alert = alertEmail('es', words);
    expect(alert.subject).toBe('Un inmueble que encaja con tu búsqueda en Agencia Sol');
  });

  it('fits ten listings in one WhatsApp text (4,096 characters)', () => {
    const listings = Array.from({ length: 10 }, (_, i) => listing(i + 1));
    const text = handWhatsAppText('de', { businessName: 'Agencia Sol', leadName: 'Marta', agentName: 'Lucía Gil', listings });
    expect(text.length).toBeLessThanOrEqual(4096);
  });
});
