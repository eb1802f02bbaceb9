/**
 * habitaclia's request for information (CONTRACT §19), as reconstructed from public descriptions
 * (test/fixtures/email/README.md): sent from `solicitudes@envios.habitaclia.com`, subject
 * `<agency> tiene una solicitud de información - habitaclia`, ISO-8859-1, quoted-printable. The
 * contact is labelled in bold (`Nombre: `, `Teléfono: `, `Email: ` with a `mailto:` link,
 * `Comentarios: `); the ad carries habitaclia's own code first (`Referencia: …`, not the
 * agency's), then the agency's reference (`Tu referencia: …`), which is the one read.
 */
import { NO_FIELDS, type Fields } from './labels.ts';
import { first, isDomainOf, type PortalParser } from './portal.ts';

export const habitaclia: PortalParser = {
  name: 'habitaclia',
  sends: (domain) => isDomainOf(domain, 'habitaclia.com'),
  read(body: string): Fields {
    // Marks and blanks after the colon in one class: no two repetitions can share them.
    return { ...NO_FIELDS, reference: first(/^[ \t]*[*_]*(?:Tu|Su) referencia[*_]*[ \t]*:[ \t*_]*(\S+)/im, body) };
  },
  footer: /^[ \t]*(?:Gracias por confiar en habitaclia|Este correo ha sido enviado)/im,
};
