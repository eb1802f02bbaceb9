/**
 * Reading an e-mail takes time linear in its length, whatever it holds (issue 55, hole 1):
 * each pattern of the intake fed the input that made it backtrack (lines padded with blanks,
 * runs of blank lines, long runs without the character that ends a match). Each input is sized
 * so that the patterns these replace took a minute or more on a 2-core machine, and the reading
 * now takes milliseconds: the test's timeout (vitest.config.ts, 30 s) fails the old code; no
 * duration is asserted. Each case also checks what is read, so that the linear forms keep the
 * patterns' meaning.
 */
import { describe, expect, it } from 'vitest';
import { messageKeyOf } from '../../src/channels/email-message.ts';
import { addressIn, BODY_READ_MAX, HTML_MAX_DEPTH, htmlToText, scanHtml } from '../../src/domain/leads/portal-emails/content.ts';
import { fotocasa } from '../../src/domain/leads/portal-emails/fotocasa.ts';
import { readPortalEmail, type EmailContent } from '../../src/domain/leads/portal-emails/index.ts';
import { labelledLine } from '../../src/domain/leads/portal-emails/labels.ts';
import { addressOfMailto, candidateOfLink, keywordReferences, referenceWords } from '../../src/domain/leads/portal-emails/references.ts';

const mail = (from: string, text: string): EmailContent => ({ from, subject: 'Consulta', text, html: null });
const blanks = (n: number) => ' '.repeat(n);
const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('the message key', () => {
  it('a Message-ID line padded with 160,000 spaces (the old pattern: about a minute)', () => {
    const raw = Buffer.from(`From: a@b.example\r\nMessage-ID: <a${blanks(160_000)}b>\r\nSubject: s\r\n\r\nhola\r\n`);
    expect(messageKeyOf(raw)).toMatch(/^sha256:/);
    const padded = Buffer.from(`From: a@b.example\r\nMessage-ID:${blanks(160_000)}<id@b.example>${blanks(160_000)}\r\n\r\nhola\r\n`);
    expect(messageKeyOf(padded)).toBe('<id@b.example>');
  });
});

describe("portals' patterns over many blank lines", () => {
  // `^\s*` under the `m` flag: tried at each of the 250,000 lines, each time to the end of the run.
  const body = (sender: string, last: string) => mail(sender, `Nombre: Ana\nTeléfono: 600 11 22 33\n${'\n'.repeat(250_000)}${last}`);

  it('idealista: its footer sought over 250,000 blank lines, and found after them', () => {
    const contact = readPortalEmail(body('noreply.pro.es@idealista.com', 'Tu inmueble con referencia PISO-1\nx'));
    expect(contact).toMatchObject({ parser: 'idealista', name: 'Ana', phone: '+34600112233', reference: 'PISO-1' });
    const footed = readPortalEmail(body('noreply.pro.es@idealista.com', 'El equipo de idealista\nTeléfono: 900 000 000'));
    expect(footed).toMatchObject({ parser: 'idealista', name: 'Ana', phone: '+34600112233' });
  });

  it('fotocasa: its name, message and footer patterns after 250,000 blank lines', () => {
    const contact = readPortalEmail(
      body('no-reply@messaging.fotocasa.es', 'A Rosa le interesa tu anuncio\n“¿Está libre?”\nSi no quieres recibir\nTel: 1'),
    );
    expect(contact).toMatchObject({ parser: 'fotocasa', name: 'Rosa', message: '¿Está libre?', phone: '+34600112233' });
  });

  it('habitaclia and pisos.com: their references and footers after 250,000 blank lines', () => {
    expect(readPortalEmail(body('solicitudes@envios.habitaclia.com', 'Tu referencia: HAB-1'))).toMatchObject({ reference: 'HAB-1' });
    expect(readPortalEmail(body('noreply@pisos.com', 'Piso (Ref. VLC-8)'))).toMatchObject({ reference: 'VLC-8' });
  });
});

describe('long runs without what ends a match', () => {
  it('fotocasa: `A` and 20,000 blanks, never `le interesa` (the old pattern: a minute)', () => {
    const contact = readPortalEmail(mail('no-reply@messaging.fotocasa.es', `A${blanks(20_000)}x\nA  Rosa Vidal  le interesa tu anuncio`));
    expect(contact.name).toBe('Rosa Vidal');
  });

  it('fotocasa: 3,000,000 lines opening a quotation never closed', () => {
    // fotocasa's own reading alone: the rest of the reading of 3 million lines is linear, and slow enough.
    expect(fotocasa.read('“\n'.repeat(3_000_000), '').message).toBeNull();
    // A quotation over lines, closed at a line's end, is the message.
    expect(readPortalEmail(mail('no-reply@messaging.fotocasa.es', 'x\n  «Hola,\nbuenas»  \nA')).message).toBe('Hola,\nbuenas');
    // A closing mark followed by more text on its line is not.
    expect(readPortalEmail(mail('no-reply@messaging.fotocasa.es', '"Hola" dijo')).message).toBeNull();
  });

  it('habitaclia: `Tu referencia:` and 300,000 blanks to the end', () => {
    expect(
      readPortalEmail(mail('solicitudes@envios.habitaclia.com', `Nombre: Ana\nTu referencia:${blanks(300_000)}`)).reference,
    ).toBeNull();
    const text = `Tu referencia:${blanks(2_000)}\n**Tu referencia:** _HAB-2_`;
    expect(readPortalEmail(mail('solicitudes@envios.habitaclia.com', text)).reference).toBe('HAB-2_');
  });

  it('pisos.com: `(Ref` and 200,000 blanks, never a reference', () => {
    const contact = readPortalEmail(mail('noreply@pisos.com', `(Ref${blanks(200_000)}!\nPiso en venta (Ref.: VLC-88 )`));
    expect(contact.reference).toBe('VLC-88');
  });

  it('a labelled line whose value is padded with 300,000 blanks inside', () => {
    const line = `Nombre: a${blanks(300_000)}b`;
    expect(labelledLine(line)?.value).toHaveLength(300_002);
    expect(labelledLine(`  **Teléfono** :  _600 11 22 33_  `)).toEqual({ field: 'phone', value: '600 11 22 33' });
    expect(labelledLine(`*Mensaje*`)).toEqual({ field: 'message', value: '' });
    expect(labelledLine(`Nombre${blanks(300_000)}`)).toEqual({ field: 'name', value: '' });
    expect(labelledLine(`Nombre${blanks(300_000)}x`)).toBeNull();
  });

  it('an e-mail field of 300,000 letters and no `@`', () => {
    const contact = readPortalEmail(mail('x@example.org', `Email: ${'a'.repeat(300_000)}\nCorreo: ana@example.es`));
    expect(contact.email).toBe('ana@example.es');
    expect(addressIn(`${'a'.repeat(300_000)} <Ana.Gil@Mail.Example.es>`)).toBe('ana.gil@mail.example.es');
    expect(addressIn('x@a-.b a@b@c.d e@f.g-')).toBe('b@c.d');
    expect(addressIn('x@a.b-c-.d')).toBe('x@a.b-c');
    expect(addressIn('no address @ here')).toBeNull();
  });

  it('a name followed by 300,000 commas and a letter', () => {
    const contact = readPortalEmail(mail('x@example.org', `Nombre: Ana${','.repeat(300_000)}x\nTel: 600112233`));
    expect(contact.name).toBe(`Ana${','.repeat(300_000)}x`.slice(0, 200));
    expect(readPortalEmail(mail('x@example.org', `Nombre: Ana Gil,;.\nTel: 600112233`)).name).toBe('Ana Gil');
  });
});

describe('how much is read', () => {
  it('the first 512 KiB of each text: a contact at the top of 10 MiB is read, what follows that is not', () => {
    const filler = '\u201c\n\n'.repeat(1_700_000);
    const contact = readPortalEmail(mail('x@example.org', `Nombre: Ana\nTel: 600112233\n${filler}Email: ana@example.es\n`));
    expect(contact).toMatchObject({ name: 'Ana', phone: '+34600112233', email: null });
    expect(BODY_READ_MAX).toBe(512 * 1024);
  });
});

describe('HTML bodies', () => {
  // htmlparser2 keeps open elements in an array it adds to at the front: quadratic in the depth.
  it('200,000 nested <div> (1 MB; before: 37 s), and as many closing tags of another element', () => {
    expect(htmlToText(`${'<div>'.repeat(200_000)}Hola <b>Ana</b> &amp; Luis`)).toBe('Hola Ana & Luis');
    expect(htmlToText(`${'<div>'.repeat(200_000)}${'</span>'.repeat(200_000)}x`)).toBe('x');
  });

  it('1,000,000 nested <div> (5 MB; before: still running after 120 s)', () => {
    const text = htmlToText(`<p>Nombre: Ana</p>${'<div>'.repeat(1_000_000)}Teléfono: 600112233`);
    expect(lines(text)).toEqual(['Nombre: Ana', 'Teléfono: 600112233']);
  });

  it('counts depth as htmlparser2 does: unclosed paragraphs and cells are not nested, and go to html-to-text', () => {
    expect(scanHtml('<p>x'.repeat(10_000)).deeper).toBe(false);
    expect(scanHtml(`<table>${'<tr><td>a<td>b'.repeat(10_000)}</table>`).deeper).toBe(false);
    expect(scanHtml(`<svg>${'<path/>'.repeat(10_000)}</svg>`).deeper).toBe(false);
    expect(scanHtml('<span>'.repeat(HTML_MAX_DEPTH + 1)).deeper).toBe(true);
    expect(scanHtml('<span>'.repeat(HTML_MAX_DEPTH)).deeper).toBe(false);
    expect(lines(htmlToText('<table><tr><td>Nombre</td><td>Ana</td></tr></table><script>x()</script>'))).toEqual(['Nombre', 'Ana']);
  });
});

describe('where a message names its listing and its person (issue 57)', () => {
  // Each a shape a backtracking pattern takes quadratic time on: a keyword then a long run of
  // what the pattern may skip (blanks before and after an optional colon), and runs of keywords.
  it('`referencia` followed by 300,000 blanks, and by blanks, a colon and blanks, never a reference', () => {
    expect(keywordReferences(`referencia${blanks(300_000)}!`)).toEqual([]);
    expect(keywordReferences(`Ref.${blanks(150_000)}:${blanks(150_000)}!`)).toEqual([]);
    expect(keywordReferences(`x tu referencia: demo:37. (Ref: demo:23) anuncio 2 dormitorios, anuncio FTC-2002`)).toEqual([
      'demo:37',
      'demo:23',
      'FTC-2002',
    ]);
  });

  it('100,000 keywords in a row, and a reference of 300,000 characters', () => {
    expect(keywordReferences('ref '.repeat(100_000))).toEqual([]);
    expect(keywordReferences(`referencia:${'ref:'.repeat(75_000)}1`)).toEqual([]);
    expect(keywordReferences(`referencia ${'a1'.repeat(150_000)}`)).toEqual([]);
  });

  it("the words of 10 MiB of text, and links to a listing's page or website 300,000 characters long", () => {
    expect(referenceWords([`${'x '.repeat(2_500_000)}A-1`, '(B-2)'])).toEqual(['A-1', 'B-2']);
    expect(referenceWords([`${'a1 '.repeat(1_000_000)}`])).toEqual(['a1']);
    expect(candidateOfLink(`https://x.example/l/${'a'.repeat(300_000)}`, 'https://x.example/inmueble/{id}')).toBeNull();
    expect(candidateOfLink(`https://x.example/inmueble/${'1'.repeat(300_000)}`, 'https://x.example/inmueble/{id}')).toBeNull();
    expect(candidateOfLink('https://x.example/inmueble/42?a=1', 'https://X.example/inmueble/{id}')).toEqual({ id: 42 });
    expect(candidateOfLink('http://web.example/p/FTC%2D2002.html', 'https://web.example/p/{ref}.html')).toEqual({ ref: 'FTC-2002' });
    expect(candidateOfLink(`https://inmo.example/l/${'0123456789abcdef'.repeat(2)}`, null)).toEqual({ page: '0123456789abcdef'.repeat(2) });
    // Page tokens made since issue 56: 43 base64url characters, whole.
    expect(candidateOfLink('https://inmo.example/l/Ab-_Cd-_Ef-_Gh-_Ij-_Kl-_Mn-_Op-_Qr-_St-_Uvw?lang=en', null)).toEqual({
      page: 'Ab-_Cd-_Ef-_Gh-_Ij-_Kl-_Mn-_Op-_Qr-_St-_Uvw',
    });
    expect(candidateOfLink('https://inmo.example/l/Ab-_Cd-_Ef-_Gh-_Ij-_Kl-_Mn-_Op-_Qr-_St-_Uvwx', null)).toBeNull();
    expect(candidateOfLink(`https://inmo.example/l/${'0123456789abcdef'.repeat(2)}x`, null)).toBeNull();
  });

  it('a mailto: link whose domain is 300,000 dots, and an HTML part of 100,000 links', () => {
    expect(addressOfMailto(`mailto:a@b${'.'.repeat(300_000)} `)).toBeNull();
    expect(addressOfMailto('mailto:Laura.Gomez%40example.org?subject=x')).toBe('laura.gomez@example.org');
    const html = `${'<a href="mailto:no-reply@portal.example">x</a>'.repeat(100_000)}<p>Nombre: Ana</p><p>Tel: 600112233</p>`;
    const contact = readPortalEmail({ from: 'no-reply@portal.example', subject: 'Consulta', text: null, html });
    expect(contact).toMatchObject({ name: 'Ana', phone: '+34600112233', email: null });
  });
});
