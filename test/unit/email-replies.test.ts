/**
 * E-mail as a conversation (CONTRACT §25), the pure parts: what a lead's answer says once the part
 * it quotes is cut off (domain/messaging/email-reply.ts), the reply's words in the lead's
 * language, and the threading headers read from a raw message (channels/email-message.ts
 * `threadingOf`). Both read text anyone can send: each is also fed an input sized so that a
 * backtracking pattern would take minutes (the test's 30 s timeout fails it); no duration is asserted.
 */
import { describe, expect, it } from 'vitest';
import { threadingOf, THREAD_IDS_MAX } from '../../src/channels/email-message.ts';
import { agentReplyEmail, ANSWER_MAX, answerWithoutQuote } from '../../src/domain/messaging/email-reply.ts';

describe('an answer without the part it quotes', () => {
  it.each([
    [
      'Gmail, Spanish',
      'Sí, el jueves me va bien.\n\nEl mié, 2 dic 2026 a las 18:00, Inmobiliaria Sol (<hola@sol.example>) escribió:\n> Hola Lucía,\n> el piso sigue libre.\n',
    ],
    [
      'Gmail, English, the header broken over two lines',
      'Sí, el jueves me va bien.\n\nOn Wed, 2 Dec 2026 at 18:00, Inmobiliaria Sol <\nhola@sol.example> wrote:\n> Hola Lucía,\n',
    ],
    [
      'Apple Mail, French',
      'Sí, el jueves me va bien.\n\nLe 2 déc. 2026 à 18:00, Inmobiliaria Sol <hola@sol.example> a écrit :\n\n> Hola Lucía,\n',
    ],
    ['Thunderbird, German', 'Sí, el jueves me va bien.\n\nAm 02.12.26 um 18:00 schrieb Inmobiliaria Sol:\n> Hola Lucía,\n'],
    ['Italian', 'Sí, el jueves me va bien.\n\nIl giorno mer 2 dic 2026 alle 18:00 Inmobiliaria Sol ha scritto:\n> Hola Lucía,\n'],
    [
      'Outlook, a separator',
      'Sí, el jueves me va bien.\r\n\r\n-----Original Message-----\r\nFrom: Inmobiliaria Sol\r\nSent: Wednesday\r\n\r\nHola Lucía,\r\n',
    ],
    [
      'Outlook, Spanish header block',
      'Sí, el jueves me va bien.\n\n________________________________\nDe: Inmobiliaria Sol <hola@sol.example>\nEnviado: miércoles, 2 de diciembre de 2026 18:00\nPara: lucia@example.com\nAsunto: Tu consulta\n\nHola Lucía,\n',
    ],
    [
      'a header block without a separator',
      'Sí, el jueves me va bien.\n\nFrom: Inmobiliaria Sol <hola@sol.example>\nDate: Wed, 2 Dec 2026\nSubject: Your enquiry\n\nHola Lucía,\n',
    ],
    ['only quoted lines after it', 'Sí, el jueves me va bien.\n\n> Hola Lucía,\n> el piso sigue libre.\n'],
  ])('%s: what the lead wrote, alone', (_client, text) => {
    expect(answerWithoutQuote(text)).toBe('Sí, el jueves me va bien.');
  });

  it('keeps the lines of an answer, its own blank lines and a "From:" it writes in a sentence', () => {
    const text = 'Hola,\n\nFrom: next week I am in Madrid.\nCan we meet?\n\nLucía\n';
    expect(answerWithoutQuote(text)).toBe('Hola,\n\nFrom: next week I am in Madrid.\nCan we meet?\n\nLucía');
  });

  it('an answer written below the quote, or between its lines, keeps what the lead wrote', () => {
    expect(
      answerWithoutQuote('On Wed, 2 Dec 2026, Inmobiliaria Sol wrote:\n> ¿Le viene bien el jueves?\nSí, a las cinco.\n> Saludos\n'),
    ).toBe('Sí, a las cinco.');
  });

  it('an answer of nothing but the quote is empty; a text without any quote is kept whole', () => {
    expect(answerWithoutQuote('\n\n> Hola Lucía\n> el piso\n')).toBe('');
    expect(answerWithoutQuote('  Me interesa.  \n')).toBe('Me interesa.');
  });

  it(`keeps at most ${ANSWER_MAX} characters`, () => {
    expect(answerWithoutQuote('a'.repeat(ANSWER_MAX + 50))).toHaveLength(ANSWER_MAX);
  });

  it('reads hostile text in linear time: long lines, many lines, markers that almost match', () => {
    const long = `${'On '.repeat(200_000)}wrote`;
    expect(answerWithoutQuote(long)).toBe(long.slice(0, ANSWER_MAX));
    const lines = `hola\n${'From: x\n'.repeat(200_000)}`;
    expect(answerWithoutQuote(lines).startsWith('hola\nFrom: x')).toBe(true);
    const dashes = `hola\n${'-'.repeat(300_000)}\n${'>'.repeat(300_000)}`;
    expect(answerWithoutQuote(dashes)).toBe(`hola\n${'-'.repeat(300_000)}`.slice(0, ANSWER_MAX));
  });
});

describe("the agent's reply by e-mail", () => {
  it.each([
    ['es', 'Tu consulta a Inmobiliaria Sol', 'Puedes contestar a este correo directamente.'],
    ['en', 'Your enquiry to Inmobiliaria Sol', 'You can answer this e-mail directly.'],
    ['fr', 'Votre demande à Inmobiliaria Sol', 'Vous pouvez répondre directement à ce courriel.'],
    ['de', 'Ihre Anfrage an Inmobiliaria Sol', 'Sie können direkt auf diese E-Mail antworten.'],
    ['it', 'La tua richiesta a Inmobiliaria Sol', 'Puoi rispondere direttamente a questa e-mail.'],
    ['xx', 'Tu consulta a Inmobiliaria Sol', 'Puedes contestar a este correo directamente.'],
  ])('in %s: the same subject every time, the agent’s words, the business’s name', (language, subject, answer) => {
    const first = agentReplyEmail(language, { businessName: 'Inmobiliaria Sol', text: 'Hola <Lucía>,\n\nsigue libre.', answering: false });
    expect(first.subject).toBe(subject);
    expect(first.text).toBe(`Hola <Lucía>,\n\nsigue libre.\n\nInmobiliaria Sol\n\n--\n${answer}\n`);
    expect(first.html).toContain('<p>Hola &lt;Lucía&gt;,</p><p>sigue libre.</p>');
    expect(agentReplyEmail(language, { businessName: 'Inmobiliaria Sol', text: 'x', answering: true }).subject).toBe(`Re: ${subject}`);
  });
});

describe('the threading headers of a raw message', () => {
  const raw = (headers: string) => Buffer.from(`${headers}\r\n\r\nHola\r\n> quoted <not-an-id@x>\r\n`);

  it('reads In-Reply-To first, then References newest first, the sender and every recipient', () => {
    const read = threadingOf(
      raw(
        [
          'From: "lucia@example.com" <Lucia@Example.com>',
          'To: Inmobiliaria Sol <hola@sol.example>, otra@sol.example',
          'Cc: =?utf-8?q?Jos=C3=A9?= <jose@example.com>',
          'Delivered-To: buzon@sol.example',
          'In-Reply-To: <c@sol.example>',
          'References: <a@sol.example>',
          '  <b@sol.example> <c@sol.example>',
        ].join('\r\n'),
      ),
    );
    expect(read).toEqual({
      answers: ['<c@sol.example>', '<b@sol.example>', '<a@sol.example>'],
      from: 'lucia@example.com',
      recipients: ['hola@sol.example', 'otra@sol.example', 'jose@example.com', 'buzon@sol.example'],
    });
  });

  it('reads nothing of the body, and nothing of a message without these headers', () => {
    expect(threadingOf(raw('Subject: hola'))).toEqual({ answers: [], from: null, recipients: [] });
  });

  it(`keeps at most ${THREAD_IDS_MAX} ids, and reads hostile headers in linear time`, () => {
    const many = Array.from({ length: 500 }, (_, i) => `<id${i}@x.example>`).join(' ');
    expect(threadingOf(raw(`References: ${many}`)).answers).toHaveLength(THREAD_IDS_MAX);
    const open = threadingOf(raw(`In-Reply-To: ${'<'.repeat(500_000)}a@b>\r\nTo: ${'a@'.repeat(300_000)}`));
    expect(open.answers).toEqual(['<a@b>']);
    expect(open.recipients).toEqual([]);
    const closes = threadingOf(raw(`References: ${'>'.repeat(500_000)}\r\nFrom: ${' '.repeat(500_000)}x@y.example`));
    expect(closes).toEqual({ answers: [], from: 'x@y.example', recipients: [] });
  });
});
