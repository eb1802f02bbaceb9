/**
 * Visit sheets (issue 44 item 6, CONTRACT §20), on both engines: the visitor signs on the viewing's
 * page (name, DNI/NIE checked by its letter or another document, a PNG signature), the sheet is
 * stored with the clause it was signed under and audited without personal data; a wrong DNI
 * letter, a NIE of the wrong form, a signature that is no PNG, a blank one or none are refused
 * beside the field with 422 and nothing stored; a signed sheet is never signed again; the PDF holds
 * the agency, the listing's reference and address, the time in the business's zone, the agent,
 * the visitor, the document, the signature and the clause, and an unsigned viewing's is blank;
 * the owner sets the clause on the settings page; the lead's export carries the sheet and its
 * erasure removes it.
 */
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkLetter, DEFAULT_CLAUSE, readDocument } from '../../../src/domain/viewings/visit-sheet.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { drawnSignature } from '../../helpers/signature.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { readPdf } from '../../helpers/pdf.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      // A hidden address: the sheet is the agency's own record and shows it all the same.
      listing('PISO-7', { title: 'Piso con terraza en Chamberí', address: 'Calle de Fuencarral 120, 3º B', address_privacy: 'hidden' }),
    ]);
  },
});

/** A viewing of PISO-7 for `lead` with agent `userId`, 30 minutes from `startsAt`. @returns its id. */
async function viewingOf(lead: number, userId: number, startsAt: string, status = 'confirmed'): Promise<number> {
  const row = await t.db
    .insertInto('viewings')
    .values({
      business_id: t.businessId,
      lead_id: lead,
      property_id: await propertyId(t.db, 'PISO-7'),
      user_id: userId,
      starts_at: startsAt,
      ends_at: new Date(Date.parse(startsAt) + 30 * 60_000).toISOString().replace('Z', '+00:00'),
      status: status as 'confirmed',
      source: 'console',
      feedback: null,
      created_at: '2026-03-20T09:00:00.000+00:00',
      updated_at: '2026-03-20T09:00:00.000+00:00',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The form of Lucía Beatriz with a good DNI and a drawn signature, changed by `changes`. */
async function sheetForm(changes: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    visitor_name: 'Lucía Beatriz',
    document_type: 'dni',
    document_number: '12345678Z',
    signature: await drawnSignature(),
    ...changes,
  };
}

/** `bytes` as a PNG data URL, whatever they are. */
const asPngUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

interface Agency {
  bea: { id: number };
  lucia: number;
  viewing: number;
  agent: Browser;
}

/** An owner, an agent (Bea, with a display name), a lead (Lucía) and her viewing of PISO-7 with Bea, 23 March 2026 at 10:00 in Madrid. */
async function agency(status = 'confirmed'): Promise<Agency> {
  await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
  const bea = await userWithPassword(t.db, t.businessId, 'bea@inmo.example', 'agent');
  await t.db.updateTable('users').set({ display_name: 'Bea Agente' }).where('id', '=', bea.id).execute();
  const lucia = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34600111001', name: 'Lucía Beatriz' })).id;
  const viewing = await viewingOf(lucia, bea.id, '2026-03-23T09:00:00.000+00:00', status);
  return { bea, lucia, viewing, agent: await loggedIn(t.app, 'bea@inmo.example') };
}

const sign = (agent: Browser, viewing: number, form: Record<string, string>) =>
  agent.submit(`/console/viewings/${viewing}`, `/console/viewings/${viewing}/sheet`, form);

const sheets = () => t.db.selectFrom('visit_sheets').selectAll().execute();

/** The text of the problem beside field `id`. */
const problemOf = (html: string, id: string) => new RegExp(`<p class="field-problem" id="${id}">([^<]*)</p>`).exec(html)?.[1];

describe('DNI and NIE check letters', () => {
  it('reads DNI, NIE and other documents, refusing a wrong letter or form', () => {
    expect(checkLetter('12345678')).toBe('Z');
    expect(readDocument('dni', '12.345.678-z')).toEqual({ number: '12345678Z' });
    expect(readDocument('dni', '12345678A')).toEqual({ fault: 'letter' });
    expect(readDocument('dni', '1234567Z')).toEqual({ fault: 'format' });
    expect(readDocument('nie', 'X1234567L')).toEqual({ number: 'X1234567L' });
    expect(readDocument('nie', 'Y 1234567 X')).toEqual({ number: 'Y1234567X' });
    expect(readDocument('nie', 'Z1234567R')).toEqual({ number: 'Z1234567R' });
    expect(readDocument('nie', 'X1234567A')).toEqual({ fault: 'letter' });
    expect(readDocument('nie', '12345678Z')).toEqual({ fault: 'format' });
    expect(readDocument('other', 'pa 123 4567')).toEqual({ number: 'PA1234567' });
    expect(readDocument('other', 'AB1')).toEqual({ fault: 'format' });
  });
});

describe('a visit sheet signed on the viewing’s page', () => {
  it('is stored with the clause, audited by id only, shown on the page, and printed in the PDF', async () => {
    const { bea, viewing, agent } = await agency();
    const page = await agent.get(`/console/viewings/${viewing}`);
    expect(page.body).toContain('id="h-sheet"');
    expect(page.body).toContain('<script src="/console/assets/signature.js" defer></script>');
    expect(page.body).toContain(`href="/console/viewings/${viewing}/sheet.pdf"`);
    expect(page.body).toContain('El visitante declara que ha conocido y visitado el inmueble');

    const signed = await sign(agent, viewing, {
      visitor_name: '  Lucía   Beatriz Gómez ',
      document_type: 'dni',
      document_number: '12345678-z',
      signature: await drawnSignature(),
    });
    expect([signed.statusCode, signed.headers.location]).toEqual([303, `/console/viewings/${viewing}?saved=sheet#h-sheet`]);
    const [stored] = await sheets();
    expect(stored).toMatchObject({
      viewing_id: viewing,
      business_id: t.businessId,
      visitor_name: 'Lucía Beatriz Gómez',
      document_type: 'dni',
      document_number: '12345678Z',
      clause: DEFAULT_CLAUSE,
      user_id: bea.id,
    });
    const png = await sharp(Buffer.from(stored.signature_png)).metadata();
    expect([png.format, png.width, png.height]).toEqual(['png', 600, 200]);

    // The audit names the viewing and the user, nothing of the visitor.
    const audit = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'viewing.sheet_sign').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'user', actor_id: String(bea.id), target_type: 'viewing', target_id: String(viewing) });
    expect(JSON.stringify(audit)).not.toMatch(/Lucía|12345678/);

    const after = await agent.get(`/console/viewings/${viewing}?saved=sheet`);
    expect(after.body).toContain('Hoja de visita firmada.');
    // When it was signed, in the business's time zone.
    const local = new Intl.DateTimeFormat('es-ES', { hour: '2-digit', minute: '2-digit', timeZone: 'Europe/Madrid' }).format(
      new Date(stored.signed_at),
    );
    expect(after.body).toMatch(new RegExp(`Firmada por Lucía Beatriz Gómez \\(DNI 12345678Z\\) el [^<]+, ${local}\\.`));
    expect(after.body).toMatch(/<img class="signature" src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="Firma de Lucía Beatriz Gómez">/);
    expect(after.body).not.toContain('name="visitor_name"');

    const pdf = await agent.get(`/console/viewings/${viewing}/sheet.pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`inline; filename="hoja-de-visita-${viewing}.pdf"`);
    const read = await readPdf(pdf.rawPayload);
    expect(read.pages).toBe(1);
    const text = read.text.join(' ');
    for (const expected of [
      'Inmobiliaria Test',
      'Hoja de visita',
      'PISO-7',
      'Piso con terraza en Chamberí',
      'Calle de Fuencarral 120, 3º B, 28013 Madrid, Madrid',
      // 09:00 UTC is 10:00 in Madrid in March.
      'lunes, 23 de marzo de 2026, 10:00 (Europe/Madrid)',
      'Bea Agente',
      'Lucía Beatriz Gómez',
      'DNI 12345678Z',
      'honorarios',
    ])
      expect(text).toContain(expected);
    expect(read.images).toHaveLength(1);
    const [signature] = read.images;
    const dark = signature.rgba.filter((value, i) => i % 4 !== 3 && value < 128).length;
    expect(dark).toBeGreaterThan(100);
  });

  it('takes a NIE and a passport', async () => {
    const { viewing, agent, lucia } = await agency();
    expect(
      (
        await sign(agent, viewing, {
          visitor_name: 'John Smith',
          document_type: 'other',
          document_number: 'pa1234567',
          signature: await drawnSignature(),
        })
      ).statusCode,
    ).toBe(303);
    expect((await sheets())[0]).toMatchObject({ document_type: 'other', document_number: 'PA1234567' });
    // A second viewing, signed with a NIE.
    const other = { id: await viewingOf(lucia, (await sheets())[0].user_id, '2026-03-24T09:00:00.000+00:00', 'scheduled') };
    expect(
      (
        await sign(agent, other.id, {
          visitor_name: 'Ana Pop',
          document_type: 'nie',
          document_number: 'x1234567l',
          signature: await drawnSignature(),
        })
      ).statusCode,
    ).toBe(303);
    expect((await sheets()).map((s) => s.document_number)).toEqual(['PA1234567', 'X1234567L']);
  });

  it('refuses a wrong DNI letter, a malformed NIE, a missing name, and a signature that is no PNG, blank or missing, beside the field with 422, storing nothing', async () => {
    const { viewing, agent } = await agency();
    const before = await snapshot(t.db, ['console_sessions']);
    const signature = await drawnSignature();

    const letter = await sign(agent, viewing, await sheetForm({ document_number: '12345678A', signature }));
    expect(letter.statusCode).toBe(422);
    expect(problemOf(letter.body, 's-number-problem')).toBe('La letra no corresponde al número: revise el documento.');
    expect(letter.body).toMatch(
      /id="s-number"[^>]*value="12345678A"[^>]*aria-describedby="s-number-hint s-number-problem" aria-invalid="true"/,
    );
    expect(letter.body).toContain('value="Lucía Beatriz"');
    // The signature, taken, is handed back for the box: the visitor need not sign again.
    expect(letter.body).toContain(`data-restore="${signature}"`);

    const nie = await sign(agent, viewing, await sheetForm({ document_type: 'nie', signature }));
    expect(problemOf(nie.body, 's-number-problem')).toBe('Un NIE empieza por X, Y o Z y sigue con 7 cifras y una letra, como X1234567L.');

    const nameless = await sign(agent, viewing, { visitor_name: ' ', document_type: 'dni', document_number: '12345678Z', signature });
    expect([nameless.statusCode, problemOf(nameless.body, 's-name-problem')]).toEqual([
      422,
      'Escriba el nombre y apellidos del visitante.',
    ]);

    // A JPEG sent as a PNG: read by its content, refused.
    const jpeg = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    const notPng = await sign(agent, viewing, await sheetForm({ signature: asPngUrl(jpeg) }));
    expect([notPng.statusCode, problemOf(notPng.body, 's-signature-problem')]).toEqual([
      422,
      'La firma no se pudo leer como imagen. Bórrela y que el visitante firme otra vez.',
    ]);
    const text = await sign(agent, viewing, await sheetForm({ signature: 'data:text/html;base64,PHNjcmlwdD4=' }));
    expect(problemOf(text.body, 's-signature-problem')).toBe(
      'La firma no se pudo leer como imagen. Bórrela y que el visitante firme otra vez.',
    );

    const white = await sharp({ create: { width: 600, height: 200, channels: 4, background: '#ffffff' } })
      .png()
      .toBuffer();
    const blank = await sign(agent, viewing, await sheetForm({ signature: asPngUrl(white) }));
    expect(problemOf(blank.body, 's-signature-problem')).toBe('La firma está en blanco: el visitante debe firmar en el recuadro.');
    expect(blank.body).not.toContain('data-restore');

    const missing = await sign(agent, viewing, await sheetForm({ signature: '' }));
    expect(problemOf(missing.body, 's-signature-problem')).toBe('Falta la firma: el visitante debe firmar en el recuadro.');

    expect(await snapshot(t.db, ['console_sessions'])).toBe(before);
  });

  it('refuses a signature larger than 256 KB, a second signature, and a cancelled viewing', async () => {
    const { viewing, agent } = await agency();
    // Noise does not compress: well over 256 KB as a PNG.
    const noise = Buffer.alloc(500 * 300 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const large = await sharp(noise, { raw: { width: 500, height: 300, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(large.length).toBeGreaterThan(256 * 1024);
    const tooLarge = await sign(agent, viewing, await sheetForm({ signature: asPngUrl(large) }));
    expect([tooLarge.statusCode, problemOf(tooLarge.body, 's-signature-problem')]).toEqual([
      422,
      'La firma ocupa demasiado. Bórrela y que el visitante firme otra vez.',
    ]);
    expect(await sheets()).toEqual([]);

    const form = await sheetForm();
    expect((await sign(agent, viewing, form)).statusCode).toBe(303);
    const before = await snapshot(t.db, ['console_sessions']);
    // The form is gone from the page once signed; a second post (another phone) is refused.
    const again = await agent.request('POST', `/console/viewings/${viewing}/sheet`, {
      _csrf: await agent.token(`/console/viewings/${viewing}`),
      ...form,
      visitor_name: 'Otra Persona',
    });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('Esta hoja de visita ya está firmada; una hoja firmada no se cambia.');
    expect(await snapshot(t.db, ['console_sessions'])).toBe(before);

    await t.db.updateTable('viewings').set({ status: 'cancelled' }).where('id', '=', viewing).execute();
    await t.db.deleteFrom('visit_sheets').execute();
    const cancelled = await agent.get(`/console/viewings/${viewing}`);
    expect(cancelled.body).toContain('Una visita cancelada o a la que no se presentó el lead no lleva hoja de visita.');
    const refused = await agent.request('POST', `/console/viewings/${viewing}/sheet`, {
      _csrf: await agent.token(`/console/viewings/${viewing}`),
      ...form,
    });
    expect(refused.statusCode).toBe(409);
    expect(await sheets()).toEqual([]);
  });

  it('refuses a post without the CSRF token, and another business’s viewing is a 404', async () => {
    const { viewing, agent } = await agency();
    const form = await sheetForm();
    expect((await agent.request('POST', `/console/viewings/${viewing}/sheet`, form)).statusCode).toBe(403);
    expect((await agent.get(`/console/viewings/${viewing + 1000}/sheet.pdf`)).statusCode).toBe(404);
    const elsewhere = await agent.request('POST', `/console/viewings/${viewing + 1000}/sheet`, {
      _csrf: await agent.token(`/console/viewings/${viewing}`),
      ...form,
    });
    expect(elsewhere.statusCode).toBe(404);
    expect(await sheets()).toEqual([]);
  });

  it('prints an unsigned viewing as a blank sheet to sign on paper, in English for an English console', async () => {
    const { viewing } = await agency();
    const owner = new Browser(t.app, { 'accept-language': 'en' });
    await owner.login('ana@inmo.example');
    const pdf = await owner.get(`/console/viewings/${viewing}/sheet.pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-disposition']).toBe(`inline; filename="visit-sheet-${viewing}.pdf"`);
    const read = await readPdf(pdf.rawPayload);
    const text = read.text.join(' ');
    expect(text).toContain('Visit sheet');
    expect(text).toContain('Sheet to sign on paper');
    expect(text).toContain('Monday, 23 March 2026 at 10:00 (Europe/Madrid)');
    expect(text).toContain('PISO-7');
    expect(text).not.toContain('Lucía');
    expect(read.images).toEqual([]);
  });
});

describe('the clause on the settings page', () => {
  it('is set by the owner, printed on the sheets signed after, and kept as signed on those before; empty goes back to the default', async () => {
    const { viewing, agent } = await agency();
    const owner = await loggedIn(t.app, 'ana@inmo.example');
    expect((await agent.get('/console/settings')).statusCode).toBe(403);
    const page = await owner.get('/console/settings');
    expect(page.body).toContain('Ahora se usa la cláusula por defecto.');

    const tooLong = await owner.submit('/console/settings', '/console/settings', { visit_sheet_clause: 'x'.repeat(3001) });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.body).toContain('La cláusula tiene como máximo 3000 caracteres.');
    expect((await t.db.selectFrom('businesses').select('visit_sheet_clause').executeTakeFirstOrThrow()).visit_sheet_clause).toBeNull();

    const clause = 'El visitante reconoce que la agencia Test le mostró el inmueble y que sus honorarios son del 3 %.';
    const saved = await owner.submit('/console/settings', '/console/settings', { visit_sheet_clause: `  ${clause}\r\n` });
    expect([saved.statusCode, saved.headers.location]).toEqual([303, '/console/settings?saved=1']);
    expect((await owner.get('/console/settings?saved=1')).body).toContain('Ahora se usa la cláusula de la agencia.');
    expect((await agent.get(`/console/viewings/${viewing}`)).body).toContain(clause);
    const audit = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'business.visit_sheet_clause').execute();
    expect(audit.map((a) => [a.target_type, a.target_id])).toEqual([['business', String(t.businessId)]]);

    await sign(agent, viewing, await sheetForm());
    expect((await sheets())[0].clause).toBe(clause);
    await owner.submit('/console/settings', '/console/settings', { visit_sheet_clause: '' });
    expect((await t.db.selectFrom('businesses').select('visit_sheet_clause').executeTakeFirstOrThrow()).visit_sheet_clause).toBeNull();
    // The signed sheet keeps the clause it was signed under.
    const text = (await readPdf((await agent.get(`/console/viewings/${viewing}/sheet.pdf`)).rawPayload)).text.join(' ');
    expect(text).toContain('sus honorarios son del 3 %');
  });
});

describe('personal data (CONTRACT §18)', () => {
  let signed: Agency;
  beforeEach(async () => {
    signed = await agency();
    await sign(signed.agent, signed.viewing, await sheetForm());
  });

  it('the lead’s export carries the sheet, and its erasure removes it', async () => {
    const { status, body } = await get(t.app, `/leads/${signed.lucia}/export`, t.key);
    expect(status).toBe(200);
    expect(body.visit_sheets).toHaveLength(1);
    const [sheet] = body.visit_sheets;
    expect(sheet).toMatchObject({
      viewing_id: signed.viewing,
      visitor_name: 'Lucía Beatriz',
      document_type: 'dni',
      document_number: '12345678Z',
      clause: DEFAULT_CLAUSE,
      user_id: signed.bea.id,
    });
    expect((await sharp(Buffer.from(sheet.signature_png_base64, 'base64')).metadata()).format).toBe('png');
    await expectDocumented(t.app, 'get', '/leads/{lead_id}/export', 200, body);

    const erased = await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${signed.lucia}`, headers: { 'x-api-key': t.key } });
    expect(erased.statusCode).toBe(200);
    expect(await sheets()).toEqual([]);
    expect(await snapshot(t.db)).not.toMatch(/12345678Z|Lucía Beatriz/);
  });
});
