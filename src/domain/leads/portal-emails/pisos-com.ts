/**
 * pisos.com's notification (CONTRACT §19), as reconstructed from public descriptions
 * (test/fixtures/email/README.md): sent from `noreply@pisos.com`, subject `Alguien está
 * interesado en tu inmueble`, an HTML part of tables: each label (`Nombre`, `Teléfono`, `Email`,
 * `Comentario`) in a bold cell without a colon, its value in the next cell, and the ad's title
 * with the agency's reference in brackets (`Piso en venta en Valencia (Ref. VLC-88)`).
 */
import { NO_FIELDS, type Fields } from './labels.ts';
import { first, isDomainOf, type PortalParser } from './portal.ts';

export const pisosCom: PortalParser = {
  name: 'pisos.com',
  sends: (domain) => isDomainOf(domain, 'pisos.com'),
  read(body: string): Fields {
    return { ...NO_FIELDS, reference: first(/\(\s*Ref\.?\s*(?::\s*)?([A-Za-z0-9][A-Za-z0-9._/-]*)\s*\)/i, body) };
  },
  footer: /^[ \t]*(?:Este email ha sido enviado|pisos\.com es una marca|Para dejar de recibir)/im,
};
