/**
 * Portal e-mails read as contacts (CONTRACT §19): each fixture of test/fixtures/email/ (portal
 * notifications as the portals send them, and forwarded by Gmail and Outlook) read through the
 * MIME reader (channels/email-message.ts, mailparser) and the parsers (domain/leads/portal-emails/)
 * to the fields it must give; and each rule of the parsers on its own, so that breaking one fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageKeyOf, readEmail } from '../../src/channels/email-message.ts';
import { originalOf } from '../../src/domain/leads/portal-emails/content.ts';
import { readPortalEmail, type EmailContent, type PortalContact } from '../../src/domain/leads/portal-emails/index.ts';
import { labelledFields } from '../../src/domain/leads/portal-emails/labels.ts';
import { REPO_ROOT } from '../helpers/db.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'email');
const raw = (name: string) => readFileSync(join(FIXTURES, name));
const read = async (name: string) => readPortalEmail(await readEmail(raw(name)));

/** What each fixture must give. */
const EXPECTED: Record<string, Omit<PortalContact, 'subject' | 'candidates' | 'words'> & { subject: string | RegExp }> = {
  'idealista.eml': {
    parser: 'idealista',
    source: 'idealista',
    sender: 'noreply.pro.es@idealista.com',
    forwarded: false,
    subject: 'Un usuario está interesado en tu inmueble',
    name: 'María López Fernández',
    phone: '+34612345678',
    email: 'maria.lopez@example.com',
    message: 'Hola, me interesa mucho este piso. ¿Sería posible visitarlo esta semana por la tarde?',
    reference: 'PISO-0042',
  },
  'fotocasa.eml': {
    parser: 'fotocasa',
    source: 'fotocasa',
    sender: 'no-reply@messaging.fotocasa.es',
    forwarded: false,
    subject: 'Nuevo contacto para tu anuncio en fotocasa',
    name: 'Jordi Puig i Serra',
    phone: '+34931234567',
    email: 'jordi.puig@example.cat',
    message: 'Buenas tardes, ¿el piso admite mascotas? Me gustaría verlo el sábado por la mañana.',
    reference: 'BCN-ALQ-7',
  },
  'habitaclia.eml': {
    parser: 'habitaclia',
    source: 'habitaclia',
    sender: 'solicitudes@envios.habitaclia.com',
    forwarded: false,
    subject: 'Inmobiliaria Sol tiene una solicitud de información - habitaclia',
    name: 'Laura Gómez Ibáñez',
    phone: '+34699123456',
    email: 'laura.gomez@example.org',
    message: 'Quisiera saber si el precio es negociable y si tiene plaza de garaje.',
    reference: 'HAB-3321',
  },
  'pisos-com.eml': {
    parser: 'pisos.com',
    source: 'pisos.com',
    sender: 'noreply@pisos.com',
    forwarded: false,
    subject: 'Alguien está interesado en tu inmueble',
    name: 'Andrés Navarro Ruiz',
    phone: '+34655443322',
    email: 'andres.navarro@example.es',
    message: 'Estoy interesado en el piso, ¿podrían llamarme por la mañana?',
    reference: 'VLC-88',
  },
  'gmail-forward-idealista.eml': {
    parser: 'idealista',
    source: 'idealista',
    sender: 'noreply.pro.es@idealista.com',
    forwarded: true,
    subject: 'Un usuario está interesado en tu inmueble',
    name: 'Pablo Ortega Díaz',
    phone: '+34622112233',
    email: 'pablo.ortega@example.net',
    message: 'Buenos días, ¿el precio incluye la plaza de garaje?',
    reference: 'M-1',
  },
  'outlook-forward-fotocasa.eml': {
    parser: 'fotocasa',
    source: 'fotocasa',
    sender: 'no-reply@messaging.fotocasa.es',
    forwarded: true,
    subject: 'Nuevo contacto para tu anuncio en fotocasa',
    name: 'Elena Martín Castro',
    phone: '+34677889900',
    email: 'elena.martin@example.org',
    message: 'Hola, ¿tiene trastero? Me gustaría visitarlo.',
    reference: 'ZGZ-ATICO-3',
  },
  'unseen-format.eml': {
    parser: 'generic',
    source: 'email',
    sender: 'avisos@portalcosta.example',
    forwarded: false,
    subject: 'Nueva solicitud: Chalet con piscina en Marbella',
    name: 'Oliver Bennett',
    phone: '+34644556677',
    email: 'oliver.bennett@example.co.uk',
    message: 'We would like to visit the villa next week. Nos gustaría visitarla la semana que viene.',
    reference: 'MRB-CH-12',
  },
  'no-contact.eml': {
    parser: 'idealista',
    source: 'idealista',
    sender: 'noticias@idealista.com',
    forwarded: false,
    subject: 'Novedades de idealista para profesionales',
    name: null,
    phone: null,
    email: null,
    message: null,
    reference: null,
  },
};

describe('each fixture read to its fields', () => {
  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(file, async () => {
      // The listing's candidates and words: the cases below, test/unit/email-linear.test.ts and test/db/leads/email-references.test.ts.
      const { candidates: _candidates, words: _words, ...contact } = await read(file);
      expect(contact).toEqual(expected);
    });
  }
});

describe('the MIME reader', () => {
  it('decodes ISO-8859-1, Windows-1252 and UTF-8, quoted-printable and base64, into the same text', async () => {
    const latin = await readEmail(raw('habitaclia.eml'));
    expect(latin.text).toContain('Laura Gómez Ibáñez');
    expect(latin.subject).toBe('Inmobiliaria Sol tiene una solicitud de información - habitaclia');
    expect((await readEmail(raw('outlook-forward-fotocasa.eml'))).text).toContain('sábado, 7 de marzo');
    expect((await readEmail(raw('pisos-com.eml'))).html).toContain('Andrés Navarro Ruiz');
    expect((await readEmail(raw('fotocasa.eml'))).text).toBeNull();
  });

  it('keys a message by its Message-ID, read from its own headers only, else by the digest of its bytes', () => {
    expect(messageKeyOf(raw('idealista.eml'))).toBe('<20260302091500.4f3a9c1e@mail-out.idealista.com>');
    expect(messageKeyOf(raw('unseen-format.eml'))).toMatch(/^sha256:[0-9a-f]{64}$/);
    // A Message-ID line in the body is not the message's.
    const inBody = Buffer.from('From: a@b.example\r\nSubject: x\r\n\r\nMessage-ID: <quoted@elsewhere.example>\r\n');
    expect(messageKeyOf(inBody)).toMatch(/^sha256:/);
    // Folded, and in another case.
    expect(messageKeyOf(Buffer.from('From: a@b.example\r\nmessage-id:\r\n <folded@x.example>\r\n\r\nbody'))).toBe('<folded@x.example>');
    // Something that is not a message id, or too long, is not trusted as a key.
    expect(messageKeyOf(Buffer.from('Message-ID: not an id\r\n\r\n'))).toMatch(/^sha256:/);
    expect(messageKeyOf(Buffer.from(`Message-ID: <${'a'.repeat(600)}@x>\r\n\r\n`))).toMatch(/^sha256:/);
  });
});

const content = (over: Partial<EmailContent>): EmailContent => ({ from: null, subject: '', text: null, html: null, ...over });

describe('rules of the portal parsers', () => {
  it('idealista: the reference is the agency\u2019s, from "con referencia", never idealista\u2019s own code', () => {
    const contact = readPortalEmail(
      content({
        from: 'noreply.pro.es@idealista.com',
        text: 'Un usuario está interesado en tu inmueble con referencia AG-7 (código idealista 98765432):\nNombre: Ana\nTelefono: 612345678',
      }),
    );
    expect(contact.reference).toBe('AG-7');
  });

  it("idealista: the footer's customer-service phone is never taken for the person's", async () => {
    const mail = await readEmail(raw('idealista.eml'));
    const withoutPhone = (text: string | null) => text && text.replace(/Telefono: 612 34 56 78/, '');
    const contact = readPortalEmail({ ...mail, text: withoutPhone(mail.text), html: withoutPhone(mail.html) });
    expect(contact.phone).toBeNull();
    expect(contact.name).toBe('María López Fernández');
  });

  it('fotocasa: the name from "A … le interesa tu anuncio", the message from its quoted paragraph', () => {
    const contact = readPortalEmail(
      content({
        from: 'no-reply@messaging.fotocasa.es',
        html: '<h2>A <strong>Rosa Vidal</strong> le interesa tu anuncio</h2><p>“¿Está libre en junio?”</p><p><strong>Mi tel&#233;fono:</strong> 600 11 22 33</p>',
      }),
    );
    expect(contact).toMatchObject({ parser: 'fotocasa', name: 'Rosa Vidal', message: '¿Está libre en junio?', phone: '+34600112233' });
  });

  it("habitaclia: the agency's reference (`Tu referencia`), not the portal's `Referencia` before it", () => {
    const text = 'Referencia: 4567-8899\nTu referencia: HAB-1\nNombre: Ana\nTeléfono: 612345678';
    expect(readPortalEmail(content({ from: 'solicitudes@envios.habitaclia.com', text })).reference).toBe('HAB-1');
    // The same text from a sender no portal parser knows: the generic reader takes the first label.
    expect(readPortalEmail(content({ from: 'x@unknown.example', text })).reference).toBe('4567-8899');
  });

  it('pisos.com: the reference in the title\u2019s brackets', () => {
    const html = '<p>Piso en venta en Valencia (Ref. VLC-9)</p><table><tr><td><b>Nombre</b></td><td>Ana</td></tr></table>';
    expect(readPortalEmail(content({ from: 'noreply@pisos.com', html })).reference).toBe('VLC-9');
  });

  it('a portal is told by its domain and subdomains only', () => {
    const text = 'Nombre: Ana\nTeléfono: 612345678';
    expect(readPortalEmail(content({ from: 'a@mail.idealista.com', text })).parser).toBe('idealista');
    expect(readPortalEmail(content({ from: 'a@notidealista.com', text })).parser).toBe('generic');
    expect(readPortalEmail(content({ from: 'a@fotocasa.es.example', text })).parser).toBe('generic');
  });
});

describe('forwarded messages', () => {
  it('Gmail: the sender is the one the quoted headers name, not the forwarding mailbox; the forwarder\u2019s own words are not read', async () => {
    const mail = await readEmail(raw('gmail-forward-idealista.eml'));
    expect(mail.from).toBe('agencia.sol@gmail.com');
    const original = originalOf(mail);
    expect(original).toMatchObject({ sender: 'noreply.pro.es@idealista.com', forwarded: true });
    for (const body of original.bodies) expect(body).not.toContain('Os lo reenvío');
  });

  it('Outlook: `De:`/`Enviado:`/`Para:`/`Asunto:` after the rule (text) and in divRplyFwdMsg (HTML)', async () => {
    const mail = await readEmail(raw('outlook-forward-fotocasa.eml'));
    expect(mail.from).toBe('info@inmobiliariasol.es');
    expect(originalOf(mail).sender).toBe('no-reply@messaging.fotocasa.es');
    // The HTML part alone gives the same.
    expect(readPortalEmail({ ...mail, text: null })).toMatchObject({ parser: 'fotocasa', forwarded: true, name: 'Elena Martín Castro' });
  });

  it('English Outlook, and `> `-quoted forwards, too', () => {
    const text = [
      'FYI',
      '',
      '> ________________________________',
      '> From: pisos.com <noreply@pisos.com>',
      '> Sent: Monday, March 9, 2026 9:00 AM',
      '> To: Agency <info@agency.example>',
      '> Subject: Alguien está interesado en tu inmueble',
      '>',
      '> Piso (Ref. P-2)',
      '> Nombre',
      '> Luis',
      '> Teléfono',
      '> 612 000 111',
    ].join('\n');
    expect(readPortalEmail(content({ from: 'info@agency.example', subject: 'FW: Alguien', text }))).toMatchObject({
      parser: 'pisos.com',
      forwarded: true,
      subject: 'Alguien',
      name: 'Luis',
      phone: '+34612000111',
      reference: 'P-2',
    });
  });

  it('a message that only mentions a `From:` line in passing is not taken for a forward', () => {
    const text = 'Nombre: Ana\nMensaje: From: me, I saw the flat\nTeléfono: 612345678';
    expect(originalOf(content({ from: 'a@b.example', text }))).toMatchObject({ sender: 'a@b.example', forwarded: false });
  });
});

describe('the generic reader of labelled text', () => {
  it('reads each field by any of its labels, accents and case aside', () => {
    const cases: Array<[string, Partial<Record<string, string>>]> = [
      ['Nombre: Ana', { name: 'Ana' }],
      ['NAME: Ann', { name: 'Ann' }],
      ['Teléfono: 612345678', { phone: '612345678' }],
      ['Tel.: 612345678', { phone: '612345678' }],
      ['Phone: +44 20 7946 0000', { phone: '+44 20 7946 0000' }],
      ['Email: a@b.example', { email: 'a@b.example' }],
      ['Correo: Ana <A@B.example>', { email: 'a@b.example' }],
      ['Mensaje: hola', { message: 'hola' }],
      ['Message: hi', { message: 'hi' }],
      ['Referencia: R-1', { reference: 'R-1' }],
      ['Ref.: R-2', { reference: 'R-2' }],
      ['Reference: R-3', { reference: 'R-3' }],
    ];
    for (const [line, fields] of cases) expect(labelledFields(line), line).toMatchObject(fields);
  });

  it('takes a value from the next line when the label stands alone, and a message over its lines up to a blank line', () => {
    const fields = labelledFields('Nombre\n\nAna Pérez\nMensaje:\nPrimera línea\nsegunda línea\n\nPie de página');
    expect(fields).toMatchObject({ name: 'Ana Pérez', message: 'Primera línea\nsegunda línea' });
  });

  it('the first value of a field wins', () => {
    expect(labelledFields('Teléfono: 612345678\nTeléfono: 910000000').phone).toBe('612345678');
  });

  it('phones are E.164, Spanish when national; an invalid one is no phone', () => {
    const phone = (written: string) => readPortalEmail(content({ text: `Nombre: Ana\nTeléfono: ${written}` })).phone;
    expect(phone('612 34 56 78')).toBe('+34612345678');
    expect(phone('0034 612 34 56 78')).toBe('+34612345678');
    expect(phone('+33 6 12 34 56 78')).toBe('+33612345678');
    expect(phone('12345')).toBeNull();
  });

  it('bounds what it keeps: a name of 200 characters on one line, a message of 10,000', () => {
    const contact = readPortalEmail(content({ text: `Nombre: ${'a '.repeat(300)}\nMensaje: ${'m'.repeat(20_000)}` }));
    expect(contact.name!.length).toBe(200);
    expect(contact.message!.length).toBe(10_000);
  });
});

describe('where the listing and the person are named (issue 57)', () => {
  it('the references of each new fixture, best first, and the address of a mailto: link', async () => {
    expect((await read('habitaclia-sentence-ref.eml')).candidates[0]).toEqual({ ref: 'demo:37' });
    expect((await read('idealista-ref-brackets.eml')).candidates).toEqual([{ ref: 'demo:23' }]);
    expect((await read('fotocasa-sentence-ref.eml')).candidates).toEqual([{ ref: 'FTC-2002' }]);
    expect((await read('fotocasa-subject-ref.eml')).candidates).toEqual([{ ref: 'FTC-2002' }]);
    const mailto = await read('habitaclia-mailto.eml');
    expect(mailto).toMatchObject({ reference: 'HAB-3321', email: 'laura.gomez@example.org' });
    // The portal's own code comes after the agency's reference, and is one of the words looked up.
    expect(mailto.candidates).toEqual([{ ref: 'HAB-3321' }, { ref: '4567-8899' }]);
    expect(mailto.words).toContain('4567-8899');
  });

  it("never the portal's, a no-reply or the agency's own address", () => {
    const html = '<a href="mailto:no-reply@portal.example">a</a><a href="mailto:info@agencia.example">b</a><p>Nombre: Ana</p>';
    const content = { from: 'avisos@portal.example', subject: 'x', text: null, html };
    expect(readPortalEmail(content, { ownAddresses: new Set(['info@agencia.example']) }).email).toBeNull();
    const text = 'Nombre: Ana\nEscríbele a ana.gil@example.org o a soporte@idealista.com';
    expect(readPortalEmail({ from: 'x@otro.example', subject: 'x', text, html: null }).email).toBe('ana.gil@example.org');
  });
});
