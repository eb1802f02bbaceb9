/**
 * fotocasa's contact notification (CONTRACT §19), as reconstructed from public descriptions
 * (test/fixtures/email/README.md): sent from `…@messaging.fotocasa.es`, an HTML part only,
 * ISO-8859-1. The person is named in a sentence (`A <strong>Jordi Puig</strong> le interesa tu
 * anuncio`), the message is a quoted paragraph, and the contact is labelled `E-mail:` and
 * `Mi teléfono:` below it; the ad's block carries `Referencia: …`.
 */
import { NO_FIELDS, type Fields } from './labels.ts';
import { first, isDomainOf, type PortalParser } from './portal.ts';

export const fotocasa: PortalParser = {
  name: 'fotocasa',
  sends: (domain) => isDomainOf(domain, 'fotocasa.es'),
  read(body: string): Fields {
    return {
      ...NO_FIELDS,
      name: first(/^\s*A\s+(.{1,120}?)\s+le interesa (?:tu|su) anuncio/im, body),
      message: first(/^\s*[“"«]([^”"»]{2,5000})[”"»]\s*$/m, body),
    };
  },
  footer: /^\s*(?:Este mensaje se ha enviado desde|fotocasa\.es\s*[-–]|Si no quieres recibir)/im,
};
