/**
 * Which listing of the assistant's last list a message points at (domain/messaging/listing-pointer.ts,
 * CONTRACT §10, §20), message by message in the five languages, and the look-alikes that point at
 * none: a week, a floor, a date, "está", "lo primero". Then what a pointer means among those shown,
 * and which listings a chat-completions answer names, in its order.
 */
import { describe, expect, it } from 'vitest';
import { listingsNamedIn, type ListingSummary } from '../../src/domain/messaging/assistant.ts';
import { listingPointer, resolvePointer } from '../../src/domain/messaging/listing-pointer.ts';

describe('listingPointer', () => {
  it.each([
    ['¿Puedo ir a visitar el primero?', { kind: 'position', position: 1 }],
    ['La segunda, por favor', { kind: 'position', position: 2 }],
    ['¿Se puede ver el tercer piso que me has mandado?', { kind: 'position', position: 3 }],
    ['el primero de la lista', { kind: 'position', position: 1 }],
    ['Me interesa el último', { kind: 'last' }],
    ['¿Puedo visitar ese?', { kind: 'this' }],
    ['Quiero ver esa casa', { kind: 'this' }],
    ['la opción 2', { kind: 'position', position: 2 }],
    ['2', { kind: 'position', position: 2 }],
    ['Can I visit the first one?', { kind: 'position', position: 1 }],
    ['second one please', { kind: 'position', position: 2 }],
    ['the last one', { kind: 'last' }],
    ['Can I see that one?', { kind: 'this' }],
    ['Puis-je visiter le premier ?', { kind: 'position', position: 1 }],
    ['la dernière', { kind: 'last' }],
    ['celui-ci', { kind: 'this' }],
    ['Je voudrais voir cette maison', { kind: 'this' }],
    ['Kann ich den ersten besichtigen?', { kind: 'position', position: 1 }],
    ['Das letzte, bitte', { kind: 'last' }],
    ['Kann ich diese Wohnung besichtigen?', { kind: 'this' }],
    ['Posso visitare il primo?', { kind: 'position', position: 1 }],
    ["l'ultimo", { kind: 'last' }],
    ['Posso vedere quello?', { kind: 'this' }],
    // A number wins over a demonstrative.
    ['Quiero ver ese piso, el segundo', { kind: 'position', position: 2 }],
  ])('%j → %j', (text, pointer) => {
    expect(listingPointer(text)).toEqual(pointer);
  });

  it.each([
    '¿Se puede visitar esta semana?',
    'la primera semana de junio',
    'el primero de mayo',
    'Lo primero, ¿puedo visitar el piso?',
    '¿Está disponible?',
    'Quiero visitarlo',
    'tengo 2 hijos',
    'the first week',
    'Can I visit it the first time I am in town?',
    'can i first see it',
    'this week',
    'le premier jour',
    'ce soir',
    'den ersten Tag',
    'diese Woche',
    'il primo giorno',
    'la prima settimana',
    '',
  ])('%j points at no listing', (text) => {
    expect(listingPointer(text)).toBeNull();
  });
});

describe('resolvePointer', () => {
  const shown = [31, 12, 7];
  it('reads a position, the last and "ese" among those shown; asks when it cannot tell', () => {
    expect(resolvePointer({ kind: 'position', position: 2 }, shown)).toEqual({ id: 12 });
    expect(resolvePointer({ kind: 'last' }, shown)).toEqual({ id: 7 });
    expect(resolvePointer({ kind: 'position', position: 4 }, shown)).toEqual({ which: 'beyond' });
    expect(resolvePointer({ kind: 'this' }, shown)).toEqual({ which: 'several' });
    expect(resolvePointer({ kind: 'this' }, [7])).toEqual({ id: 7 });
  });
});

describe('listingsNamedIn', () => {
  const summary = (id: number, title: string, url: string | null): ListingSummary => ({
    id,
    title,
    url,
    operation: 'alquiler',
    amount: 800,
    city: 'Zaragoza',
    size: 80,
    bedrooms: 2,
  });
  it('gives the listings a text names in its order, by URL, else #id, else title; those it does not name are left out', () => {
    const listings = [
      summary(1, 'Piso', 'https://agencia.example/inmueble/1'),
      summary(2, 'Piso en Delicias', null),
      summary(12, 'Ático', null),
      summary(3, 'Chalet', null),
    ];
    const text = 'Te recomiendo el Piso en Delicias, el #12 y este: https://agencia.example/inmueble/1';
    expect(listingsNamedIn(text, listings)).toEqual([2, 12, 1]);
  });
});
