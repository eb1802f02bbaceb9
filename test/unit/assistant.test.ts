/**
 * The built-in assistant's understanding (domain/messaging/assistant.ts), message by message: what each
 * intent is, and the look-alikes that must not trigger it. An opt-out is for good and a
 * hand-off silences the assistant, so their false positives matter most.
 */
import { describe, expect, it } from 'vitest';
import { refineSearches, understand } from '../../src/domain/messaging/assistant.ts';

const PLACES = new Set(['delicias', 'zaragoza', 'madrid', 'centro']);
const read = (text: string) => understand(text, PLACES);

describe('understand', () => {
  it.each([
    ['BAJA', 'opt_out', 'es'],
    ['baja.', 'opt_out', 'es'],
    ['Quiero darme de baja', 'opt_out', 'es'],
    ['Por favor no me escribáis más', 'opt_out', 'es'],
    ['No me enviéis más mensajes', 'opt_out', 'es'],
    ['Stop!', 'opt_out', 'en'],
    ['unsubscribe', 'opt_out', 'en'],
    ['Please stop messaging me', 'opt_out', 'en'],
    ['Quiero visitarlo, ¿me puede llamar un agente?', 'agent', 'es'],
    ['Llámame mañana', 'agent', 'es'],
    ['¿Puedo hablar con una persona?', 'agent', 'es'],
    ['Can I book a viewing?', 'visit', 'en'],
    ['¿Puedo verlo el jueves?', 'visit', 'es'],
    ['Quiero visitar el piso', 'visit', 'es'],
    ['Can I see it on Friday?', 'visit', 'en'],
    ['Can I see Z-2 on Friday?', 'visit', 'en'],
    ['¿Puedo ver el Z-2 mañana?', 'visit', 'es'],
    // French, German and Italian visits: in no reply language of their own.
    ['Puis-je visiter le premier ?', 'visit', null],
    ['Kann ich den ersten besichtigen?', 'visit', null],
    ['Posso vedere il primo?', 'visit', null],
    ['Please have someone call me', 'agent', 'en'],
    ['Sí, me interesa el piso', 'listings', 'es'],
    ['¿Qué opciones hay?', 'listings', 'es'],
    ['Quiero ver pisos', 'listings', 'es'],
    ['Yes, show me', 'listings', 'en'],
    ['Hasta 900', 'refine', 'es'],
    ['Up to 250k', 'refine', 'en'],
  ])('%j → %s (%s)', (text, intent, language) => {
    expect(read(text)).toMatchObject({ intent, language });
  });

  it.each([
    // Not opt-outs.
    ['Busco un piso en planta baja', 'unknown'],
    ['¿El precio baja?', 'unknown'],
    ['Is it near a bus stop?', 'unknown'],
    // Not a request for a person.
    ['local comercial', 'unknown'],
    ['Mi teléfono es 612 34 56 78', 'unknown'],
    ['Me llamo Ana, busco piso en Delicias hasta 900', 'refine'],
    ['Can I call you later?', 'unknown'],
    // Not a visit.
    ['¿Puedo ver más fotos?', 'unknown'],
    ['Can I see more photos?', 'unknown'],
    // Declining is not wanting listings.
    ['No me interesa, gracias', 'unknown'],
    ['Not interested, thanks', 'unknown'],
  ])('%j is %s', (text, intent) => {
    expect(read(text).intent).toBe(intent);
  });

  it('reads budgets, bedrooms, operations and catalogue places; a bedroom count is never a budget', () => {
    expect(read('Me llamo Ana, busco piso en Delicias hasta 900').refinement).toEqual({ priceMax: 900, place: 'Delicias' });
    expect(read('hasta 3 habitaciones').refinement).toEqual({ bedroomsMin: 3 });
    expect(read('max 2 bedrooms').refinement).toEqual({ bedroomsMin: 2 });
    expect(read('para comprar, máximo 250.000 €').refinement).toEqual({ operation: 'venta', priceMax: 250_000 });
    expect(read('presupuesto de 300 mil').refinement).toEqual({ priceMax: 300_000 });
    expect(read('up to €1,200 to rent').refinement).toEqual({ operation: 'alquiler', priceMax: 1200 });
    expect(read('algo de 90 m2 en el centro').refinement).toEqual({ place: 'centro' });
  });

  it('a refinement applies to every search entry, and to the bound of the operation searched', () => {
    const searches = [
      { operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: 1000 } },
      { operations: ['venta'], property_types: ['casa'], casa: { price_max: 300_000, price_rent_max: 5 } },
    ];
    expect(refineSearches(searches, { priceMax: 900, bedroomsMin: 2 })).toEqual([
      { operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: 900, bedrooms_min: 2 } },
      { operations: ['venta'], property_types: ['casa'], casa: { price_max: 900, bedrooms_min: 2 } },
    ]);
    // A lead with no searches gets one, for a home, the operation told by the amount.
    expect(refineSearches([], { priceMax: 850 })).toEqual([
      {
        operations: ['alquiler'],
        property_types: ['apartamento', 'casa'],
        apartamento: { price_rent_max: 850 },
        casa: { price_rent_max: 850 },
      },
    ]);
    expect(searches[0].apartamento?.price_rent_max).toBe(1000); // not changed in place
  });
});
