/**
 * idealista's contact notification (CONTRACT §19), as reconstructed from public descriptions
 * (test/fixtures/email/README.md): sent from `…@idealista.com` (`noreply.pro.es@idealista.com`),
 * subject `Un usuario está interesado en tu inmueble`, text and HTML parts. The ad is named with
 * the agency's reference in a sentence (`… tu inmueble con referencia PISO-0042 (código
 * idealista 98765432)`); the contact is labelled (`Nombre:`, `Email:`, `Teléfono:`, often written
 * `Telefono:`), and the person's message follows `Mensaje:` on lines of its own.
 */
import { NO_FIELDS, type Fields } from './labels.ts';
import { first, isDomainOf, type PortalParser } from './portal.ts';

export const idealista: PortalParser = {
  name: 'idealista',
  sends: (domain) => isDomainOf(domain, 'idealista.com'),
  read(body: string): Fields {
    return {
      ...NO_FIELDS,
      // "con referencia PISO-0042": the agency's own reference; idealista's code is another number.
      reference: first(/\bcon (?:tu |su )?referencia:?\s+([A-Za-z0-9][A-Za-z0-9._/-]*)/i, body),
    };
  },
  footer: /^[ \t]*(?:Responde a este (?:mensaje|correo)|El equipo de idealista)/im,
};
